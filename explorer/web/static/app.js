// Entry point: the server's shell names the page (meta ember-page); its
// module renders into <main> from the /api/v2 JSON.
import { ApiError, h, render } from "./lib.js";

const toggle = document.getElementById("theme-toggle");
toggle.addEventListener("click", () => {
  const dark = document.documentElement.dataset.theme
    ? document.documentElement.dataset.theme === "dark"
    : matchMedia("(prefers-color-scheme: dark)").matches;
  const next = dark ? "light" : "dark";
  document.documentElement.dataset.theme = next;
  try { localStorage.setItem("ember-theme", next); } catch (e) { /* not kept */ }
});

// Mark the current section in the navigation.
for (const a of document.querySelectorAll("header nav a")) {
  if (a.getAttribute("href") !== "/" && location.pathname.startsWith(a.getAttribute("href"))) a.setAttribute("aria-current", "page");
}

export function notFound(what) {
  render("Not found",
    h("p", { "data-field": "not-found" }, what || "There is no page at " + location.pathname + "."),
    h("p", {}, "Try the search on the ", h("a", { href: "/" }, "home page"), "."));
}

const name = document.querySelector('meta[name="ember-page"]').content;
const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);

(async () => {
  if (name === "not-found") return notFound();
  try {
    const mod = await import("./pages/" + name + ".js");
    await mod.default(parts);
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 422)) return notFound("No such " + name + " on this chain: " + (parts[1] || "") + ".");
    render("Something went wrong", h("p", { class: "error" }, String(e.message || e)));
    throw e;
  }
})();
