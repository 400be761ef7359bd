import { render, paged, h, addr, coin, num, age } from "../lib.js";
import { listTable } from "./lists.js";

const cols = [
  ["Contract", (c) => addr({ hash: c.address.hash, name: c.address.name })],
  ["Compiler", (c) => c.compiler_version],
  ["Language", (c) => c.language],
  ["Balance", (c) => coin(c.coin_balance), "num"],
  ["Txs", (c) => num(c.transactions_count), "num"],
  ["Verified", (c) => age(c.verified_at)],
];
export default () => render("Verified contracts", paged("/smart-contracts", listTable(cols), "No verified contracts yet."));
