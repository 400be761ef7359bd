// Entry point: the server's shell names the page (meta ember-page); its
// module renders into <main> from the /api/v2 JSON.
import { ApiError, h, render } from "./lib.js";
import { searchBox } from "./search.js";
import { connectButton, addNetworkButtons } from "./wallet.js";

const toggle = document.getElementById("theme-toggle");
toggle.addEventListener("click", () => {
  const dark = document.documentElement.dataset.theme
    ? document.documentElement.dataset.theme === "dark"
    : matchMedia("(prefers-color-scheme: dark)").matches;
  const next = dark ? "light" : "dark";
  document.documentElement.dataset.theme = next;
  try { localStorage.setItem("ember-theme", next); } catch (e) { /* not kept */ }
});

// The header's search box (a plain form in the shell) gets suggestions and
// exact-match jumps; on the results page it holds the query.
const headerSearch = document.querySelector("header.top form.search");
if (headerSearch) {
  const q = location.pathname === "/search-results" ? new URLSearchParams(location.search).get("q") || "" : "";
  headerSearch.replaceWith(searchBox(q));
}

// The menu: collapsed behind its button at phone width (style.css).
const menuToggle = document.getElementById("menu-toggle");
menuToggle.addEventListener("click", () => {
  const open = document.querySelector("header.top").classList.toggle("open");
  menuToggle.setAttribute("aria-expanded", String(open));
});

// Wallets: connect (header), add this network (footer).
toggle.before(connectButton());
document.querySelector("footer").append(h("p", {}, addNetworkButtons()));

// Mark the current section in the navigation.
for (const a of document.querySelectorAll("header nav a")) {
  if (a.getAttribute("href") !== "/" && location.pathname.startsWith(a.getAttribute("href"))) a.setAttribute("aria-current", "page");
}

export function notFound(what) {
  render("Not found",
    h("p", { "data-field": "not-found" }, what || "There is no page at " + location.pathname + "."),
    h("p", {}, "Try the search box above."));
}

// The connection banner: a heartbeat asks /api/health; while it (or a
// JSON-RPC call, which fires "ember:unreachable") gets no answer the page
// says so, and it keeps asking until the explorer answers again. Any HTTP
// answer counts: the banner is about reaching the explorer, not the
// index's health.
const banner = h("div", { id: "connection", role: "alert", class: "card error" }, "Disconnected — retrying…");
// Styled through the CSSOM: the pages' CSP allows no inline style text.
Object.assign(banner.style, { position: "sticky", top: "0", zIndex: "10", margin: "0", textAlign: "center", fontWeight: "bold", display: "none" });
const showBanner = (on) => { banner.style.display = on ? "block" : "none"; };
document.body.prepend(banner);
let onReconnect = null; // what to do when the explorer answers again
const HEARTBEAT_MS = 3000, RETRY_MS = 1500;
let timer = null;
async function heartbeat() {
  clearTimeout(timer);
  let up = true;
  try {
    await fetch("/api/health", { cache: "no-store", signal: AbortSignal.timeout(4000) });
  } catch (e) { up = false; }
  showBanner(!up);
  if (up && onReconnect) { const f = onReconnect; onReconnect = null; f(); }
  timer = setTimeout(heartbeat, up ? HEARTBEAT_MS : RETRY_MS);
}
addEventListener("ember:unreachable", () => { showBanner(true); heartbeat(); });
timer = setTimeout(heartbeat, HEARTBEAT_MS);

// A fetch that never reached the explorer throws a TypeError ("Failed to
// fetch"); API answers throw ApiError.
const unreachable = (e) => e instanceof TypeError && !(e instanceof ApiError);

const name = document.querySelector('meta[name="ember-page"]').content;
const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);

(async () => {
  if (name === "not-found") return notFound();
  try {
    const mod = await import("./pages/" + name + ".js");
    await mod.default(parts);
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 422)) return notFound("No such " + name + " on this chain: " + (parts[1] || "") + ".");
    if (unreachable(e)) {
      // The page could not load: say so, and load it when the explorer is back.
      render("Disconnected", h("p", { class: "error", "data-field": "disconnected" }, "The explorer is not answering; this page loads again when it does."));
      onReconnect = () => location.reload();
      showBanner(true);
      heartbeat();
      return;
    }
    render("Something went wrong", h("p", { class: "error" }, String(e.message || e)));
    throw e;
  }
})();
