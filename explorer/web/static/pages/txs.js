// Transactions: the chain's EVM transactions, newest first. Native (Cosmos)
// transactions have no chain-wide list in the API (their cursors are per
// block and per address), so the page says what it lists and where the
// native ones are; the home page's counter counts both.
import { render, paged, h } from "../lib.js";
import { txCols, listTable } from "./lists.js";
export default () => render("EVM transactions",
  h("p", { class: "muted", "data-field": "txs-scope" },
    "EVM transactions only. Native (Cosmos) transactions are listed on their block's and their address's pages."),
  paged("/transactions", listTable(txCols), "No transactions yet."));
