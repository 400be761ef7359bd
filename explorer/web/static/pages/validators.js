// Validators: the CometBFT validator set as the staking state holds it.
import { api, h, render, table, units, addr, num } from "../lib.js";

export default async function validators() {
  const v = await api("/validators");
  render("Validators",
    h("p", { class: "muted" }, v.items.length + " validators; total voting power of the active set " + num(v.total_voting_power) + "."),
    table([
      ["Moniker", (x) => x.moniker || "—"],
      ["Operator", (x) => h("span", {}, h("span", { class: "mono hash", "data-field": "operator-bech32" }, x.operator_address_bech32), h("br"), addr(x.operator_address))],
      ["Status", (x) => x.status === "BOND_STATUS_BONDED" ? h("span", { class: "badge ok" }, "bonded") : h("span", { class: "badge" }, "unbonded")],
      ["Voting power", (x) => h("span", { "data-field": "voting-power" }, num(x.voting_power) + (v.total_voting_power && x.status === "BOND_STATUS_BONDED" ? " (" + (100 * x.voting_power / v.total_voting_power).toFixed(2) + "%)" : "")), "num"],
      ["Bonded", (x) => units(x.tokens) + " EMBER", "num"],
      ["Blocks proposed", (x) => h("a", { href: "/address/" + x.reward_address + "#blocks-proposed", "data-field": "blocks-proposed" }, num(x.blocks_proposed)), "num"],
      ["Consensus address", (x) => h("span", { class: "mono hash" }, x.consensus_address)],
    ], v.items, "Validators"));
}
