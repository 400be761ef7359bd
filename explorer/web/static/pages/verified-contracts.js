import { render, paged, h, addr, coin, num, ago } from "../lib.js";
import { listTable } from "./lists.js";

const cols = [
  ["Contract", (c) => addr({ hash: c.address.hash, name: c.address.name })],
  ["Compiler", (c) => c.compiler_version],
  ["Language", (c) => c.language],
  ["Balance", (c) => coin(c.coin_balance), "num"],
  ["Txs", (c) => num(c.transactions_count), "num"],
  ["Verified", (c) => h("time", { datetime: c.verified_at, title: c.verified_at }, ago(c.verified_at))],
];
export default () => render("Verified contracts", paged("/smart-contracts", listTable(cols), "No verified contracts yet."));
