// The contract tab: verification details, highlighted sources, the ABI,
// read methods (eth_call through the explorer's /api/eth-rpc proxy to the
// node), write methods (through an injected EIP-1193 wallet) and the
// verification form. Address arguments take 0x… or ember1….
import { api, h, fields, num, rpc, prefix, bech32Decode } from "./lib.js";
import { encodeCall, decodeOutputs, parseArg, revertMessage, typeName } from "./abi.js";
import { highlight } from "./highlight.js";
import { connected, connectWallet, onConnect } from "./wallet.js";

async function ethCall(to, data) {
  try {
    return await rpc("eth_call", [{ to, data }, "latest"]);
  } catch (e) {
    const why = revertMessage(e.data);
    throw why ? new Error("reverted: " + why) : e;
  }
}

// hexAddress is an address argument as the ABI wants it: 0x… as typed,
// or the chain's bech32 spelling (ember1…) turned into 0x.
function hexAddress(v) {
  const s = String(v).trim();
  if (!s.toLowerCase().startsWith(prefix + "1")) return s;
  const hex = bech32Decode(s);
  if (!hex) throw new Error("address: " + s + " is not a valid " + prefix + "1… address (bad checksum or length)");
  return hex;
}

// withHexAddresses walks a parsed argument of parameter p and spells its
// addresses (at any depth of arrays and tuples) in 0x.
function withHexAddresses(p, v) {
  if (/\[\d*\]$/.test(p.type)) {
    if (!Array.isArray(v)) return v; // encodeCall reports the bad shape
    const el = Object.assign({}, p, { type: p.type.replace(/\[\d*\]$/, "") });
    return v.map((x) => withHexAddresses(el, x));
  }
  if (p.type === "tuple") return Array.isArray(v) ? v.map((x, i) => (p.components || [])[i] ? withHexAddresses(p.components[i], x) : x) : v;
  return p.type === "address" ? hexAddress(v) : v;
}

// argText is an input's text with its ember1… addresses in 0x: elementary
// types stay text, lists go back to the list syntax parseArg reads.
function argText(p, text) {
  if (p.type === "address") return hexAddress(text);
  if (!/\[\d*\]$/.test(p.type) && p.type !== "tuple") return text;
  return JSON.stringify(withHexAddresses(p, parseArg(p, text)));
}

export async function contractPanel(a) {
  const sc = await api("/smart-contracts/" + a.hash);
  if (!sc.is_verified) {
    return h("div", {},
      h("p", { "data-field": "verified" }, "This contract's source is not verified."),
      verifyForm(a.hash),
      sc.deployed_bytecode ? h("details", {}, h("summary", {}, "Deployed bytecode"), h("pre", {}, sc.deployed_bytecode)) : null);
  }
  const [reads, writes] = await Promise.all([api("/smart-contracts/" + a.hash + "/methods-read"), api("/smart-contracts/" + a.hash + "/methods-write")]);
  const sources = [{ file_path: sc.file_path, source_code: sc.source_code }, ...(sc.additional_sources || [])];
  return h("div", {},
    h("div", { class: "card" }, fields([
      ["Verified", h("span", { class: "badge ok" }, sc.is_fully_verified ? "full match" : "partial match"), "verified"],
      ["Name", sc.name, "contract-name"],
      ["Compiler", sc.compiler_version],
      ["EVM version", sc.evm_version],
      ["Optimization", sc.optimization_enabled ? "on, " + num(sc.optimization_runs) + " runs" : "off"],
      ["License", sc.license_type || "—"],
    ])),
    h("h2", {}, "Read methods"),
    h("div", { id: "read-methods" }, reads.length ? reads.map((m) => methodForm(a.hash, m, true)) : h("p", { class: "muted" }, "None.")),
    h("h2", {}, "Write methods"),
    writeHeader(),
    h("div", { id: "write-methods" }, writes.filter((m) => m.type === "function").map((m) => methodForm(a.hash, m, false))),
    h("h2", {}, "Source code"),
    sources.filter((s) => s.source_code).map((s) => h("section", {}, h("h3", { class: "mono hash" }, s.file_path), highlight(s.source_code))),
    h("h2", {}, "ABI"),
    h("pre", { tabindex: "0", "data-field": "abi" }, JSON.stringify(sc.abi, null, 2)));
}

// writeHeader says who the write methods send from: the connected
// account, or a button connecting the wallet.
function writeHeader() {
  const p = h("p", { class: "muted", "data-field": "write-from" });
  const show = () => {
    const a = connected();
    if (a) return p.replaceChildren("Sent from ", h("span", { class: "mono hash", "data-field": "write-account" }, a), " through your wallet.");
    p.replaceChildren(window.ethereum ? "Sent through your wallet. " : "Connect a browser wallet (EIP-1193) to send these. ",
      h("button", { type: "button", "data-action": "connect", onclick: () => connectWallet().then(show, (e) => p.replaceChildren(h("span", { class: "error" }, e.message))) }, "Connect wallet"));
  };
  show();
  onConnect(show);
  return p;
}

// methodForm is one method with an input per argument and its result.
function methodForm(to, m, read) {
  // Arrays and tuples are typed as lists: [1, 2], [["0x…", 5], …].
  const inputs = (m.inputs || []).map((inp, i) => h("input", {
    name: "arg" + i, "aria-label": (inp.name || "argument " + i) + " (" + typeName(inp) + ")",
    placeholder: (inp.name || "arg" + i) + " " + typeName(inp) + (inp.type === "address" ? " (0x… or " + prefix + "1…)" : "") + (/\]$|^tuple/.test(inp.type) ? " as [a, b, …]" : ""),
  }));
  const result = h("div", { class: "result", "aria-live": "polite", "data-field": "result" });
  const initial = read && !(m.inputs || []).length && (m.outputs || []).some((o) => o.value !== undefined);
  if (initial) result.append(m.outputs.map((o) => String(o.value)).join(", "));
  const payable = m.stateMutability === "payable";
  const valueIn = payable ? h("input", { name: "value", "aria-label": "Value in wei", placeholder: "value (wei)" }) : null;
  const form = h("form", {
    onsubmit: async (e) => {
      e.preventDefault();
      result.textContent = "…";
      try {
        const data = encodeCall(m.method_id, m.inputs || [], inputs.map((el, i) => argText(m.inputs[i], el.value)));
        if (read) {
          const out = await ethCall(to, data);
          result.textContent = decodeOutputs(m.outputs || [], out).join(", ");
        } else {
          const from = connected() || await connectWallet();
          const tx = { from, to, data };
          if (valueIn && valueIn.value) tx.value = "0x" + BigInt(valueIn.value).toString(16);
          const hash = await window.ethereum.request({ method: "eth_sendTransaction", params: [tx] });
          result.replaceChildren("Sent: ", h("a", { href: "/tx/" + hash, class: "mono hash" }, hash));
        }
      } catch (err) { result.replaceChildren(h("span", { class: "error" }, err.message)); }
    },
  }, inputs, valueIn, h("button", { type: "submit" }, read ? "Query" : "Write"));
  return h("div", { class: "method", "data-method": m.name },
    h("div", {}, h("code", {}, m.name + "(" + (m.inputs || []).map((i) => typeName(i) + (i.name ? " " + i.name : "")).join(", ") + ")"),
      (m.outputs || []).length ? h("span", { class: "muted" }, " → " + m.outputs.map(typeName).join(", ")) : null),
    form, result);
}

// verifyForm verifies the contract by one of Blockscout's methods: solc's
// metadata JSON and the sources it names (Sourcify's way: no compiler),
// solc's standard-JSON input, or one flattened source file with its
// settings (both compiled by the explorer's configured solc).
function verifyForm(hash) {
  const files = h("input", { type: "file", multiple: true, name: "files", id: "verify-files", required: true });
  const out = h("p", { "aria-live": "polite", "data-field": "verify-result" });
  const field = (label, el) => h("label", { class: "verify-field" }, label, " ", el);
  const method = h("select", { id: "verify-method", name: "method" },
    h("option", { value: "sourcify-metadata" }, "Solidity metadata (metadata.json and its sources)"),
    h("option", { value: "standard-input" }, "Standard-JSON input"),
    h("option", { value: "flattened-code" }, "Flattened source (one file)"));
  const compiler = h("input", { id: "verify-compiler", name: "compiler_version", placeholder: "v0.8.28+commit.7893614a" });
  const name = h("input", { id: "verify-name", name: "contract_name", placeholder: "Name, or path/File.sol:Name" });
  const source = h("textarea", { id: "verify-source", name: "source_code", rows: 8, placeholder: "// SPDX-License-Identifier: …" });
  const optimize = h("input", { type: "checkbox", id: "verify-optimize", name: "is_optimization_enabled" });
  const runs = h("input", { id: "verify-runs", name: "optimization_runs", value: "200", inputmode: "numeric" });
  const evm = h("input", { id: "verify-evm", name: "evm_version", value: "default" });
  const compiled = h("div", { class: "verify-compiled", hidden: true }, field("Compiler version", compiler), field("Contract name", name));
  const flat = h("div", { class: "verify-flat", hidden: true }, field("Source", source), field("Optimization", optimize), field("Runs", runs), field("EVM version", evm));
  const filesLabel = h("label", { for: "verify-files" }, "");
  const show = () => {
    const m = method.value;
    compiled.hidden = m === "sourcify-metadata";
    flat.hidden = m !== "flattened-code";
    files.hidden = m === "flattened-code";
    files.required = m !== "flattened-code";
    files.multiple = m === "sourcify-metadata";
    filesLabel.textContent = m === "sourcify-metadata" ? "The compiler's metadata.json and the source files it lists: "
      : m === "standard-input" ? "The standard-JSON input file: " : "";
  };
  method.addEventListener("change", show);
  show();
  const request = () => {
    const m = method.value, body = new FormData();
    if (m === "flattened-code") {
      return { headers: { "content-type": "application/json" }, body: JSON.stringify({
        compiler_version: compiler.value.trim(), source_code: source.value, contract_name: name.value.trim(),
        is_optimization_enabled: optimize.checked, optimization_runs: Number(runs.value), evm_version: evm.value.trim() || "default" }) };
    }
    if (m === "standard-input") { body.append("compiler_version", compiler.value.trim()); body.append("contract_name", name.value.trim()); }
    [...files.files].forEach((f, i) => body.append(m === "standard-input" ? "files[" + i + "]" : "files", f, f.name));
    return { body };
  };
  return h("form", {
    class: "card",
    onsubmit: async (e) => {
      e.preventDefault();
      out.textContent = "Verifying…";
      try {
        const res = await fetch("/api/v2/smart-contracts/" + hash + "/verification/via/" + method.value, Object.assign({ method: "POST" }, request()));
        const j = await res.json().catch(() => ({}));
        if (!res.ok) throw new Error(j.message || res.statusText);
        out.textContent = j.message || "Verified.";
        setTimeout(() => location.reload(), 800);
      } catch (err) { out.replaceChildren(h("span", { class: "error" }, err.message)); }
    },
  },
  h("h2", {}, "Verify this contract"),
  field("Method", method), compiled, flat,
  filesLabel, files, " ",
  h("button", { type: "submit" }, "Verify"), out);
}
