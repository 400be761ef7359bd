// A small ABI coder for the contract page's read and write forms: the
// elementary types (uintN, intN, address, bool, bytesN, bytes, string),
// arrays (T[] and T[k]) and tuples (structs), nested to any depth, as the
// Solidity ABI specification lays them out (heads, then the tails of the
// dynamic values). A parameter is an ABI entry: {type, components}.

const word = (big) => (BigInt.asUintN(256, big)).toString(16).padStart(64, "0");
const pad = (hex) => hex + "0".repeat((64 - (hex.length % 64)) % 64);

function unsupported(type) { return new Error("type " + type + " is not supported by this form"); }

// arrayOf splits "T[k]" / "T[]" into the element parameter and its length
// (null when dynamic); null for a type that is not an array.
function arrayOf(p) {
  const m = p.type.match(/^(.*)\[(\d*)\]$/);
  if (!m) return null;
  return { elem: { ...p, type: m[1] }, length: m[2] === "" ? null : Number(m[2]) };
}

const isTuple = (p) => p.type === "tuple";

// isDynamic tells whether a value of p is encoded in the tail.
function isDynamic(p) {
  const a = arrayOf(p);
  if (a) return a.length == null || isDynamic(a.elem);
  if (isTuple(p)) return (p.components || []).some(isDynamic);
  return p.type === "bytes" || p.type === "string";
}

// headWords is how many 32-byte words a static value of p takes in place.
function headWords(p) {
  if (isDynamic(p)) return 1;
  const a = arrayOf(p);
  if (a) return a.length * headWords(a.elem);
  if (isTuple(p)) return (p.components || []).reduce((n, c) => n + headWords(c), 0);
  return 1;
}

// encodeElementary returns the hex (no 0x) of one elementary value given
// as text.
function encodeElementary(type, raw) {
  const v = String(raw).trim();
  if (/^u?int\d*$/.test(type)) {
    if (!/^-?(0x[0-9a-f]+|\d+)$/i.test(v)) throw new Error(type + ": not an integer: " + v);
    const neg = v.startsWith("-"), n = BigInt(neg ? v.slice(1) : v) * (neg ? -1n : 1n);
    const bits = Number(type.replace(/^u?int/, "")) || 256;
    if (type.startsWith("uint") ? n < 0n || n >= 1n << BigInt(bits) : n < -(1n << BigInt(bits - 1)) || n >= 1n << BigInt(bits - 1)) {
      throw new Error(type + ": out of range: " + v);
    }
    return word(n);
  }
  if (type === "address") {
    if (!/^0x[0-9a-fA-F]{40}$/.test(v)) throw new Error("address: want 0x and 40 hex digits: " + v);
    return v.slice(2).toLowerCase().padStart(64, "0");
  }
  if (type === "bool") {
    if (!/^(true|false)$/i.test(v)) throw new Error("bool: want true or false");
    return word(v.toLowerCase() === "true" ? 1n : 0n);
  }
  const m = type.match(/^bytes(\d+)$/);
  if (m) {
    if (!new RegExp("^0x[0-9a-fA-F]{0," + Number(m[1]) * 2 + "}$").test(v)) throw new Error(type + ": want 0x and up to " + m[1] + " bytes");
    return v.slice(2).padEnd(64, "0");
  }
  if (type === "bytes" || type === "string") {
    let hex;
    if (type === "string") hex = [...new TextEncoder().encode(String(raw))].map((b) => b.toString(16).padStart(2, "0")).join("");
    else if (/^0x([0-9a-fA-F]{2})*$/.test(v)) hex = v.slice(2);
    else throw new Error("bytes: want 0x and hex digits");
    return word(BigInt(hex.length / 2)) + (hex.length ? pad(hex) : "");
  }
  throw unsupported(type);
}

// encodeValue returns the full encoding of one value of p: an array or a
// tuple is a list of its elements' values (parseArg's result).
function encodeValue(p, v) {
  const a = arrayOf(p);
  if (a) {
    if (!Array.isArray(v)) throw new Error(p.type + ": want a list [ … ]");
    if (a.length != null && v.length !== a.length) throw new Error(p.type + ": want " + a.length + " elements, got " + v.length);
    const body = encodeSequence(v.map(() => a.elem), v);
    return a.length == null ? word(BigInt(v.length)) + body : body;
  }
  if (isTuple(p)) {
    const cs = p.components || [];
    if (!Array.isArray(v) || v.length !== cs.length) throw new Error("tuple(" + cs.map((c) => c.type).join(",") + "): want a list of " + cs.length + " values");
    return encodeSequence(cs, v);
  }
  if (Array.isArray(v)) throw new Error(p.type + ": want one value, not a list");
  return encodeElementary(p.type, v);
}

// encodeSequence lays out values of params: static values in place,
// dynamic ones as offsets (from the sequence's start) into the tail.
function encodeSequence(params, values) {
  const headLen = 32 * params.reduce((n, p) => n + headWords(p), 0);
  let head = "", tail = "";
  params.forEach((p, i) => {
    const enc = encodeValue(p, values[i]);
    if (isDynamic(p)) { head += word(BigInt(headLen + tail.length / 2)); tail += enc; }
    else head += enc;
  });
  return head + tail;
}

// parseArg reads what a form input holds for p: the text itself for an
// elementary type, else a list written as [a, b, [c, d], "text, with comma"]
// (tuples in component order). Numbers stay text, so no precision is lost.
export function parseArg(p, text) {
  if (!arrayOf(p) && !isTuple(p)) return text;
  const s = String(text);
  let i = 0;
  const ws = () => { while (i < s.length && /\s/.test(s[i])) i++; };
  const value = () => {
    ws();
    if (s[i] === "[") {
      i++;
      const out = [];
      ws();
      if (s[i] === "]") { i++; return out; }
      for (;;) {
        out.push(value());
        ws();
        if (s[i] === ",") { i++; continue; }
        if (s[i] === "]") { i++; return out; }
        throw new Error("list: expected , or ] at character " + (i + 1));
      }
    }
    if (s[i] === '"') {
      const start = i++;
      while (i < s.length && s[i] !== '"') i += s[i] === "\\" ? 2 : 1;
      if (i >= s.length) throw new Error("list: unterminated string");
      i++;
      return JSON.parse(s.slice(start, i));
    }
    const start = i;
    while (i < s.length && !/[,\]\s]/.test(s[i])) i++;
    if (i === start) throw new Error("list: expected a value at character " + (i + 1));
    return s.slice(start, i);
  };
  const v = value();
  ws();
  if (i !== s.length) throw new Error("list: unexpected text after the list at character " + (i + 1));
  return v;
}

// encodeCall is 0x + selector + the arguments, each the text of its form
// input.
export function encodeCall(selector, inputs, texts) {
  const values = inputs.map((p, i) => parseArg(p, texts[i] ?? ""));
  return "0x" + selector.replace(/^0x/, "") + encodeSequence(inputs, values);
}

// decodeValue reads one value of p whose head is at word index at of hex,
// offsets counting from word index base.
function decodeValue(p, hex, at, base) {
  const w = (k) => {
    const s = hex.slice(k * 64, k * 64 + 64);
    if (s.length < 64) throw new Error("short return data");
    return s;
  };
  const offset = () => {
    const o = BigInt("0x" + w(at));
    if (o % 32n !== 0n || o > BigInt(hex.length / 2)) throw new Error("bad offset in return data");
    return base + Number(o / 32n);
  };
  const a = arrayOf(p);
  if (a) {
    let start = at, n = a.length;
    if (isDynamic(p)) start = offset();
    if (n == null) {
      n = Number(BigInt("0x" + w(start)));
      if (n > hex.length / 64) throw new Error("bad length in return data");
      start++;
    }
    return decodeSequence(Array(n).fill(a.elem), hex, start);
  }
  if (isTuple(p)) return decodeSequence(p.components || [], hex, isDynamic(p) ? offset() : at);
  if (/^uint\d*$/.test(p.type)) return BigInt("0x" + w(at)).toString();
  if (/^int\d*$/.test(p.type)) return BigInt.asIntN(Number(p.type.slice(3)) || 256, BigInt("0x" + w(at))).toString();
  if (p.type === "address") return "0x" + w(at).slice(24);
  if (p.type === "bool") return BigInt("0x" + w(at)) ? "true" : "false";
  const m = p.type.match(/^bytes(\d+)$/);
  if (m) return "0x" + w(at).slice(0, Number(m[1]) * 2);
  if (p.type === "string" || p.type === "bytes") {
    const start = offset(), len = Number(BigInt("0x" + w(start))) * 2;
    const body = hex.slice((start + 1) * 64, (start + 1) * 64 + len);
    if (body.length < len) throw new Error("short return data");
    if (p.type === "bytes") return "0x" + body;
    return new TextDecoder().decode(new Uint8Array(body.match(/../g)?.map((b) => parseInt(b, 16)) || []));
  }
  throw unsupported(p.type);
}

// decodeSequence reads values of params laid out from word index start.
function decodeSequence(params, hex, start) {
  let at = start;
  return params.map((p) => {
    const v = decodeValue(p, hex, at, start);
    at += headWords(p);
    return v;
  });
}

// typeName spells p's type with its tuples' components: (int64,string)[].
export function typeName(p) {
  return p.type.replace(/^tuple/, () => "(" + (p.components || []).map(typeName).join(",") + ")");
}

// show spells a decoded value: lists in brackets, strings as they are at
// the top level and quoted inside a list.
export function show(v, nested = false) {
  if (Array.isArray(v)) return "[" + v.map((x) => show(x, true)).join(", ") + "]";
  return nested && !/^(-?\d+|0x[0-9a-f]*|true|false)$/.test(v) ? JSON.stringify(v) : v;
}

// decodeOutputs turns return data into display strings, one per output.
export function decodeOutputs(outputs, data) {
  return decodeSequence(outputs, data.replace(/^0x/, ""), 0).map((v) => show(v));
}

// revertMessage decodes Error(string) return data, if that is what it is.
export function revertMessage(data) {
  if (typeof data !== "string" || !data.startsWith("0x08c379a0")) return null;
  try { return decodeOutputs([{ type: "string" }], "0x" + data.slice(10))[0]; } catch (e) { return null; }
}
