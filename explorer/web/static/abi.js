// A small ABI coder for the contract page's read and write forms: the
// elementary types (uintN, intN, address, bool, bytesN) and dynamic bytes
// and string. Arrays and tuples are refused with a clear message.

const word = (big) => (BigInt.asUintN(256, big)).toString(16).padStart(64, "0");
const pad = (hex) => hex + "0".repeat((64 - (hex.length % 64)) % 64);

function unsupported(type) { return new Error("type " + type + " is not supported by this form"); }

// encodeValue returns [head, tail] hex (no 0x) for one argument.
function encodeValue(type, raw) {
  const v = String(raw).trim();
  if (/^u?int\d*$/.test(type)) {
    if (!/^-?(0x[0-9a-f]+|\d+)$/i.test(v)) throw new Error(type + ": not an integer: " + v);
    const neg = v.startsWith("-"), n = BigInt(neg ? v.slice(1) : v) * (neg ? -1n : 1n);
    if (type.startsWith("uint") && n < 0n) throw new Error(type + ": negative");
    return [word(n), null];
  }
  if (type === "address") {
    if (!/^0x[0-9a-fA-F]{40}$/.test(v)) throw new Error("address: want 0x and 40 hex digits: " + v);
    return [v.slice(2).toLowerCase().padStart(64, "0"), null];
  }
  if (type === "bool") {
    if (!/^(true|false)$/i.test(v)) throw new Error("bool: want true or false");
    return [word(v.toLowerCase() === "true" ? 1n : 0n), null];
  }
  let m = type.match(/^bytes(\d+)$/);
  if (m) {
    if (!new RegExp("^0x[0-9a-fA-F]{0," + Number(m[1]) * 2 + "}$").test(v)) throw new Error(type + ": want 0x and up to " + m[1] + " bytes");
    return [pad(v.slice(2) || "00").slice(0, 64).padEnd(64, "0"), null];
  }
  if (type === "bytes" || type === "string") {
    let hex;
    if (type === "string") hex = [...new TextEncoder().encode(String(raw))].map((b) => b.toString(16).padStart(2, "0")).join("");
    else if (/^0x([0-9a-fA-F]{2})*$/.test(v)) hex = v.slice(2);
    else throw new Error("bytes: want 0x and hex digits");
    return [null, word(BigInt(hex.length / 2)) + (hex.length ? pad(hex) : "")];
  }
  throw unsupported(type);
}

// encodeCall is 0x + selector + the arguments.
export function encodeCall(selector, inputs, values) {
  const parts = inputs.map((inp, i) => encodeValue(inp.type, values[i] ?? ""));
  let head = "", tail = "";
  const headLen = 32 * parts.length;
  for (const [hd, tl] of parts) {
    if (tl == null) head += hd;
    else { head += word(BigInt(headLen + tail.length / 2)); tail += tl; }
  }
  return "0x" + selector.replace(/^0x/, "") + head + tail;
}

// decodeOutputs turns return data into display strings, one per output.
export function decodeOutputs(outputs, data) {
  const hex = data.replace(/^0x/, "");
  const at = (i) => hex.slice(i * 64, i * 64 + 64);
  return outputs.map((o, i) => {
    const w = at(i);
    if (w.length < 64) throw new Error("short return data");
    if (/^uint\d*$/.test(o.type)) return BigInt("0x" + w).toString();
    if (/^int\d*$/.test(o.type)) return BigInt.asIntN(Number(o.type.slice(3)) || 256, BigInt("0x" + w)).toString();
    if (o.type === "address") return "0x" + w.slice(24);
    if (o.type === "bool") return BigInt("0x" + w) ? "true" : "false";
    const m = o.type.match(/^bytes(\d+)$/);
    if (m) return "0x" + w.slice(0, Number(m[1]) * 2);
    if (o.type === "string" || o.type === "bytes") {
      const off = Number(BigInt("0x" + w)) * 2, len = Number(BigInt("0x" + hex.slice(off, off + 64))) * 2;
      const body = hex.slice(off + 64, off + 64 + len);
      if (o.type === "bytes") return "0x" + body;
      return new TextDecoder().decode(new Uint8Array(body.match(/../g)?.map((b) => parseInt(b, 16)) || []));
    }
    throw unsupported(o.type);
  });
}

// revertMessage decodes Error(string) return data, if that is what it is.
export function revertMessage(data) {
  if (typeof data !== "string" || !data.startsWith("0x08c379a0")) return null;
  try { return decodeOutputs([{ type: "string" }], "0x" + data.slice(10))[0]; } catch (e) { return null; }
}
