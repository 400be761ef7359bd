// Shared helpers of the pages: element building, API calls, formatting,
// address spellings, tables, tabs and paging.

export const prefix = document.querySelector('meta[name="ember-prefix"]').content;
export const COIN = "EMBER"; // the native coin's symbol (18 decimals)

// h builds an element: h("a", {href: "/"}, "text", child…). Attributes
// starting with "on" are listeners; null/undefined/false children are
// skipped; strings become text nodes (never HTML).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

// ApiError is a non-2xx answer of the API; status 404 shows the not-found page.
export class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

// api GETs /api/v2 + path and returns the decoded JSON.
export async function api(path, opts) {
  const res = await fetch("/api/v2" + path, Object.assign({ headers: { accept: "application/json" } }, opts));
  let body = null;
  try { body = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok) throw new ApiError(res.status, (body && body.message) || res.statusText);
  return body;
}

// ---- numbers ----

// units writes an integer string of base units (wei) as an exact decimal
// with `decimals` places, trailing zeros dropped, thousands grouped.
export function units(v, decimals = 18) {
  if (v == null) return "—";
  let s = BigInt(v).toString();
  const neg = s.startsWith("-");
  if (neg) s = s.slice(1);
  decimals = Number(decimals) || 0;
  s = s.padStart(decimals + 1, "0");
  const whole = s.slice(0, s.length - decimals), frac = s.slice(s.length - decimals).replace(/0+$/, "");
  return (neg ? "-" : "") + group(whole) + (frac ? "." + frac : "");
}

// decRaw is an SDK decimal string ("12.500000000000000000") as the
// integer of its digits and the number of places.
function decRaw(d) {
  const [whole, frac = ""] = String(d).split(".");
  return [BigInt(whole + frac).toString(), frac.length];
}

// decCoin writes a decimal amount of base units (a pending reward) in
// coins as a withdrawal would pay it: cut to whole base units, as the
// chain pays rewards (the fraction stays behind, for the community pool).
export const decCoin = (d) => { if (d == null) return "—"; const [raw, places] = decRaw(d); return coin((BigInt(raw) / 10n ** BigInt(places)).toString()); };

// pct writes a decimal fraction (a rate, a share) as an exact percentage.
export const pct = (d) => { if (d == null) return "—"; const [raw, places] = decRaw(d); return units(raw, places - 2) + "%"; };

// coin shows wei in coins (EMBER), exactly; the wei amount is its hover
// title and data-wei (Etherscan's "value in wei" detail).
export const coin = (wei) => wei == null ? "—" : amount(units(wei) + " " + COIN, wei);
const amount = (text, wei) => h("span", { class: "amount", title: group(BigInt(wei).toString()) + " wei", "data-wei": BigInt(wei).toString() }, text);
export const group = (s) => String(s).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
export const num = (v) => v == null ? "—" : group(v);

// gwei writes wei as Gwei, exactly.
export const gwei = (wei) => wei == null ? "—" : amount(units(wei, 9) + " Gwei", wei);

// ago is how long ago an ISO time was, as "12 s ago", "3 min ago",
// "5 h ago", "2 d ago"; a time more than a few seconds ahead (a voting
// period's end) is "in 4 min". Block times a second or two ahead of the
// browser's clock still read "0 s ago".
export function ago(iso) {
  if (!iso) return "";
  const d = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (d < -5) return "in " + span(-d);
  return span(Math.max(0, d)) + " ago";
}

function span(s) {
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min";
  if (s < 86400) return Math.floor(s / 3600) + " h";
  return Math.floor(s / 86400) + " d";
}

// age is an age cell: "12 s ago", the exact timestamp (the API's) in its
// title; every age on the page is kept current.
export const age = (iso) => iso ? h("time", { datetime: iso, title: iso, "data-age": "" }, ago(iso)) : "—";
setInterval(() => {
  for (const t of document.querySelectorAll("time[data-age]")) t.textContent = ago(t.getAttribute("datetime"));
}, 5000);

export const time = (iso) => iso ? h("time", { datetime: iso, title: iso }, new Date(iso).toLocaleString() + " (" + ago(iso) + ")") : "—";

export const short = (s) => !s ? "" : s.length > 18 ? s.slice(0, 10) + "…" + s.slice(-6) : s;

// ---- bech32 (BIP-173), for the ember1… spelling of addresses ----

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
function polymod(values) {
  const G = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const b = chk >> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((b >> i) & 1) chk ^= G[i];
  }
  return chk;
}
const hrpExpand = (hrp) => [...hrp].map((c) => c.charCodeAt(0) >> 5).concat([0], [...hrp].map((c) => c.charCodeAt(0) & 31));

// bech32 spells a 0x address with hrp (default: the chain's account prefix).
export function bech32(hex, hrp = prefix) {
  const bytes = hex.slice(2).match(/../g).map((b) => parseInt(b, 16));
  const data = [];
  let acc = 0, bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b; bits += 8;
    while (bits >= 5) { bits -= 5; data.push((acc >> bits) & 31); }
  }
  if (bits > 0) data.push((acc << (5 - bits)) & 31);
  const mod = polymod(hrpExpand(hrp).concat(data, [0, 0, 0, 0, 0, 0])) ^ 1;
  const chk = [0, 1, 2, 3, 4, 5].map((i) => (mod >> (5 * (5 - i))) & 31);
  return hrp + "1" + data.concat(chk).map((d) => CHARSET[d]).join("");
}

// bech32Decode returns the 0x spelling of an hrp1… address, or null.
export function bech32Decode(s, hrp = prefix) {
  s = s.toLowerCase();
  const sep = s.lastIndexOf("1");
  if (s.slice(0, sep) !== hrp) return null;
  const data = [...s.slice(sep + 1)].map((c) => CHARSET.indexOf(c));
  if (data.length < 7 || data.includes(-1) || polymod(hrpExpand(hrp).concat(data)) !== 1) return null;
  let acc = 0, bits = 0;
  const out = [];
  for (const v of data.slice(0, -6)) {
    acc = (acc << 5) | v; bits += 5;
    while (bits >= 8) { bits -= 8; out.push((acc >> bits) & 255); }
  }
  if (out.length !== 20) return null;
  return "0x" + out.map((b) => b.toString(16).padStart(2, "0")).join("");
}

// rpc calls the node's JSON-RPC through the explorer's own POST
// /api/eth-rpc: the node's JSON-RPC URL (/config/json-rpc-url) is often a
// loopback address a browser on another machine cannot reach. The proxy
// forwards eth_call, eth_estimateGas, eth_chainId and eth_blockNumber.
// A network failure fires "ember:unreachable" on window (app.js shows its
// banner) and throws a readable error instead of the browser's own.
export async function rpc(method, params) {
  let res;
  try {
    res = await fetch("/api/eth-rpc", {
      method: "POST", headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
  } catch (e) {
    window.dispatchEvent(new Event("ember:unreachable"));
    throw new Error("the explorer is not answering (disconnected); try again when it is back");
  }
  let body = null;
  try { body = await res.json(); } catch (e) { /* not JSON */ }
  if (body && body.error) { const e = new Error(body.error.message); e.code = body.error.code; e.data = body.error.data; throw e; }
  if (!res.ok || !body) throw new Error("JSON-RPC: HTTP " + res.status + " " + res.statusText);
  return body.result;
}

// ---- links and small widgets ----

// copyButton copies text. The compact one (beside hashes in lists and
// headers) draws its icon in CSS, so it adds no text to what it sits in
// (a cell's or a field's text stays the hash).
export function copyButton(text, what, compact) {
  const label = compact ? "" : "Copy";
  return h("button", {
    type: "button", class: compact ? "copy icon" : "copy", "aria-label": "Copy " + what, title: "Copy " + what, "data-copy": text,
    onclick: async (e) => {
      e.preventDefault();
      const b = e.currentTarget;
      let ok = true;
      try { await navigator.clipboard.writeText(text); } catch (err) { ok = false; }
      if (compact) b.dataset.copied = ok ? "yes" : "no"; else b.textContent = ok ? "Copied" : "Copy failed";
      setTimeout(() => { if (compact) delete b.dataset.copied; else b.textContent = label; }, 1500);
    },
  }, label);
}

// withCopy is a hash's link (or text) and its copy button, kept together.
const withCopy = (el, text, what) => h("span", { class: "hash-copy" }, el, copyButton(text, what, true));

// addr links an address param ({hash, name, is_contract, is_verified}) or
// a hash string; a verified contract is named and badged.
export function addr(a, opts = {}) {
  if (!a) return "—";
  const hash = typeof a === "string" ? a : a.hash;
  const label = (typeof a === "object" && a.name) ? a.name + " (" + short(hash) + ")" : (opts.full ? hash : short(hash));
  const link = withCopy(h("a", { href: "/address/" + hash, class: "mono hash", title: hash, "data-address": hash }, label), hash, "address");
  if (typeof a === "object" && a.is_verified) link.prepend(verifiedBadge());
  return link;
}

// verifiedBadge marks a verified contract.
export const verifiedBadge = () => h("span", { class: "badge ok verified", title: "Verified contract", "aria-label": "Verified contract", "data-verified": "" }, "✓");

// namedAddr is addr(hash) for an address known by its hash only (a call
// frame's, a decoded argument's): the search's answer names it when it is
// a verified contract, once per page load.
const names = new Map();
export function namedAddr(hash) {
  const box = h("span", { class: "named-addr" }, addr(hash));
  const key = hash.toLowerCase();
  if (!names.has(key)) names.set(key, api("/search?q=" + hash).then((r) => (r.items || []).find((i) => i.is_smart_contract_verified && i.name) || null, () => null));
  names.get(key).then((hit) => { if (hit) box.replaceChildren(addr({ hash, name: hit.name, is_verified: true })); });
  return box;
}

// direction is an address list's IN / OUT / SELF badge of a row, seen
// from self.
export function direction(from, to, self) {
  const lc = (a) => (a && (a.hash || a) || "").toLowerCase(), me = self.toLowerCase();
  const out = lc(from) === me, inn = lc(to) === me;
  const word = out && inn ? "SELF" : out ? "OUT" : inn ? "IN" : "";
  return word ? h("span", { class: "badge dir " + word.toLowerCase(), "data-direction": word }, word) : "";
}

// bothSpellings shows an address as 0x and as bech32, each with a copy button.
export function bothSpellings(hash, field) {
  const b = bech32(hash);
  return h("span", {},
    h("a", { href: "/address/" + hash, class: "mono hash", "data-field": field + "-hex" }, hash), copyButton(hash, field + " (0x)"),
    h("br"),
    h("a", { href: "/address/" + b, class: "mono hash", "data-field": field + "-bech32" }, b), copyButton(b, field + " (" + prefix + "1…)"));
}

export const txLink = (hash, full) => withCopy(h("a", { href: "/tx/" + hash, class: "mono hash", title: hash }, full ? hash : short(hash)), hash, "transaction hash");

// hashText shows a page's own hash in full with its copy button.
export const hashText = (hash, field, what) => withCopy(h("span", { class: "mono hash", "data-field": field }, hash), hash, what);

// titled names the page in the browser's title bar and history (the hash
// of a transaction, block or address in full, so tabs and bookmarks tell
// them apart).
export const titled = (t) => { document.title = t + " · Ember"; };
export const blockLink = (n) => n == null ? "—" : h("a", { href: "/block/" + n }, String(n));
export const tokenLink = (t) => h("a", { href: "/token/" + t.address_hash }, (t.name || short(t.address_hash)) + (t.symbol ? " (" + t.symbol + ")" : ""));

export function status(tx) {
  if (tx.status === "ok") return h("span", { class: "badge ok", "data-field": "status" }, "Success");
  if (tx.status === "error") return h("span", { class: "badge bad", "data-field": "status" }, "Failed");
  return h("span", { class: "badge", "data-field": "status" }, "Pending");
}

// fields renders a definition list of [label, value, key] rows; key names
// the value's data-field (what tests and scripts read).
export function fields(rows) {
  return h("dl", { class: "fields" }, rows.filter(Boolean).map(([k, v, key]) => [h("dt", {}, k), h("dd", key ? { "data-field": key } : {}, v)]));
}

// table renders rows under headers; cols are [header, item => cell, class].
export function table(cols, items, caption) {
  return h("div", { class: "table-wrap" }, h("table", {},
    caption ? h("caption", { class: "muted" }, caption) : null,
    h("thead", {}, h("tr", {}, cols.map(([t, , c]) => h("th", { scope: "col", class: c }, t)))),
    h("tbody", {}, items.map((it) => h("tr", {}, cols.map(([, f, c]) => h("td", { class: c }, f(it))))))));
}

// paged shows a list endpoint a page at a time with Previous, Next and
// First (keyset next_page_params). The pages visited are in the URL (query
// parameter key, by default the list's last path segment: "transactions",
// "holders"…, distinct among a page's lists): the JSON array of the
// cursors that led to the shown page, so Back and Forward step through the
// pages, and a shared link opens the same page with a working Previous.
// render turns items into an element.
export function paged(path, render, empty = "Nothing here yet.", key = path.split("?")[0].split("/").pop()) {
  const box = h("div", { class: "paged", "data-list": key });
  const readStack = () => {
    try {
      const v = JSON.parse(new URLSearchParams(location.search).get(key) || "[]");
      return Array.isArray(v) && v.every((c) => c && typeof c === "object") ? v : [];
    } catch (e) { return []; }
  };
  const urlFor = (stack) => {
    const u = new URL(location.href);
    if (stack.length) u.searchParams.set(key, JSON.stringify(stack)); else u.searchParams.delete(key);
    return u.pathname + u.search + u.hash;
  };
  let shown = null; // the stack on screen, as its URL text
  const load = async (stack) => {
    shown = JSON.stringify(stack);
    box.setAttribute("aria-busy", "true");
    const params = stack[stack.length - 1];
    const q = params ? (path.includes("?") ? "&" : "?") + new URLSearchParams(params) : "";
    let page;
    try { page = await api(path + q); } catch (e) { box.replaceChildren(h("p", { class: "error" }, e.message)); return; }
    const items = Array.isArray(page) ? page : page.items;
    const link = (label, to, rel) => h("a", {
      href: urlFor(to), class: "button", rel, "data-page-link": label,
      onclick: (e) => { if (e.ctrlKey || e.metaKey || e.shiftKey) return; e.preventDefault(); history.pushState(null, "", urlFor(to)); load(to); },
    }, label);
    const next = page && page.next_page_params;
    box.replaceChildren(items.length ? render(items) : h("p", { class: "muted" }, empty),
      h("nav", { class: "pager", "aria-label": "Pages" },
        stack.length > 1 ? link("First", [], null) : null,
        stack.length ? link("Previous", stack.slice(0, -1), "prev") : null,
        h("span", { class: "muted", "data-field": "page-number" }, "Page " + (stack.length + 1)),
        next ? link("Next", stack.concat([next]), "next") : null));
    box.removeAttribute("aria-busy");
  };
  // Back and Forward: each list shows its page of the URL now.
  addEventListener("popstate", () => {
    if (!box.isConnected) return;
    const stack = readStack();
    if (JSON.stringify(stack) !== shown) load(stack);
  });
  load(readStack());
  return box;
}

// tabs builds an accessible tab list (arrow keys move between tabs) of
// [name, build, count]; each tab's content is built on first show; a
// count (how many items it lists) shows beside its name. The URL's #hash keeps the tab.
export function tabs(list) {
  const bar = h("div", { role: "tablist", class: "tabs" });
  const panels = h("div");
  const built = new Map();
  const buttons = list.map(([name, build, count], i) => {
    const id = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
    const b = h("button", { type: "button", role: "tab", id: "tab-" + id, "aria-controls": "panel-" + id, "aria-selected": "false", tabindex: "-1" }, name,
      count == null ? null : h("span", { class: "count", "data-count": id }, num(count)));
    b.addEventListener("click", () => show(i));
    b.addEventListener("keydown", (e) => {
      const d = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
      if (d) { e.preventDefault(); const j = (i + d + list.length) % list.length; show(j); buttons[j].focus(); }
    });
    return b;
  });
  function show(i) {
    buttons.forEach((b, j) => { b.setAttribute("aria-selected", String(i === j)); b.tabIndex = i === j ? 0 : -1; });
    const id = buttons[i].id.slice(4);
    if (!built.has(i)) {
      const panel = h("div", { role: "tabpanel", id: "panel-" + id, "aria-labelledby": "tab-" + id, tabindex: "0" });
      const content = list[i][1]();
      if (content instanceof Promise) {
        // An async builder: a placeholder until its answer.
        panel.append(h("p", { class: "muted", role: "status" }, "Loading…"));
        content.then((el) => panel.replaceChildren(el), (e) => panel.replaceChildren(h("p", { class: "error" }, e.message)));
      } else panel.append(content);
      built.set(i, panel);
    }
    panels.replaceChildren(built.get(i));
    if (history.replaceState) history.replaceState(null, "", "#" + id);
  }
  bar.append(...buttons);
  const want = location.hash.slice(1);
  const start = Math.max(0, buttons.findIndex((b) => b.id === "tab-" + want));
  show(start);
  return h("div", {}, bar, panels);
}

export const mainEl = () => document.getElementById("main");

// render replaces the page's content with title and children, taking
// children as h() does (nested lists flattened, null and false dropped), so a
// page that passes a list or an absent section never prints it as text.
export function render(title, ...children) {
  document.title = title + " · Ember";
  const main = mainEl();
  main.replaceChildren(h("h1", {}, title));
  append(main, children);
}
