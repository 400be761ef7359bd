// Token: supply, holders, transfers and (for NFTs) the inventory.
import { api, h, render, titled, fields, num, units, bothSpellings, tabs, paged, addr, short } from "../lib.js";
import { transferCols, listTable } from "./lists.js";

export default async function token([, hash]) {
  const t = await api("/tokens/" + encodeURIComponent(hash));
  const c = await api("/tokens/" + t.address_hash + "/counters");
  const base = "/tokens/" + t.address_hash;
  const nft = t.type === "ERC-721" || t.type === "ERC-1155";
  const holderCols = [
    ["Holder", (x) => addr(x.address)],
    nft && t.type === "ERC-1155" ? ["Token id", (x) => x.token_id == null ? "—" : h("a", { href: "/token/" + t.address_hash + "/instance/" + x.token_id }, "#" + x.token_id)] : null,
    ["Balance", (x) => units(x.value, t.decimals ?? 0), "num"],
    // An ERC-1155 holder holds one id, whose supply is not the token's.
    t.type === "ERC-1155" ? null : ["Share", (x) => share(x.value, t.total_supply), "num"],
  ].filter(Boolean);
  render((t.name || short(t.address_hash)) + (t.symbol ? " (" + t.symbol + ")" : ""),
    h("div", { class: "card" }, fields([
      ["Contract", bothSpellings(t.address_hash, "token"), "address"],
      ["Type", t.type, "type"],
      ["Name", t.name || "—", "name"],
      ["Symbol", t.symbol || "—", "symbol"],
      ["Decimals", t.decimals ?? "—", "decimals"],
      ["Total supply", t.total_supply == null ? "—" : units(t.total_supply, t.decimals ?? 0), "total-supply"],
      ["Holders", num(c.token_holders_count), "holders-count"],
      ["Transfers", num(c.transfers_count), "transfers-count"],
    ])),
    tabs([
      ["Transfers", () => paged(base + "/transfers", listTable(transferCols), "No transfers.")],
      ["Holders", () => paged(base + "/holders", listTable(holderCols), "No holders.")],
      nft ? ["Inventory", () => paged(base + "/instances", (items) => h("div", { class: "grid" }, items.map((i) => instanceCard(t, i))), "No tokens.")] : null,
    ].filter(Boolean)));
  titled((t.name || "Token") + (t.symbol ? " (" + t.symbol + ")" : "") + " " + t.address_hash);
}

function instanceCard(t, i) {
  const name = (i.metadata && i.metadata.name) || "#" + i.id;
  return h("a", { href: "/token/" + t.address_hash + "/instance/" + i.id, class: "card nft", "data-instance": i.id },
    i.image_url ? h("img", { src: i.image_url, alt: "Image of " + name, loading: "lazy", width: 160, height: 160 }) : null,
    h("div", {}, name + (i.metadata && i.metadata.name ? " (#" + i.id + ")" : "")));
}

// share is a holding's part of the supply in percent, exact to four
// places (cut, not rounded: a share never shows more than it is).
function share(value, supply) {
  if (supply == null || BigInt(supply) === 0n) return "—";
  return h("span", { "data-field": "share" }, units((BigInt(value) * 1000000n / BigInt(supply)).toString(), 4) + "%");
}
