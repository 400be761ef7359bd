// Search results: an exact match (a block number or hash, a transaction
// hash, an address, a validator operator) opens its page, so a shared
// /search-results?q= link does as the header's box does; anything else
// lists what /api/v2/search found (tokens, verified contracts by name).
// The query stays in the header's box.
import { api, h, render } from "../lib.js";
import { describe, exactTarget } from "../search.js";

export default async function searchResults() {
  const q = (new URLSearchParams(location.search).get("q") || "").trim();
  const target = q ? await exactTarget(q).catch(() => null) : null;
  if (target) return location.replace(target);
  const page = q ? await api("/search?q=" + encodeURIComponent(q)) : { items: [] };
  render("Search results",
    page.items.length
      ? h("ul", { class: "card", id: "search-results" }, page.items.map((it) => { const [label, url] = describe(it); return h("li", {}, h("a", { href: url }, label)); }))
      : h("p", { "data-field": "no-results" }, q ? "Nothing matches “" + q + "”." : "Type a block, transaction, address, token or contract name."));
}
