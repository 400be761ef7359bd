// Compiles src/*.sol with the pinned solc-js and writes artifacts/<Name>.json
// ({contractName, abi, bytecode, deployedBytecode, compiler, metadata,
// sources}): metadata is solc's metadata JSON as the exact string whose IPFS
// hash the runtime code's CBOR trailer carries, sources every file it lists
// with its exact content, so the explorer's sourcify-metadata verification
// can be exercised without a compiler. The artifacts are
// committed so Go code needs no Node.js; `make contracts` regenerates them.
// With --check nothing is written: it exits 1 if a committed artifact differs
// from what the sources compile to (TestArtifactsCurrent runs this).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import solc from "solc";

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const srcDir = path.join(here, "src");
const outDir = path.join(here, "artifacts");

const sources = {};
for (const f of fs.readdirSync(srcDir).filter((f) => f.endsWith(".sol")).sort()) {
  sources[f] = { content: fs.readFileSync(path.join(srcDir, f), "utf8") };
}
const input = {
  language: "Solidity",
  sources,
  settings: {
    evmVersion: "cancun",
    optimizer: { enabled: true, runs: 200 },
    outputSelection: { "*": { "*": ["abi", "metadata", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
  },
};
const imported = {};
function findImports(p) {
  try {
    imported[p] = fs.readFileSync(require.resolve(p), "utf8");
    return { contents: imported[p] };
  } catch {
    return { error: `not found: ${p}` };
  }
}
const out = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
const errors = (out.errors || []).filter((e) => e.severity === "error");
if (errors.length) {
  for (const e of errors) console.error(e.formattedMessage);
  process.exit(1);
}
const check = process.argv.includes("--check");
let stale = 0;
fs.mkdirSync(outDir, { recursive: true });
for (const file of Object.keys(sources)) {
  for (const [name, c] of Object.entries(out.contracts[file])) {
    const artifact = {
      contractName: name,
      compiler: `solc ${solc.version()}`,
      abi: c.abi,
      bytecode: "0x" + c.evm.bytecode.object,
      deployedBytecode: "0x" + c.evm.deployedBytecode.object,
      metadata: c.metadata,
      sources: Object.fromEntries(
        Object.keys(JSON.parse(c.metadata).sources).map((f) => [f, sources[f] ? sources[f].content : imported[f]]),
      ),
    };
    const out = path.join(outDir, `${name}.json`);
    const text = JSON.stringify(artifact, null, 2) + "\n";
    if (check) {
      const current = fs.existsSync(out) ? fs.readFileSync(out, "utf8") : "";
      if (current !== text) {
        console.error(`${out} is stale: run make contracts`);
        stale++;
      }
      continue;
    }
    fs.writeFileSync(out, text);
    console.log(`${name}: ${c.evm.deployedBytecode.object.length / 2} bytes of runtime code`);
  }
}
if (stale) process.exit(1);
