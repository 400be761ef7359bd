// A small Solidity highlighter: comments, strings, numbers and keywords
// become spans; everything else stays text (no HTML is ever parsed).
import { h } from "./lib.js";

const KEYWORDS = new Set(("pragma solidity import contract interface library abstract is function modifier event error struct enum mapping " +
  "public private internal external view pure payable virtual override constant immutable memory storage calldata returns return " +
  "if else for while do break continue new delete emit revert require assert try catch using constructor fallback receive " +
  "address bool string bytes uint int uint256 uint8 uint128 int256 bytes32 bytes4 true false this super unchecked assembly").split(" "));

const TOKEN = /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|\b(0x[0-9a-fA-F]+|\d[\d_]*(?:\.\d+)?(?:e\d+)?)\b|\b([A-Za-z_]\w*)\b/g;

export function highlight(src) {
  const code = h("code", { class: "language-solidity" });
  let last = 0;
  for (const m of src.matchAll(TOKEN)) {
    const [text, com, str, n, word] = m;
    const cls = com ? "tok-com" : str ? "tok-str" : n ? "tok-num" : word && KEYWORDS.has(word) ? "tok-kw" : null;
    if (!cls) continue;
    if (m.index > last) code.append(src.slice(last, m.index));
    code.append(h("span", { class: cls }, text));
    last = m.index + text.length;
  }
  code.append(src.slice(last));
  return h("pre", { tabindex: "0" }, code);
}
