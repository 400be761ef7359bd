// Block: header fields, proposer, gas, fees, previous/next, its
// transactions, internal transactions and native (Cosmos) transactions.
import { api, h, render, fields, num, coin, gwei, time, bothSpellings, blockLink, paged, tabs } from "../lib.js";
import { txCols, internalCols, nativeCols, listTable } from "./lists.js";

export default async function block([, id]) {
  const b = await api("/blocks/" + encodeURIComponent(id));
  // The newest indexed block says whether a next one exists (asking for
  // it by number would answer 404 at the head).
  const latest = await api("/main-page/blocks");
  const next = latest.length && latest[0].height > b.height ? { height: b.height + 1 } : null;
  const pct = (v) => v == null ? "" : " (" + Number(v).toFixed(2) + "%)";
  render("Block " + b.height,
    h("nav", { class: "pager", "aria-label": "Neighbouring blocks" },
      b.height > 0 ? h("a", { href: "/block/" + (b.height - 1), rel: "prev" }, "← Block " + (b.height - 1)) : null,
      next ? h("a", { href: "/block/" + next.height, rel: "next" }, "Block " + next.height + " →") : null),
    h("div", { class: "card" }, fields([
      ["Height", String(b.height), "height"],
      ["Hash", h("span", { class: "mono hash" }, b.hash), "hash"],
      b.cometbft_hash ? ["CometBFT block hash", h("span", { class: "mono hash" }, b.cometbft_hash), "cometbft-hash"] : null,
      ["Parent hash", h("a", { href: "/block/" + b.parent_hash, class: "mono hash" }, b.parent_hash), "parent-hash"],
      ["Timestamp", time(b.timestamp), "timestamp"],
      ["Transactions", num(b.transactions_count), "transactions-count"],
      ["Proposer (fee recipient)", bothSpellings(b.miner.hash, "miner"), "miner"],
      ["Gas used", num(b.gas_used) + pct(b.gas_used_percentage), "gas-used"],
      ["Gas limit", num(b.gas_limit), "gas-limit"],
      ["Gas target", b.gas_target_percentage == null ? "—" : (b.gas_target_percentage >= 0 ? "+" : "") + Number(b.gas_target_percentage).toFixed(2) + "% vs target", "gas-target"],
      ["Base fee per gas", gwei(b.base_fee_per_gas), "base-fee"],
      ["Burnt fees", coin(b.burnt_fees), "burnt-fees"],
      ["Priority fees", coin(b.priority_fee), "priority-fee"],
      ["Transaction fees", coin(b.transaction_fees), "transaction-fees"],
      ["Size", num(b.size) + " bytes", "size"],
      ["State root", h("span", { class: "mono hash" }, b.state_root), "state-root"],
      ["Extra data", h("span", { class: "mono hash" }, b.extra_data), "extra-data"],
    ])),
    tabs([
      ["Transactions", () => paged("/blocks/" + b.height + "/transactions", listTable(txCols), "No transactions in this block.")],
      ["Internal transactions", () => paged("/blocks/" + b.height + "/internal-transactions", listTable(internalCols), "No internal transactions.")],
      ["Native transactions", () => paged("/blocks/" + b.height + "/native-transactions", listTable(nativeCols), "No native transactions in this block.")],
    ]));
}
