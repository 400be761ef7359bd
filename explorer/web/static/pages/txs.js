import { render, paged } from "../lib.js";
import { txCols, listTable } from "./lists.js";
export default () => render("Transactions", paged("/transactions", listTable(txCols), "No transactions yet."));
