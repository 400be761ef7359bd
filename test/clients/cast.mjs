// Ember end to end with foundry's cast (npm @foundry-rs/cast): each check
// runs the cast binary and compares its output exactly.
//
//   EMBER_RPC=http://127.0.0.1:8545 EMBER_KEYS=0x<key> node cast.mjs
//
// EMBER_KEYS: the first key is the sender; it must be an `emberd dev`
// account (10,000 ETH at genesis, which is checked at block 0).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { env, loadArtifact, run, step } from "./lib.mjs";

const RPC = env("EMBER_RPC");
const KEY = env("EMBER_KEYS").split(",")[0];
const Token = loadArtifact("EmberToken");
const SUPPLY = 21_000_000n * 10n ** 18n;
const DEV_BALANCE = 10_000n * 10n ** 18n;

// The platform binary npm installs (the node_modules/.bin/cast shim would
// start a Node.js process per call).
const arch = { x64: "amd64", arm64: "arm64" }[process.arch];
const CAST = [
  new URL(`node_modules/@foundry-rs/cast-${process.platform}-${arch}/bin/cast`, import.meta.url).pathname,
  new URL("node_modules/.bin/cast", import.meta.url).pathname,
].find((p) => fs.existsSync(p));
if (!CAST) throw new Error("cast not found: run npm install in test/clients");

const castEnv = { ...process.env, ETH_RPC_URL: RPC, NO_COLOR: "1", FOUNDRY_DISABLE_NIGHTLY_WARNING: "1" };

// cast runs `cast args...` and returns its trimmed stdout; a non-zero exit
// throws with stderr.
function cast(...args) {
  try {
    return execFileSync(CAST, args, { env: castEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch (e) {
    throw new Error(`cast ${args.join(" ")}: exit ${e.status}\n${e.stderr}`);
  }
}
// castFails runs cast expecting a non-zero exit and returns stderr.
function castFails(...args) {
  try {
    const out = execFileSync(CAST, args, { env: castEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    throw new Error(`cast ${args.join(" ")}: want failure, got success: ${out}`);
  } catch (e) {
    if (e.status == null) throw e;
    return e.stderr;
  }
}
const json = (...args) => JSON.parse(cast(...args, "--json"));
const big = (s) => BigInt(s);
// callOut is `cast call ... --json` as strings (cast prints small integers as
// JSON numbers and large ones as strings).
const callOut = (...args) => json("call", ...args).map(String);

const ME = cast("wallet", "address", KEY);
const NONCE0 = Number(cast("nonce", ME));
const RECIPIENT = "0x" + cast("keccak", `ember cast recipient ${ME} ${NONCE0}`).slice(-40);
let expectMyBalance;
let sent = 0;

// checkReceipt checks a cast send --json receipt of a successful type-2 tx
// from ME and returns its fee.
function checkReceipt(rc, to) {
  assert.equal(rc.status, "0x1", `receipt ${rc.transactionHash}: status`);
  assert.equal(rc.type, "0x2", "receipt type");
  assert.equal(rc.from, ME.toLowerCase(), "receipt from");
  assert.equal(rc.to, to === null ? null : to.toLowerCase(), "receipt to");
  assert.match(rc.effectiveGasPrice ?? "", /^0x[0-9a-f]+$/, "effectiveGasPrice");
  const tx = json("tx", rc.transactionHash);
  const block = json("block", rc.blockNumber);
  assert.equal(big(tx.nonce), big(NONCE0 + sent), "tx nonce");
  sent++;
  assert.equal(tx.chainId, "0x7a69", "tx chainId");
  assert.equal(block.hash, rc.blockHash, "cast block: hash of the receipt's block");
  assert.equal(block.transactions[big(rc.transactionIndex)], rc.transactionHash, "tx at its index in the block");
  const base = big(block.baseFeePerGas);
  const tip = big(tx.maxPriorityFeePerGas) < big(tx.maxFeePerGas) - base ? big(tx.maxPriorityFeePerGas) : big(tx.maxFeePerGas) - base;
  assert.equal(big(rc.effectiveGasPrice), base + tip, "effectiveGasPrice = baseFee + min(tip, maxFee - baseFee)");
  // cast receipt agrees with what cast send printed.
  const again = json("receipt", rc.transactionHash);
  for (const f of ["status", "gasUsed", "effectiveGasPrice", "blockHash", "contractAddress", "cumulativeGasUsed", "logsBloom"]) {
    assert.equal(again[f], rc[f], `cast receipt .${f}`);
  }
  assert.equal(cast("receipt", rc.transactionHash, "status"), "true", "cast receipt <hash> status");
  return big(rc.gasUsed) * big(rc.effectiveGasPrice);
}

// stableBlockNumber reads the head three ways (cast block-number, cast rpc
// eth_blockNumber, cast block latest) and checks they agree, retrying if a
// block landed between the reads.
function stableBlockNumber() {
  for (let i = 0; i < 20; i++) {
    const a = big(cast("block-number"));
    const b = big(JSON.parse(cast("rpc", "eth_blockNumber")));
    const c = big(cast("block", "latest", "--field", "number"));
    const d = big(cast("block-number"));
    if (a === d) {
      assert.equal(b, a, "eth_blockNumber = cast block-number");
      assert.equal(c, a, "cast block latest number = cast block-number");
      return a;
    }
  }
  throw new Error("the head moved during 20 rounds of reads");
}

let token, rcSend, rcDeploy, rcTransfer;

await run("cast", async () => {
  await step("cast chain-id, client, block-number", async () => {
    assert.equal(cast("chain-id"), "31337");
    assert.equal(cast("rpc", "eth_chainId"), '"0x7a69"');
    // emberd dev names itself after anvil (hardhat-network-helpers serve it), then Ember
    assert.match(cast("client"), /^anvil-compatible\/emberd\//);
    const head = stableBlockNumber();
    assert.ok(head >= 0n);
  });

  await step("cast balance: genesis prefund at block 0, now", async () => {
    assert.equal(cast("balance", ME, "--block", "0"), DEV_BALANCE.toString(), "dev account at genesis");
    assert.equal(cast("balance", ME, "--block", "earliest"), DEV_BALANCE.toString());
    expectMyBalance = big(cast("balance", ME));
    assert.equal(big(JSON.parse(cast("rpc", "eth_getBalance", ME, "latest"))), expectMyBalance);
    assert.equal(cast("balance", RECIPIENT), "0");
  });

  await step("cast send value: recipient balance to the wei, sender pays value + fee", async () => {
    const value = 3_141_592_653_589_793_238n;
    const before = expectMyBalance;
    const head = stableBlockNumber();
    const rc = json("send", "--private-key", KEY, RECIPIENT, "--value", value.toString());
    const fee = checkReceipt(rc, RECIPIENT);
    assert.equal(rc.gasUsed, "0x5208", "gasUsed 21000");
    assert.ok(big(rc.blockNumber) > head, "mined after the head read before sending");
    assert.ok(stableBlockNumber() >= big(rc.blockNumber), "block-number reaches the receipt's block");
    expectMyBalance -= value + fee;
    assert.equal(cast("balance", RECIPIENT), value.toString(), "recipient");
    assert.equal(cast("balance", ME), expectMyBalance.toString(), "sender: before - value - gasUsed*effectiveGasPrice");
    assert.equal(cast("balance", ME, "--block", (big(rc.blockNumber) - 1n).toString()), before.toString(), "sender before the transfer");
    assert.equal(cast("balance", RECIPIENT, "--block", (big(rc.blockNumber) - 1n).toString()), "0", "recipient before the transfer");
    assert.equal(cast("balance", RECIPIENT, "--ether"), "3.141592653589793238");
    assert.equal(cast("nonce", ME), String(NONCE0 + 1));
    assert.equal(cast("nonce", ME, "--block", (big(rc.blockNumber) - 1n).toString()), String(NONCE0));
    rcSend = rc;
  });

  await step("cast send --create: deploy EmberToken(supply)", async () => {
    const nonce = Number(cast("nonce", ME));
    const predicted = cast("compute-address", ME, "--nonce", String(nonce)).replace("Computed Address: ", "");
    const rc = json("send", "--private-key", KEY, "--create", Token.bytecode, "constructor(uint256)", SUPPLY.toString());
    expectMyBalance -= checkReceipt(rc, null);
    assert.equal(rc.contractAddress, predicted.toLowerCase(), "contractAddress = compute-address(from, nonce)");
    token = predicted;
    rcDeploy = rc;
    assert.equal(cast("code", token), Token.deployedBytecode, "cast code = artifact deployedBytecode");
    assert.equal(cast("nonce", token), "1", "contract nonce (EIP-161)");
    assert.deepEqual(callOut(token, "totalSupply()(uint256)"), [SUPPLY.toString()]);
    assert.deepEqual(callOut(token, "balanceOf(address)(uint256)", ME), [SUPPLY.toString()]);
    assert.equal(cast("call", token, "name()(string)"), '"Ember Token"');
    assert.equal(cast("call", token, "symbol()(string)"), '"EMB"');
    assert.equal(cast("call", token, "decimals()(uint8)"), "18");
    assert.equal(rc.logs.length, 1);
    assert.deepEqual(rc.logs[0].topics, [
      cast("keccak", "Transfer(address,address,uint256)"),
      "0x" + "0".repeat(64),
      "0x" + "0".repeat(24) + ME.slice(2).toLowerCase(),
    ]);
    assert.equal(big(rc.logs[0].data), SUPPLY);
    assert.equal(cast("balance", ME), expectMyBalance.toString());
  });

  await step("cast storage: ERC-20 balance slot keccak256(abi.encode(holder, 0))", async () => {
    const slot = cast("index", "address", ME, "0");
    assert.equal(slot, cast("keccak", cast("abi-encode", "f(address,uint256)", ME, "0")));
    assert.equal(big(cast("storage", token, slot)), SUPPLY);
    assert.equal(cast("storage", token, slot), "0x" + SUPPLY.toString(16).padStart(64, "0"));
    assert.equal(cast("storage", token, "2"), "0x" + SUPPLY.toString(16).padStart(64, "0"), "slot 2: _totalSupply");
  });

  await step("cast estimate + cast send transfer(address,uint256) with that gas limit", async () => {
    const amount = 1_000_000_007n;
    const estimate = big(cast("estimate", token, "transfer(address,uint256)", RECIPIENT, amount.toString(), "--from", ME));
    const rc = json("send", "--private-key", KEY, "--gas-limit", estimate.toString(), token, "transfer(address,uint256)", RECIPIENT, amount.toString());
    expectMyBalance -= checkReceipt(rc, token);
    assert.equal(big(json("tx", rc.transactionHash).gas), estimate, "tx gas = estimate");
    assert.ok(big(rc.gasUsed) <= estimate, `gasUsed ${big(rc.gasUsed)} <= estimate ${estimate}`);
    assert.deepEqual(callOut(token, "balanceOf(address)(uint256)", ME), [(SUPPLY - amount).toString()]);
    assert.deepEqual(callOut(token, "balanceOf(address)(uint256)", RECIPIENT), [amount.toString()]);
    const before = (big(rc.blockNumber) - 1n).toString();
    assert.deepEqual(callOut(token, "balanceOf(address)(uint256)", ME, "--block", before), [SUPPLY.toString()], "balanceOf before the transfer");
    assert.equal(big(cast("storage", token, cast("index", "address", ME, "0"), "--block", before)), SUPPLY, "cast storage before the transfer");
    assert.equal(big(cast("storage", token, cast("index", "address", RECIPIENT, "0"))), amount);
    assert.equal(cast("balance", ME), expectMyBalance.toString(), "sender pays only the fee");
    // The Transfer log, in the receipt and from cast logs (eth_getLogs).
    const topics = [
      cast("keccak", "Transfer(address,address,uint256)"),
      "0x" + "0".repeat(24) + ME.slice(2).toLowerCase(),
      "0x" + "0".repeat(24) + RECIPIENT.slice(2).toLowerCase(),
    ];
    assert.equal(rc.logs.length, 1);
    assert.deepEqual(rc.logs[0].topics, topics);
    assert.equal(rc.logs[0].data, "0x" + amount.toString(16).padStart(64, "0"));
    const logs = json("logs", "--from-block", "0", "--address", token, "Transfer(address indexed,address indexed,uint256)", ME, RECIPIENT);
    assert.deepEqual(logs.map((l) => [l.transactionHash, l.blockNumber, l.topics.join(), l.data]), [[rc.transactionHash, rc.blockNumber, topics.join(), rc.logs[0].data]]);
    rcTransfer = rc;
  });

  await step("revert: transfer beyond the balance -> ERC20InsufficientBalance data", async () => {
    const have = SUPPLY - 1_000_000_007n;
    const want = cast("sig", "ERC20InsufficientBalance(address,uint256,uint256)") + cast("abi-encode", "f(address,uint256,uint256)", ME, have.toString(), (have + 1n).toString()).slice(2);
    for (const cmd of ["call", "estimate"]) {
      const err = castFails(cmd, token, "transfer(address,uint256)", RECIPIENT, (have + 1n).toString(), "--from", ME);
      const m = err.match(/error code 3: execution reverted, data: "(0x[0-9a-f]*)"/);
      assert.ok(m, `cast ${cmd}: revert error with data, got: ${err}`);
      assert.equal(m[1], want, `cast ${cmd}: revert data`);
    }
    const decoded = cast("decode-error", "--sig", "ERC20InsufficientBalance(address,uint256,uint256)", want);
    // One value a line; integers carry cast's "[2.099e25]" annotation.
    assert.deepEqual(decoded.split("\n").map((l) => l.split(" ")[0]), [ME, `${have}`, `${have + 1n}`]);
    // cast send refuses to send it (its gas estimate reverts): nothing sent.
    castFails("send", "--private-key", KEY, token, "transfer(address,uint256)", RECIPIENT, (have + 1n).toString());
    assert.equal(cast("nonce", ME), String(NONCE0 + sent));
  });

  await step("cast proof (eth_getProof) agrees with cast storage", async () => {
    const slot = cast("index", "address", ME, "0");
    const p = json("proof", token, slot, "--block", rcTransfer.blockNumber);
    assert.equal(p.storageProof.length, 1);
    assert.equal(p.storageProof[0].key, slot);
    assert.equal(big(p.storageProof[0].value), SUPPLY - 1_000_000_007n);
    assert.equal(big(p.nonce), 1n);
    assert.equal(p.codeHash, cast("keccak", Token.deployedBytecode));
    assert.ok(p.accountProof.length > 0 && p.storageProof[0].proof.length > 0);
  });

  await step("final: nonce and native balance to the wei", async () => {
    assert.equal(sent, 3);
    assert.equal(cast("nonce", ME), String(NONCE0 + 3));
    assert.equal(cast("balance", ME), expectMyBalance.toString());
    assert.equal(cast("balance", RECIPIENT), "3141592653589793238");
    assert.equal(cast("balance", ME, "--block", rcSend.blockNumber), (expectMyBalance + feeOf(rcDeploy) + feeOf(rcTransfer)).toString(), "sender at the value transfer's block");
  });
});

function feeOf(rc) {
  return big(rc.gasUsed) * big(rc.effectiveGasPrice);
}
