// The list pages' tables, shared by blocks, txs, tokens and verified
// contracts.
import { h, table, num, coin, age, addr, txLink, blockLink, status, units, tokenLink, short, direction } from "../lib.js";

export const blockCols = [
  ["Block", (b) => blockLink(b.height)],
  ["Age", (b) => age(b.timestamp), "age"],
  ["Txs", (b) => num(b.transactions_count), "num"],
  ["Proposer", (b) => addr(b.miner)],
  ["Gas used", (b) => num(b.gas_used), "num"],
  ["Burnt fees", (b) => coin(b.burnt_fees), "num"],
];

export const txCols = [
  ["Hash", (t) => txLink(t.hash)],
  ["Status", (t) => status(t)],
  ["Method", (t) => t.method ? h("code", {}, t.method) : (t.to ? "transfer" : "create")],
  ["Block", (t) => blockLink(t.block_number)],
  ["Age", (t) => age(t.timestamp), "age"],
  ["From", (t) => addr(t.from)],
  ["To", (t) => t.to ? addr(t.to) : t.created_contract ? ["create ", addr(t.created_contract)] : "—"],
  ["Value", (t) => coin(t.value), "num"],
  ["Fee", (t) => coin(t.fee && t.fee.value), "num"],
];

// nativeCols: native (Cosmos) transactions; "To" is the first message's
// recipient or validator.
export const nativeCols = [
  ["Hash", (t) => txLink(t.hash)],
  ["Status", (t) => status(t)],
  ["Messages", (t) => h("code", {}, t.method)],
  ["Block", (t) => blockLink(t.block_number)],
  ["Age", (t) => age(t.timestamp), "age"],
  ["Signer", (t) => addr(t.from)],
  ["To", (t) => t.to ? addr(t.to) : "—"],
  ["Value", (t) => coin(t.value), "num"],
  ["Fee", (t) => coin(t.fee && t.fee.value), "num"],
];

export const transferCols = [
  ["Tx", (x) => txLink(x.transaction_hash)],
  ["Age", (x) => age(x.timestamp), "age"],
  ["Type", (x) => x.type.replace("token_", "")],
  ["From", (x) => addr(x.from)],
  ["To", (x) => addr(x.to)],
  ["Token", (x) => tokenLink(x.token)],
  ["Amount / id", (x) => transferAmount(x), "num"],
];

export function transferAmount(x) {
  const t = x.total || {};
  const amount = t.value != null ? units(t.value, t.decimals ?? x.token.decimals ?? 0) : null;
  const id = t.token_id != null ? h("a", { href: "/token/" + x.token.address_hash + "/instance/" + t.token_id }, "#" + t.token_id) : null;
  if (id && amount != null) return [amount, " of ", id];
  return id || amount || "—";
}

export const tokenCols = [
  ["Token", (t) => tokenLink(t)],
  ["Type", (t) => t.type],
  ["Address", (t) => addr(t.address_hash)],
  ["Holders", (t) => num(t.holders_count), "num"],
  ["Total supply", (t) => t.total_supply == null ? "—" : units(t.total_supply, t.decimals ?? 0), "num"],
];

export const internalCols = [
  ["Tx", (x) => txLink(x.transaction_hash)],
  ["Age", (x) => age(x.timestamp), "age"],
  ["Type", (x) => x.type],
  ["From", (x) => addr(x.from)],
  ["To", (x) => x.to ? addr(x.to) : x.created_contract ? ["create ", addr(x.created_contract)] : "—"],
  ["Value", (x) => coin(x.value), "num"],
  ["Result", (x) => x.success === false ? h("span", { class: "bad" }, x.error || "failed") : h("span", { class: "ok" }, "ok")],
];

export const logCols = [
  ["Tx", (l) => txLink(l.transaction_hash)],
  ["Index", (l) => l.index, "num"],
  ["Address", (l) => addr(l.address)],
  ["Event", (l) => l.decoded ? h("code", {}, l.decoded.method_call) : h("code", {}, short(l.topics[0] || ""))],
];

// withDirection inserts an IN / OUT / SELF column after From: an address
// page's lists, seen from that address.
const withDirection = (cols, self, fromOf, toOf) => {
  const at = cols.findIndex(([t]) => t === "From") + 1;
  return [...cols.slice(0, at), ["", (x) => direction(fromOf(x), toOf(x), self), "dir"], ...cols.slice(at)];
};
export const addressTxCols = (self) => withDirection(txCols, self, (t) => t.from, (t) => t.to || t.created_contract);
export const addressTransferCols = (self) => withDirection(transferCols, self, (x) => x.from, (x) => x.to);
export const addressInternalCols = (self) => withDirection(internalCols, self, (x) => x.from, (x) => x.to || x.created_contract);

export const listTable = (cols) => (items) => table(cols, items);
