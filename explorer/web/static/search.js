// The search box in every page's header: suggestions from /api/v2/search
// as one types (arrow keys and Enter pick one); Enter without a pick goes
// straight to an exact match (a block, a transaction, an address or a
// validator operator, by /api/v2/search/check-redirect), else to the
// search results.
import { api, h, short } from "./lib.js";

// exactTarget is the page an exact match of q opens, null when q is no
// exact match.
export async function exactTarget(q) {
  const r = await api("/search/check-redirect?q=" + encodeURIComponent(q));
  if (!r.redirect) return null;
  if (r.type === "block") return "/block/" + (/^[1-9][0-9]*$|^0$/.test(q) ? q : r.parameter);
  if (r.type === "transaction") return "/tx/" + r.parameter;
  return "/address/" + r.parameter;
}

// describe turns a search item into [label, url].
export function describe(it) {
  switch (it.type) {
    case "block": return ["Block " + it.block_number, "/block/" + it.block_number];
    case "transaction": return ["Transaction " + it.transaction_hash, "/tx/" + it.transaction_hash];
    case "token": return ["Token " + (it.name || "") + (it.symbol ? " (" + it.symbol + ")" : "") + " " + short(it.address_hash), "/token/" + it.address_hash];
    case "contract": return ["Contract " + (it.name ? it.name + " " : "") + it.address_hash, "/address/" + it.address_hash];
    default: return ["Address " + (it.address_hash || it.address), "/address/" + (it.address_hash || it.address)];
  }
}

export function searchBox(value = "") {
  const list = h("ul", { id: "search-suggestions", role: "listbox", "aria-label": "Suggestions", hidden: true });
  const input = h("input", {
    type: "search", name: "q", value, autocomplete: "off", role: "combobox", "aria-expanded": "false",
    "aria-controls": "search-suggestions", "aria-autocomplete": "list",
    "aria-label": "Search by block number or hash, transaction hash, address (0x or bech32), token name or symbol",
    placeholder: "Block, transaction, address (0x… or ember1…), token name or symbol",
  });
  let items = [], active = -1, seq = 0, timer = 0;
  const close = () => { list.hidden = true; input.setAttribute("aria-expanded", "false"); active = -1; input.removeAttribute("aria-activedescendant"); };
  const mark = () => [...list.children].forEach((li, i) => {
    li.setAttribute("aria-selected", String(i === active));
    if (i === active) input.setAttribute("aria-activedescendant", li.id);
  });
  async function suggest() {
    const q = input.value.trim(), mine = ++seq;
    if (!q) return close();
    let page;
    try { page = await api("/search?q=" + encodeURIComponent(q)); } catch (e) { return close(); }
    if (mine !== seq) return; // a newer query is on its way
    items = page.items.slice(0, 8).map(describe);
    list.replaceChildren(...items.map(([label, url], i) =>
      h("li", { id: "suggestion-" + i, role: "option", "aria-selected": "false", onmousedown: (e) => { e.preventDefault(); location.href = url; } }, label)));
    if (!items.length) return close();
    list.hidden = false; input.setAttribute("aria-expanded", "true"); active = -1;
  }
  input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(suggest, 150); });
  input.addEventListener("blur", () => setTimeout(close, 100));
  input.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown" && items.length) { e.preventDefault(); active = (active + 1) % items.length; mark(); }
    else if (e.key === "ArrowUp" && items.length) { e.preventDefault(); active = (active - 1 + items.length) % items.length; mark(); }
    else if (e.key === "Escape") close();
    else if (e.key === "Enter" && active >= 0 && !list.hidden) { e.preventDefault(); location.href = items[active][1]; }
    // Enter without a pick submits (the submit handler jumps to an exact
    // match), whether or not the key also sends the character that makes
    // a browser submit a form on its own.
    else if (e.key === "Enter") { e.preventDefault(); form.requestSubmit(); }
  });
  const form = h("form", { class: "search", role: "search", action: "/search-results", method: "get" }, input, list);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const q = input.value.trim();
    if (!q) return;
    let target = null;
    try { target = await exactTarget(q); } catch (err) { /* the results page says what it can */ }
    location.href = target || "/search-results?q=" + encodeURIComponent(q);
  });
  return form;
}
