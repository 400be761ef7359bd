// Search results: an exact match redirects (a block number, a hash, an
// address); anything else lists what /api/v2/search found.
import { api, h, render } from "../lib.js";
import { searchBox, describe } from "../search.js";

export default async function searchResults() {
  const q = new URLSearchParams(location.search).get("q") || "";
  const page = q.trim() ? await api("/search?q=" + encodeURIComponent(q.trim())) : { items: [] };
  render("Search results", searchBox(q),
    page.items.length
      ? h("ul", { class: "card", id: "search-results" }, page.items.map((it) => { const [label, url] = describe(it); return h("li", {}, h("a", { href: url }, label)); }))
      : h("p", { "data-field": "no-results" }, q.trim() ? "Nothing matches “" + q + "”." : "Type a block, transaction, address or token."));
}
