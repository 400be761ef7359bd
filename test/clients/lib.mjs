// Shared by the client scripts: artifacts, and steps that report what they
// checked. A failed check prints the step and the mismatch and exits 1.
import fs from "node:fs";

// loadArtifact reads contracts/artifacts/<name>.json ({abi, bytecode, deployedBytecode}).
export function loadArtifact(name) {
  const url = new URL(`../../contracts/artifacts/${name}.json`, import.meta.url);
  return JSON.parse(fs.readFileSync(url, "utf8"));
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
