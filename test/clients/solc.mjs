#!/usr/bin/env node
// A native-solc stand-in backed by solc-js (npm `solc`), so forge can compile
// offline: foundry.toml names this file as `solc`. It answers the two ways
// forge calls a compiler:
//   solc --version                  -> "solc, the solidity compiler commandline interface\nVersion: X"
//   solc [flags] --standard-json    -> standard JSON in on stdin, standard JSON out on stdout
// Sources arrive with their content (forge resolves the import graph itself);
// the import callback reads any other path under --base-path / --include-path /
// --allow-paths, as native solc would.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const solc = require("solc");

const args = process.argv.slice(2);
if (args.includes("--version")) {
  process.stdout.write(`solc, the solidity compiler commandline interface\nVersion: ${solc.version()}\n`);
  process.exit(0);
}
if (!args.includes("--standard-json")) {
  process.stderr.write(`solc.mjs (solc-js ${solc.version()}): only --version and --standard-json are supported, got: ${args.join(" ")}\n`);
  process.exit(2);
}

// Directories an import may be read from.
const roots = [process.cwd()];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--base-path" || a === "--include-path") roots.push(args[++i]);
  else if (a === "--allow-paths") roots.push(...args[++i].split(","));
  else if (a.startsWith("--base-path=") || a.startsWith("--include-path=")) roots.push(a.slice(a.indexOf("=") + 1));
  else if (a.startsWith("--allow-paths=")) roots.push(...a.slice(a.indexOf("=") + 1).split(","));
}

function findImports(p) {
  for (const root of roots) {
    const f = path.isAbsolute(p) ? p : path.join(root, p);
    if (fs.existsSync(f)) return { contents: fs.readFileSync(f, "utf8") };
  }
  return { error: `File not found: ${p} (searched ${roots.join(", ")})` };
}

const input = fs.readFileSync(0, "utf8");
process.stdout.write(solc.compile(input, { import: findImports }));
