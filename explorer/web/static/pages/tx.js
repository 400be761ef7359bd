// Transaction: status and revert reason, block and confirmations, both
// spellings of from/to, value, fee, gas, nonce, type, decoded input, the
// summary, and tabs for logs, token transfers, the internal call tree,
// state changes and the raw trace.
import { api, h, render, titled, hashText, age, fields, num, group, coin, gwei, time, bothSpellings, blockLink, status, addr, namedAddr, verifiedBadge, tabs, paged, table, units, short, tokenLink } from "../lib.js";
import { listTable } from "./lists.js";

export default async function tx([, hash]) {
  const t = await api("/transactions/" + hash);
  if (t.native) return nativeTx(t);
  const summary = await api("/transactions/" + hash + "/summary").catch(() => null);
  const input = t.decoded_input ? decodedCall(t.decoded_input, "method-call")
    : t.method ? h("code", { "data-field": "method-call" }, t.method) : null;
  // revert_reason: the error decoded (Error, Panic or the contract's own),
  // or {raw} data no verified ABI declares.
  const revert = t.revert_reason;
  render("Transaction",
    h("p", {}, hashText(t.hash, "hash", "transaction hash")),
    // render takes nodes only: a null would print as text.
    summary && summary.data && summary.data.summaries.length
      ? h("ul", { class: "card", "data-field": "summary" }, summary.data.summaries.map((s) => h("li", {}, sentence(s))))
      : h("span", { hidden: true }),
    h("div", { class: "card" }, fields([
      ["Status", [status(t), t.status === "error" ? h("span", { "data-field": "revert-reason" }, " ", revertText(t)) : null]],
      revert && revert.method_call ? ["Revert reason", decodedCall(revert, "revert-call"), "revert-decoded"] : null,
      revert && revert.raw ? ["Revert data", h("span", { class: "mono hash", "data-field": "revert-raw" }, revert.raw), "revert-raw"] : null,
      ["Block", t.block_number == null ? "pending" : blockLink(t.block_number), "block"],
      ["Confirmations", num(t.confirmations), "confirmations"],
      ["Timestamp", time(t.timestamp), "timestamp"],
      ["From", bothSpellings(t.from.hash, "from"), "from"],
      t.to ? ["To", [contractName(t.to, "to"), bothSpellings(t.to.hash, "to")], "to"] : null,
      t.created_contract ? ["Created contract", [contractName(t.created_contract, "created"), bothSpellings(t.created_contract.hash, "created")], "created"] : null,
      ["Value", coin(t.value), "value"],
      ["Transaction fee", coin(t.fee && t.fee.value), "fee"],
      ["Gas price", gwei(t.gas_price), "gas-price"],
      ["Gas used / limit", num(t.gas_used) + " / " + num(t.gas_limit), "gas"],
      t.max_fee_per_gas != null ? ["Max fee / priority fee", [gwei(t.max_fee_per_gas), " / ", gwei(t.max_priority_fee_per_gas)], "max-fees"] : null,
      ["Burnt fee", coin(t.transaction_burnt_fee), "burnt-fee"],
      ["Nonce", String(t.nonce), "nonce"],
      ["Type", String(t.type) + " (" + (t.transaction_types || []).join(", ") + ")", "type"],
      ["Position in block", t.position == null ? "—" : String(t.position), "position"],
      input ? ["Input", input, "input"] : null,
      ["Raw input", h("details", {}, h("summary", {}, short(t.raw_input) + " (" + (t.raw_input.length - 2) / 2 + " bytes)"), h("pre", {}, t.raw_input))],
    ])),
    tabs([
      ["Logs", () => paged("/transactions/" + hash + "/logs", (items) => h("div", {}, items.map(logCard)), "No logs.")],
      ["Token transfers", () => paged("/transactions/" + hash + "/token-transfers", listTable(txTransferCols), "No token transfers.")],
      ["Internal transactions", () => callTree(hash)],
      ["State changes", () => paged("/transactions/" + hash + "/state-changes", listTable(stateCols), "No state changes.")],
      ["Raw trace", () => rawTrace(hash)],
    ]));
  titled("Transaction " + t.hash);
}

// nativeTx shows a native (Cosmos) transaction: its result, fee and gas,
// and each message with its amounts to the wei.
function nativeTx(t) {
  const n = t.native;
  render("Native transaction",
    h("p", {}, hashText(t.hash, "hash", "transaction hash")),
    h("div", { class: "card" }, fields([
      ["Status", [status(t), t.status === "error" ? h("span", { "data-field": "native-log" }, " ", n.log, " (", n.codespace, " code ", String(n.code), ")") : null]],
      ["Block", blockLink(t.block_number), "block"],
      ["Confirmations", num(t.confirmations), "confirmations"],
      ["Timestamp", time(t.timestamp), "timestamp"],
      ["Signer", bothSpellings(t.from.hash, "from"), "from"],
      ["Messages", h("span", { "data-field": "method" }, t.method), null],
      ["Value", coin(t.value), "value"],
      ["Transaction fee", coin(t.fee && t.fee.value), "fee"],
      ["Burnt fee", coin(t.transaction_burnt_fee), "burnt-fee"],
      ["Gas used / wanted", num(t.gas_used) + " / " + num(n.gas_wanted), "gas"],
      ["Sequence (nonce)", String(t.nonce), "nonce"],
      ["Position in block", String(t.position), "position"],
      n.memo ? ["Memo", n.memo, "memo"] : null,
    ])),
    h("h2", {}, "Messages"),
    h("div", { "data-field": "messages" }, n.messages.map(nativeMsg)));
  titled("Native transaction " + t.hash);
}

function nativeMsg(m, i) {
  return h("div", { class: "card method", "data-msg": String(i) }, fields([
    ["Type", h("code", { "data-field": "msg-type" }, m.type)],
    m.to ? ["To", bothSpellings(m.to.hash, "msg-to"), "msg-to"] : null,
    m.validator ? ["Validator", [h("span", { class: "mono hash", "data-field": "msg-operator" }, m.validator_operator), h("br"), addr(m.validator, { full: true })], "msg-validator"] : null,
    m.amount != null ? ["Amount", coin(m.amount), "msg-amount"] : null,
    m.moniker != null ? ["Moniker", m.moniker, "msg-moniker"] : null,
  ]));
}

// contractName is a verified contract's name and badge above its address.
function contractName(a, field) {
  if (!a.is_verified || !a.name) return null;
  return h("div", {}, verifiedBadge(), h("a", { href: "/address/" + a.hash, "data-field": field + "-name" }, a.name));
}

// revertText is a failure's reason: the API's result (the decoded error's
// text, else the EVM's error).
function revertText(t) {
  return t.revert_reason && t.revert_reason.method_call ? "reverted: " + t.result : t.result;
}

// decodedCall shows a DecodedInput: the signature and its arguments.
function decodedCall(d, field) {
  return h("div", {}, h("code", { "data-field": field }, d.method_call),
    table([["Name", (p) => p.name], ["Type", (p) => p.type], ["Value", argValue]], d.parameters));
}

// argValue shows a decoded argument; an address links to its page, named
// when it is a verified contract.
function argValue(p) {
  if (p.type === "address" && /^0x[0-9a-fA-F]{40}$/.test(p.value)) return h("span", { "data-arg": p.name }, namedAddr(p.value));
  return h("span", { class: "mono hash", "data-arg": p.name }, JSON.stringify(p.value).replace(/^"|"$/g, ""));
}

// sentence renders a summary template with its variables.
function sentence(s) {
  const out = h("span", {});
  for (const part of s.summary_template.split(/(\{[a-z_]+\})/)) {
    const m = part.match(/^\{([a-z_]+)\}$/);
    if (!m) { out.append(part); continue; }
    const v = s.summary_template_variables[m[1]];
    if (!v) continue;
    if (v.type === "address") out.append(addr(v.value));
    else if (v.type === "token") out.append(h("a", { href: "/token/" + v.value.address_hash }, v.value.symbol || v.value.name || short(v.value.address_hash)));
    else if (v.type === "currency") { // a decimal already in whole units: grouped as units() groups amounts elsewhere
      const [whole, frac] = String(v.value).split(".");
      out.append(group(whole) + (frac ? "." + frac : ""));
    }
    else out.append(String(v.value));
  }
  out.append(". ");
  return out;
}

function logCard(l) {
  return h("div", { class: "method" },
    h("div", {}, "#" + l.index, " ", addr(l.address)),
    l.decoded ? h("div", {}, h("code", {}, l.decoded.method_call),
      table([["Name", (p) => p.name], ["Type", (p) => p.type], ["Indexed", (p) => p.indexed ? "yes" : "no"], ["Value", argValue]], l.decoded.parameters)) : null,
    h("details", {}, h("summary", {}, "Topics and data"), h("pre", {}, l.topics.filter(Boolean).map((t, i) => "topic" + i + ": " + t + "\n").join("") + "data: " + l.data)));
}

// txTransferCols are the tx page's token transfers: an ERC-721 transfer
// moves one token, named by its id (no amount); ERC-20 and ERC-1155 ones
// move an amount (of an id, for ERC-1155).
const txTransferCols = [
  ["Type", (x) => x.type.replace("token_", "")],
  ["From", (x) => addr(x.from)],
  ["To", (x) => addr(x.to)],
  ["Token", (x) => [tokenLink(x.token), " ", h("span", { class: "badge" }, x.token_type || x.token.type)]],
  ["Token ID", (x) => {
    const id = x.total && x.total.token_id;
    return id == null ? "—" : h("a", { href: "/token/" + x.token.address_hash + "/instance/" + id, "data-field": "transfer-token-id" }, "#" + id);
  }, "token-id"],
  ["Amount", (x) => {
    if ((x.token_type || x.token.type) === "ERC-721" || !x.total || x.total.value == null) return "—";
    return h("span", { "data-field": "transfer-amount" }, units(x.total.value, x.total.decimals ?? x.token.decimals ?? 0));
  }, "num"],
];

const stateCols = [
  ["Address", (c) => addr(c.address)],
  ["Kind", (c) => c.type === "coin" ? "EMBER" : (c.token && (c.token.symbol || c.token.name)) || "token"],
  ["Before", (c) => c.balance_before == null ? "—" : stateAmount(c, c.balance_before), "num"],
  ["After", (c) => c.balance_after == null ? "—" : stateAmount(c, c.balance_after), "num"],
  ["Change", (c) => Array.isArray(c.change) ? c.change.map((x) => x.direction + " #" + x.total.token_id).join(", ") : stateAmount(c, c.change), "num"],
];

// stateAmount is a state change's amount: coins in EMBER (wei on hover),
// tokens in the token's units.
function stateAmount(c, v) {
  return c.type === "coin" ? coin(v) : units(v, (c.token && c.token.decimals) || 0);
}

// callTree nests the raw trace's frames by their traceAddress.
async function callTree(hash) {
  const frames = await api("/transactions/" + hash + "/raw-trace");
  if (!frames.length) return h("p", { class: "muted" }, "No trace (the source cannot re-execute this transaction).");
  const root = h("ul", { class: "tree", id: "call-tree", "aria-label": "Call tree" });
  const lists = new Map([["", root]]);
  for (const f of frames) {
    const a = f.action, key = f.traceAddress.join(".");
    const parent = lists.get(f.traceAddress.slice(0, -1).join(".")) || root;
    const kind = f.type === "call" ? a.callType : f.type === "create" ? a.creationMethod || "create" : "selfdestruct";
    const to = f.type === "create" ? (f.result && f.result.address) : f.type === "selfdestruct" ? a.refundAddress : a.to;
    const value = a.value || a.balance;
    const li = h("li", { "data-depth": f.traceAddress.length },
      h("code", {}, kind), " ", namedAddr(a.from || a.address), " → ", to ? namedAddr(to) : "—",
      value && BigInt(value) > 0n ? [" ", coin(BigInt(value).toString())] : "",
      f.error ? h("span", { class: "bad" }, " ✗ " + f.error) : "");
    const sub = h("ul", { class: "tree" });
    li.append(sub);
    lists.set(key, sub);
    parent.append(li);
  }
  return root;
}

async function rawTrace(hash) {
  const frames = await api("/transactions/" + hash + "/raw-trace");
  return h("pre", { tabindex: "0", "aria-label": "Raw trace (JSON)" }, JSON.stringify(frames, null, 2));
}
