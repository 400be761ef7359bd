// NFT instance: image, metadata (attributes), owner, transfers, holders.
import { api, h, render, titled, fields, num, bothSpellings, tabs, paged, addr, table, units, short, tokenLink } from "../lib.js";
import { transferCols, listTable } from "./lists.js";

export default async function instance([, hash, , id]) {
  const i = await api("/tokens/" + encodeURIComponent(hash) + "/instances/" + id);
  const t = i.token;
  const md = i.metadata && typeof i.metadata === "object" ? i.metadata : null;
  const name = (md && typeof md.name === "string" && md.name) || (t.name || short(t.address_hash)) + " #" + i.id;
  const base = "/tokens/" + t.address_hash + "/instances/" + i.id;
  const multi = t.type === "ERC-1155";
  // What the chain tells of the id whatever its metadata: its transfers and,
  // for ERC-1155 (no single owner), its holders and the supply they hold.
  const [count, held] = await Promise.all([
    api(base + "/transfers-count").catch(() => null),
    multi ? holdersOf(base) : null,
  ]);
  const attrs = md && Array.isArray(md.attributes) ? md.attributes.filter((a) => a && typeof a === "object") : [];
  // render takes nodes: every optional part is a node or nothing (an array
  // or a null handed to it would print as text).
  const parts = [
    h("div", { class: "cols" },
      h("div", { class: "nft" }, i.image_url
        ? h("img", { src: i.image_url, alt: md && md.description ? String(md.description) : "Image of " + name, "data-field": "image" })
        : h("p", { class: "muted", "data-field": "image" }, "No image in the metadata.")),
      h("div", { class: "card" }, fields([
        ["Token", tokenLink(t), "token"],
        ["Token ID", i.id, "token-id"],
        ["Type", t.type, "type"],
        i.owner ? ["Owner", bothSpellings(i.owner.hash, "owner"), "owner"] : null,
        held ? ["Holders", (held.more ? "more than " : "") + num(held.count), "instance-holders"] : null,
        held ? ["Supply", (held.more ? "more than " : "") + units(held.supply, 0), "instance-supply"] : null,
        count ? ["Transfers", num(count.transfers_count), "instance-transfers"] : null,
        md && md.name != null ? ["Name", String(md.name), "name"] : null,
        md && md.description ? ["Description", String(md.description), "description"] : null,
        i.external_app_url ? ["External URL", h("a", { href: i.external_app_url, rel: "noopener nofollow" }, i.external_app_url), "external-url"] : null,
      ]))),
  ];
  if (attrs.length) {
    parts.push(h("h2", {}, "Attributes"),
      h("div", { "data-field": "attributes" }, table([
        ["Trait", (a) => a.trait_type == null ? "—" : String(a.trait_type)],
        ["Value", (a) => a.value == null ? "—" : typeof a.value === "object" ? JSON.stringify(a.value) : String(a.value)],
      ], attrs)));
  }
  parts.push(h("h2", {}, "Metadata"),
    h("pre", { tabindex: "0", "data-field": "metadata" }, md ? JSON.stringify(md, null, 2) : "No metadata (yet)."),
    tabs([
      ["Transfers", () => paged(base + "/transfers", listTable(transferCols), "No transfers.")],
      ["Holders", () => paged(base + "/holders", listTable([["Holder", (x) => addr(x.address)], ["Balance", (x) => units(x.value, 0), "num"]]), "No holders.")],
    ]));
  render(name, ...parts);
  titled(name + " · " + t.address_hash + " #" + i.id);
}

// holdersOf reads the first page of an ERC-1155 id's holders: how many hold
// it and the supply they hold; more says a further page exists.
async function holdersOf(base) {
  const p = await api(base + "/holders").catch(() => null);
  if (!p) return null;
  let supply = 0n;
  for (const x of p.items) supply += BigInt(x.value);
  return { count: p.items.length, supply: supply.toString(), more: !!p.next_page_params };
}
