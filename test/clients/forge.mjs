// Ember end to end with foundry's forge (npm @foundry-rs/forge): `forge script
// --broadcast` compiles forge/script/DeployToken.s.sol offline (solc-js behind
// solc.mjs, see forge/foundry.toml), deploys EmberToken and transfers some of
// it; this script then checks forge's broadcast record and the chain.
//
//   EMBER_RPC=http://127.0.0.1:8545 EMBER_KEYS=0x<key> node forge.mjs
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AbiCoder, Contract, JsonRpcProvider, Wallet, getAddress, getCreateAddress, keccak256, toBeHex, zeroPadValue, id } from "ethers";
import { env, loadArtifact, run, step } from "./lib.mjs";

const RPC = env("EMBER_RPC");
const KEY = env("EMBER_KEYS").split(",")[0];
const Token = loadArtifact("EmberToken");
const SUPPLY = 777_000_000n * 10n ** 18n;
const AMOUNT = 123_456_789_123_456_789n;

const here = path.dirname(new URL(import.meta.url).pathname);
const arch = { x64: "amd64", arm64: "arm64" }[process.arch];
const FORGE = [path.join(here, `node_modules/@foundry-rs/forge-${process.platform}-${arch}/bin/forge`), path.join(here, "node_modules/.bin/forge")].find((p) =>
  fs.existsSync(p),
);
if (!FORGE) throw new Error("forge not found: run npm install in test/clients");

const provider = new JsonRpcProvider(RPC, undefined, { pollingInterval: 50, cacheTimeout: -1 });
const ME = new Wallet(KEY).address;
const RECIPIENT = getAddress("0x" + keccak256(Buffer.from(`ember forge recipient ${ME} ${Date.now()}`)).slice(-40));

// stripMetadata drops the CBOR metadata solc appends to runtime code (its
// length is the last two bytes): it hashes the source paths, which differ
// between forge's project and contracts/build.mjs.
function stripMetadata(code) {
  const len = parseInt(code.slice(-4), 16);
  return code.slice(0, code.length - 2 * (len + 2));
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ember-forge-"));
process.on("exit", () => fs.rmSync(tmp, { recursive: true, force: true }));

let record, output, nonce0, balance0;

await run("forge", async () => {
  await step("forge script --broadcast (offline compile with solc-js)", async () => {
    nonce0 = await provider.getTransactionCount(ME);
    balance0 = await provider.getBalance(ME);
    // --slow: one tx at a time, each after the previous one's receipt.
    // Without it forge 1.7.1 sends the two txs concurrently, and (a) Ember
    // refuses the nonce+1 tx with "nonce too high" if it arrives first (no
    // queued txs yet, see README "Admission"), (b) forge records the hashes in
    // completion order, so run-latest.json can pair a tx with the other's
    // hash (foundry-rs/foundry#16715, fixed after 1.7.1).
    const args = ["script", "script/DeployToken.s.sol:DeployToken", "--root", path.join(here, "forge"), "--rpc-url", RPC, "--broadcast", "--slow"];
    try {
      output = execFileSync(FORGE, args, {
        cwd: path.join(here, "forge"),
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          NO_COLOR: "1",
          FOUNDRY_DISABLE_NIGHTLY_WARNING: "1",
          // Build output, cache and broadcast records go to a temp dir, not the tree.
          FOUNDRY_OUT: path.join(tmp, "out"),
          FOUNDRY_CACHE_PATH: path.join(tmp, "cache"),
          FOUNDRY_BROADCAST: path.join(tmp, "broadcast"),
          EMBER_FORGE_KEY: KEY,
          EMBER_SUPPLY: SUPPLY.toString(),
          EMBER_RECIPIENT: RECIPIENT,
          EMBER_AMOUNT: AMOUNT.toString(),
        },
      });
    } catch (e) {
      throw new Error(`forge ${args.join(" ")}: exit ${e.status}\n${e.stdout}\n${e.stderr}`);
    }
    assert.match(output, /Compiler run successful|No files changed/, `forge output:\n${output}`);
    assert.match(output, /ONCHAIN EXECUTION COMPLETE & SUCCESSFUL/, `forge output:\n${output}`);
    assert.match(output, /Chain 31337/);
    record = JSON.parse(fs.readFileSync(path.join(tmp, "broadcast", "DeployToken.s.sol", "31337", "run-latest.json"), "utf8"));
  });

  const token = getCreateAddress({ from: ME, nonce: nonce0 });

  await step("broadcast record: two txs, the create at getCreateAddress(from, nonce)", async () => {
    assert.equal(record.chain, 31337);
    assert.deepEqual(
      record.transactions.map((t) => [t.transactionType, t.contractName, getAddress(t.contractAddress), t.function, t.arguments]),
      [
        ["CREATE", "EmberToken", token, null, [SUPPLY.toString()]],
        ["CALL", "EmberToken", token, "transfer(address,uint256)", [RECIPIENT, AMOUNT.toString()]],
      ],
    );
    assert.equal(record.receipts.length, 2);
    // The script's return value, as forge printed it.
    assert.match(output, new RegExp(`token: contract EmberToken ${token}`), "== Return == token");
  });

  await step("receipts on chain: status 1, type 2, nonces, fees to the wei", async () => {
    let fees = 0n;
    for (const [i, t] of record.transactions.entries()) {
      const rc = await provider.getTransactionReceipt(t.hash);
      assert.ok(rc, `no receipt for ${t.hash}`);
      assert.equal(rc.status, 1, `tx ${i}: status`);
      assert.equal(rc.type, 2, `tx ${i}: type`);
      assert.equal(rc.from, ME);
      // forge's record of the receipt (in the order they arrived).
      const saved = record.receipts.find((r) => r.transactionHash === t.hash);
      assert.ok(saved, `broadcast record: no receipt for ${t.hash}`);
      assert.equal(saved.status, "0x1");
      assert.equal(BigInt(saved.gasUsed), rc.gasUsed, "broadcast receipt gasUsed");
      assert.equal(BigInt(saved.effectiveGasPrice), rc.gasPrice, "broadcast receipt effectiveGasPrice");
      assert.equal(saved.blockHash, rc.blockHash, "broadcast receipt blockHash");
      assert.equal(BigInt(saved.blockNumber), BigInt(rc.blockNumber), "broadcast receipt blockNumber");
      const tx = await provider.getTransaction(t.hash);
      assert.equal(tx.nonce, nonce0 + i, `tx ${i}: nonce`);
      assert.equal(tx.chainId, 31337n);
      const block = await provider.getBlock(rc.blockNumber);
      assert.equal(rc.gasPrice, block.baseFeePerGas + (tx.maxPriorityFeePerGas < tx.maxFeePerGas - block.baseFeePerGas ? tx.maxPriorityFeePerGas : tx.maxFeePerGas - block.baseFeePerGas), "effectiveGasPrice");
      fees += rc.gasUsed * rc.gasPrice;
      if (i === 0) {
        assert.equal(rc.contractAddress, token, "contractAddress");
      } else {
        assert.equal(rc.to, token);
        assert.equal(rc.logs.length, 1);
        assert.deepEqual(rc.logs[0].topics, [id("Transfer(address,address,uint256)"), zeroPadValue(ME, 32), zeroPadValue(RECIPIENT, 32)]);
        assert.equal(rc.logs[0].data, toBeHex(AMOUNT, 32));
      }
    }
    assert.equal(await provider.getTransactionCount(ME), nonce0 + 2, "sender nonce");
    assert.equal(await provider.getBalance(ME), balance0 - fees, "sender balance: only the two fees");
  });

  await step("deployed EmberToken: code and state", async () => {
    const code = await provider.getCode(token);
    // forge's artifact whose creation code is the deploy tx's input (forge may
    // build EmberToken under more than one source path; the metadata differs).
    const input = (await provider.getTransaction(record.transactions[0].hash)).data;
    const arg = AbiCoder.defaultAbiCoder().encode(["uint256"], [SUPPLY]).slice(2);
    const built = fs
      .readdirSync(path.join(tmp, "out"), { recursive: true })
      .filter((f) => path.basename(f) === "EmberToken.json")
      .map((f) => JSON.parse(fs.readFileSync(path.join(tmp, "out", f), "utf8")))
      .find((a) => input === a.bytecode.object + arg);
    assert.ok(built, "no EmberToken artifact in forge's out/ whose bytecode + abi.encode(supply) is the deploy input");
    assert.equal(code, built.deployedBytecode.object, "on-chain code = forge's compiled runtime code");
    assert.equal(stripMetadata(code), stripMetadata(Token.deployedBytecode), "same code as contracts/artifacts (metadata aside)");
    const erc20 = new Contract(token, Token.abi, provider);
    assert.equal(await erc20.totalSupply(), SUPPLY);
    assert.equal(await erc20.balanceOf(ME), SUPPLY - AMOUNT);
    assert.equal(await erc20.balanceOf(RECIPIENT), AMOUNT);
    assert.equal(await erc20.name(), "Ember Token");
  });
});
