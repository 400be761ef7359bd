// NFT instance: image, metadata (attributes), owner, transfers, holders.
import { api, h, render, fields, bothSpellings, tabs, paged, addr, table, units, short, tokenLink } from "../lib.js";
import { transferCols, listTable } from "./lists.js";

export default async function instance([, hash, , id]) {
  const i = await api("/tokens/" + encodeURIComponent(hash) + "/instances/" + id);
  const t = i.token;
  const md = i.metadata || null;
  const name = (md && md.name) || (t.name || short(t.address_hash)) + " #" + i.id;
  const base = "/tokens/" + t.address_hash + "/instances/" + i.id;
  render(name,
    h("div", { class: "cols" },
      h("div", { class: "nft" }, i.image_url
        ? h("img", { src: i.image_url, alt: md && md.description ? md.description : "Image of " + name, "data-field": "image" })
        : h("p", { class: "muted", "data-field": "image" }, "No image in the metadata.")),
      h("div", { class: "card" }, fields([
        ["Token", tokenLink(t), "token"],
        ["Token id", i.id, "token-id"],
        ["Type", t.type, "type"],
        i.owner ? ["Owner", bothSpellings(i.owner.hash, "owner"), "owner"] : null,
        md && md.description ? ["Description", md.description, "description"] : null,
        i.external_app_url ? ["External URL", h("a", { href: i.external_app_url, rel: "noopener nofollow" }, i.external_app_url)] : null,
      ]))),
    md && Array.isArray(md.attributes) && md.attributes.length
      ? [h("h2", {}, "Attributes"), table([["Trait", (a) => a.trait_type ?? "—"], ["Value", (a) => String(a.value)]], md.attributes)] : null,
    h("h2", {}, "Metadata"),
    h("pre", { tabindex: "0", "data-field": "metadata" }, md ? JSON.stringify(md, null, 2) : "No metadata (yet)."),
    tabs([
      ["Transfers", () => paged(base + "/transfers", listTable(transferCols), "No transfers.")],
      ["Holders", () => paged(base + "/holders", listTable([["Holder", (x) => addr(x.address)], ["Balance", (x) => units(x.value, 0), "num"]]), "No holders.")],
    ]));
}
