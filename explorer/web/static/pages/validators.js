// Validators: the staking module's validators with their commission,
// slashing record (jail, tombstone, uptime over the signing window) and
// delegators, all read from the chain's state at one block.
import { api, h, render, table, addr, num, coin, pct } from "../lib.js";

export default async function validators() {
  const v = await api("/validators");
  render("Validators",
    h("p", { class: "muted" }, v.items.length + " validators; total voting power of the active set " + num(v.total_voting_power) +
      "; uptime over the last " + num(v.signed_blocks_window) + " blocks; state of block " + num(v.block_number) + "."),
    table([
      ["Moniker", (x) => h("span", { "data-field": "moniker" }, x.moniker || "—")],
      ["Operator", (x) => h("span", {}, h("span", { class: "mono hash", "data-field": "operator-bech32" }, x.operator_address_bech32), h("br"), addr(x.operator_address))],
      ["Status", statusCell],
      ["Voting power", (x) => h("span", { "data-field": "voting-power" }, num(x.voting_power) + (x.status === "BOND_STATUS_BONDED" && v.total_voting_power ? " (" + pct(x.voting_power_share) + ")" : "")), "num"],
      ["Tokens", (x) => h("span", { "data-field": "tokens" }, coin(x.tokens)), "num"],
      ["Commission", (x) => h("span", { "data-field": "commission" }, pct(x.commission_rate),
        h("br"), h("small", { class: "muted" }, "max " + pct(x.commission_max_rate) + ", change ≤ " + pct(x.commission_max_change_rate) + "/day")), "num"],
      ["Uptime", (x) => x.uptime == null ? h("span", { "data-field": "uptime", title: "no signing record: the chain counts no votes (a dev chain), or the validator has not signed yet" }, "—") : h("span", { "data-field": "uptime", title: num(x.missed_blocks_counter) + " of the last " + num(v.signed_blocks_window) + " blocks missed" }, pct(x.uptime)), "num"],
      ["Self-bond", (x) => h("span", { "data-field": "self-bond" }, coin(x.self_bond)), "num"],
      ["Delegators", (x) => h("span", { "data-field": "delegator-count" }, num(x.delegator_count)), "num"],
      ["Blocks proposed", (x) => h("a", { href: "/address/" + x.reward_address + "#blocks-proposed", "data-field": "blocks-proposed" }, num(x.blocks_proposed)), "num"],
      ["Consensus address", (x) => h("span", { class: "mono hash" }, x.consensus_address)],
    ], v.items, "Validators"));
}

// statusCell is the bond status, and jailed/tombstoned when they apply.
function statusCell(x) {
  const badges = [h("span", { class: "badge" + (x.status_label === "bonded" ? " ok" : ""), "data-field": "status" }, x.status_label)];
  if (x.tombstoned) badges.push(" ", h("span", { class: "badge bad", "data-field": "tombstoned" }, "tombstoned"));
  if (x.jailed) badges.push(" ", h("span", { class: "badge bad", "data-field": "jailed", title: x.jailed_until ? "until " + x.jailed_until : "" }, "jailed"));
  return h("span", {}, badges);
}
