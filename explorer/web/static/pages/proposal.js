// One proposal: what it runs if it passes, its deposits and votes (the
// SDK deletes both once it is tallied), and its tally against the chain's
// quorum, threshold and veto threshold.
import { api, h, render, table, fields, addr, coin, pct, time, titled, units } from "../lib.js";

const OPTIONS = [["yes", "Yes"], ["no", "No"], ["abstain", "Abstain"], ["no_with_veto", "No with veto"]];

export default async function proposal() {
  const id = location.pathname.split("/").pop();
  const p = await api("/proposals/" + id);
  titled("Proposal #" + p.id);
  render("Proposal #" + p.id + ": " + (p.title || "(untitled)"),
    fields([
      ["Status", statusBadge(p)],
      ["Summary", h("span", { "data-field": "summary" }, p.summary || "—")],
      ["Runs", h("ul", { "data-field": "messages" }, p.messages.map((m) => h("li", { class: "mono" }, m)))],
      ["Proposer", p.proposer ? addr(p.proposer) : "—"],
      ["Submitted", time(p.submit_time)],
      ["Deposit ends", time(p.deposit_end_time)],
      ["Voting", p.voting_start_time ? h("span", { "data-field": "voting" }, time(p.voting_start_time), " → ", time(p.voting_end_time)) : "not started"],
      ["Total deposit", h("span", { "data-field": "total-deposit" }, coin(p.total_deposit), " (minimum ", coin(p.min_deposit), ")")],
      ["Tally", h("div", {}, tallyBar(p.tally), tallyTable(p))],
      ["Rules", h("span", { "data-field": "rules" }, "quorum " + pct(p.quorum) + " of ", coin(p.bonded_tokens), " bonded; passes above " + pct(p.threshold) + " yes of non-abstaining; vetoed at " + pct(p.veto_threshold))],
      p.failed_reason ? ["Failed", h("span", { class: "error", "data-field": "failed-reason" }, p.failed_reason)] : null,
    ]),
    h("h2", {}, "Votes"),
    orEmpty(p.votes, "votes", p.tally.final ? "Votes are deleted once a proposal is tallied; the tally above is final." : "No votes yet.", () => table([
      ["Voter", (v) => h("span", {}, addr(v.voter), h("br"), h("small", { class: "mono muted" }, v.voter_bech32))],
      ["Vote", (v) => h("span", { "data-field": "vote" }, v.options.map((o) => label(o.option) + (v.options.length > 1 ? " " + pct(o.weight) : "")).join(", "))],
    ], p.votes, "Votes")),
    h("h2", {}, "Deposits"),
    orEmpty(p.deposits, "deposits", "Deposits are refunded or burned when the proposal leaves its periods.", () => table([
      ["Depositor", (d) => addr(d.depositor)],
      ["Amount", (d) => h("span", { "data-field": "deposit" }, coin(d.amount)), "num"],
    ], p.deposits, "Deposits")));
}

// orEmpty is the table of items, or why there are none.
const orEmpty = (items, what, why, tbl) => items.length ? tbl() : h("p", { class: "muted", "data-field": what + "-empty" }, why);

const label = (o) => (OPTIONS.find(([k]) => k === o) || [o, o])[1];

// statusBadge is the proposal's status as a badge.
export function statusBadge(p) {
  const cls = p.status_label === "passed" ? " ok" : p.status_label === "rejected" || p.status_label === "failed" ? " bad" : "";
  return h("span", { class: "badge" + cls, "data-field": "status" }, p.status_label);
}

// tallyBar is the share of each option in the votes cast, as text.
export function tallyBar(t) {
  const total = OPTIONS.reduce((s, [k]) => s + BigInt(t[k]), 0n);
  const text = total === 0n ? "no votes" : OPTIONS.filter(([k]) => BigInt(t[k]) > 0n)
    .map(([k, name]) => name + " " + units((BigInt(t[k]) * 10000n / total).toString(), 2) + "%").join(" · ");
  return h("span", { "data-field": "tally" }, (t.final ? "" : "running: ") + text);
}

function tallyTable(p) {
  return table([["Option", ([, name]) => name], ["Tokens", ([k]) => h("span", { "data-field": "tally-" + k }, coin(p.tally[k])), "num"]], OPTIONS, "Tally");
}
