// Gas tracker: slow, average and fast gas prices from the node's fee
// history (gas.js), with the base fee they build on, and the API's own
// oracle (/stats gas_prices, from the indexed transactions) beside them.
import { api, h, render, fields, gwei, blockLink, num } from "../lib.js";
import { gasLevels, GAS_BLOCKS } from "../gas.js";

export default async function gasTracker() {
  const [g, stats] = await Promise.all([gasLevels(), api("/stats").catch(() => null)]);
  const card = (l) => h("div", { class: "card stat", "data-level": l.name.toLowerCase() },
    h("div", { class: "label" }, l.name + " (" + l.percentile + "th percentile tip)"),
    h("div", { class: "value", "data-field": "price" }, gwei(l.price)),
    h("div", { class: "muted" }, "base ", gwei(g.baseFee), " + tip ", h("span", { "data-field": "tip" }, gwei(l.tip))));
  const oracle = stats && stats.gas_prices;
  render("Gas tracker",
    h("div", { class: "grid", id: "gas-levels" }, g.levels.map(card)),
    h("div", { class: "card" }, fields([
      ["Next block's base fee", gwei(g.baseFee), "base-fee"],
      ["Fee history", ["the ", num(g.blocks), " blocks up to ", blockLink(g.block), " (", num(g.busy), " with transactions)"], "history"],
      oracle ? ["Explorer's oracle (slow / average / fast)", [oracle.slow, oracle.average, oracle.fast].map((p) => (p && p.price != null ? p.price : "—") + " Gwei").join(" / "), "oracle"] : null,
    ])),
    h("p", { class: "muted" }, "Each tip is the mean, over those of the last " + GAS_BLOCKS + " blocks that hold transactions, of the priority fee paid at the level's percentile of the block's gas."));
  document.querySelector("#gas-levels").dataset.block = g.block;
}
