// Governance: the gov module's proposals, newest first, with their status
// and tally (running in the voting period, final after), read from the
// chain's state at one block.
import { api, h, render, table, num, coin, age } from "../lib.js";
import { statusBadge, tallyBar } from "./proposal.js";

export default async function proposals() {
  const v = await api("/proposals");
  render("Governance",
    h("p", { class: "muted" }, v.items.length + " proposals; state of block " + num(v.block_number) + "."),
    table([
      ["#", (x) => h("a", { href: "/proposal/" + x.id, "data-field": "id" }, "#" + x.id)],
      ["Title", (x) => h("a", { href: "/proposal/" + x.id, "data-field": "title" }, x.title || "(untitled)")],
      ["Status", statusBadge],
      ["Tally", (x) => tallyBar(x.tally)],
      ["Deposit", (x) => h("span", { "data-field": "total-deposit" }, coin(x.total_deposit)), "num"],
      ["Submitted", (x) => age(x.submit_time)],
    ], v.items, "Proposals"));
}
