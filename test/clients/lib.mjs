// Shared by the client scripts: artifacts, and steps that report what they
// checked. A failed check prints the step and the mismatch and exits 1.
import fs from "node:fs";

// loadArtifact reads contracts/artifacts/<name>.json ({abi, bytecode, deployedBytecode}).
export function loadArtifact(name) {
  const url = new URL(`../../contracts/artifacts/${name}.json`, import.meta.url);
  return JSON.parse(fs.readFileSync(url, "utf8"));
}

// env is a required environment variable.
export function env(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

let current = "";

// step runs one named group of checks and prints "ok <name> (<ms>)".
export async function step(name, fn) {
  current = name;
  const t0 = performance.now();
  await fn();
  console.log(`ok   ${name} (${Math.round(performance.now() - t0)} ms)`);
}

// run runs a client's steps; on any failure it prints the step and the error
// (an assertion shows actual and expected) and exits 1.
export async function run(client, fn) {
  const t0 = performance.now();
  try {
    await fn();
  } catch (e) {
    console.error(`FAIL ${client}: ${current}`);
    console.error(e?.stack ?? e);
    if (e?.actual !== undefined || e?.expected !== undefined) {
      console.error("  actual:  ", e.actual);
      console.error("  expected:", e.expected);
    }
    process.exit(1);
  }
  console.log(`PASS ${client} (${Math.round(performance.now() - t0)} ms)`);
  process.exit(0);
}

// --- Merkle-Patricia proof verification ---

const nibbles = (hex) => [...hex.slice(2)].map((c) => parseInt(c, 16));

// makeProofVerifier returns verifyProof over a client library's own
// keccak256 and RLP decoder (hex strings in and out).
//
// verifyProof walks proof (RLP nodes, root first) from rootHash along
// keccak256(key) and returns the leaf's value (0x-hex bytes), or null when the
// proof shows the key is absent. Any node whose hash does not match its
// parent's reference, or a proof with missing or extra nodes, throws.
export function makeProofVerifier(keccak256, decodeRlp) {
  return function verifyProof(rootHash, key, proof) {
    const path = nibbles(keccak256(key));
    let pos = 0;
    let want = rootHash.toLowerCase();
    for (let i = 0; i < proof.length; i++) {
      const got = keccak256(proof[i]);
      if (got !== want) throw new Error(`proof node ${i}: keccak256 ${got}, parent references ${want}`);
      let node = decodeRlp(proof[i]);
      const done = (value) => {
        if (i !== proof.length - 1) throw new Error(`proof has ${proof.length - 1 - i} node(s) after the end of the path`);
        return value;
      };
      for (;;) {
        let next;
        if (node.length === 17) {
          if (pos === path.length) return done(node[16] === "0x" ? null : node[16]);
          next = node[path[pos++]];
        } else if (node.length === 2) {
          const p = nibbles(node[0]);
          const rest = p.slice(p[0] & 1 ? 1 : 2);
          const remaining = path.slice(pos);
          if (p[0] >= 2) return done(rest.join() === remaining.join() ? node[1] : null); // leaf
          if (rest.join() !== remaining.slice(0, rest.length).join()) return done(null); // extension elsewhere
          pos += rest.length;
          next = node[1];
        } else {
          throw new Error(`proof node ${i}: RLP list of ${node.length} items`);
        }
        if (Array.isArray(next)) {
          node = next; // a node under 32 bytes is embedded in its parent
          continue;
        }
        if (next === "0x") return done(null);
        if (next.length !== 66) throw new Error(`proof node ${i}: child reference ${next}`);
        want = next;
        break;
      }
    }
    throw new Error(`proof ends after ${proof.length} node(s) before reaching the key`);
  };
}
