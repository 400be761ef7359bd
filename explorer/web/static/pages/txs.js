// Transactions: the chain's transactions, newest first, in two tabs: EVM
// (/transactions, Blockscout's list) and Native (Cosmos transactions,
// /native-transactions). The counts above them add up to the home page's
// counter, which counts both kinds.
import { api, render, paged, h, num, tabs } from "../lib.js";
import { txCols, nativeCols, listTable } from "./lists.js";

export default async function txs() {
  const c = await api("/native-transactions/counters").catch(() => null);
  render("Transactions",
    c ? h("p", { class: "muted", "data-field": "txs-counts" },
      h("span", { "data-field": "txs-total" }, num(c.transactions_count)), " transactions: ",
      h("span", { "data-field": "txs-evm" }, num(c.evm_transactions_count)), " EVM, ",
      h("span", { "data-field": "txs-native" }, num(c.native_transactions_count)), " native (Cosmos)") : null,
    tabs([
      ["EVM", () => paged("/transactions", listTable(txCols), "No EVM transactions yet.")],
      ["Native", () => paged("/native-transactions", listTable(nativeCols), "No native transactions yet.")],
    ]));
}
