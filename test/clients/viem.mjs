// Ember end to end with viem 2: a custom chain (id 31337), a public client and
// a wallet client over http transport, a public client over webSocket.
//
//   EMBER_RPC=http://127.0.0.1:8545 EMBER_WS=ws://127.0.0.1:8546 \
//   EMBER_KEYS=0x<key>,0x<key> node viem.mjs
//
// EMBER_KEYS: two funded private keys (the sender, and a second holder). Every
// check compares an exact value; the first mismatch exits 1 with what differed.
import assert from "node:assert/strict";
import {
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  encodeAbiParameters,
  encodeErrorResult,
  fromRlp,
  getAddress,
  getContractAddress,
  http,
  keccak256,
  numberToHex,
  pad,
  parseEventLogs,
  stringToHex,
  toEventSelector,
  webSocket,
  zeroAddress,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { env, loadArtifact, makeProofVerifier, run, step } from "./lib.mjs";

const RPC = env("EMBER_RPC");
const WS = process.env.EMBER_WS || "";
const KEYS = env("EMBER_KEYS").split(",");
if (KEYS.length < 2) throw new Error("EMBER_KEYS: want at least 2 keys");

const Token = loadArtifact("EmberToken");
const NFT = loadArtifact("EmberNFT");
const SUPPLY = 5_000_000n * 10n ** 18n;
const TRANSFER_TOPIC = toEventSelector("Transfer(address,address,uint256)");

const ember = defineChain({
  id: 31337,
  name: "Ember dev",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [RPC], webSocket: WS ? [WS] : [] } },
});
// pollingInterval: waitForTransactionReceipt polls; Ember makes a block within
// milliseconds of a tx arriving, so the 4 s default would only add latency.
// cacheTime 0: getBlockNumber answers from the node, not a 4 s cache.
const client = createPublicClient({ chain: ember, transport: http(RPC), pollingInterval: 50, cacheTime: 0 });
const account = privateKeyToAccount(KEYS[0]);
const aliceAccount = privateKeyToAccount(KEYS[1]);
const wallet = createWalletClient({ account, chain: ember, transport: http(RPC), pollingInterval: 50, cacheTime: 0 });
const aliceWallet = createWalletClient({ account: aliceAccount, chain: ember, transport: http(RPC), pollingInterval: 50, cacheTime: 0 });
const ME = account.address;
const ALICE = aliceAccount.address;
const NONCE0 = await client.getTransactionCount({ address: ME });
const ALICE_NONCE0 = await client.getTransactionCount({ address: ALICE });
// Fresh addresses (no balance, no code) for this run.
const fresh = (name) => getAddress("0x" + keccak256(stringToHex(`ember viem ${name} ${ME} ${NONCE0}`)).slice(-40));
const RECIPIENT = fresh("recipient");
const NOBODY = fresh("nobody");
let sent = 0; // txs sent from ME

// --- Merkle-Patricia proof verification with viem's fromRlp and keccak256 (lib.mjs) ---

const verifyProof = makeProofVerifier(keccak256, (hex) => fromRlp(hex, "hex"));

const rlpInt = (hex) => (hex === "0x" ? 0n : BigInt(hex));

// verifyGetProof checks a getProof answer against stateRoot: the account leaf
// [nonce, balance, storageHash, codeHash] equals the answer's fields, and
// each storage proof proves its value under storageHash. Returns the leaf (null
// when absent) and the proven storage values.
function verifyGetProof(res, stateRoot, address, slots) {
  assert.equal(getAddress(res.address), address, "getProof address");
  const leaf = verifyProof(stateRoot, address, res.accountProof);
  if (leaf === null) {
    assert.equal(res.balance, 0n, "absent account: balance");
    assert.equal(res.nonce, 0, "absent account: nonce");
  } else {
    const [nonce, balance, storageHash, codeHash] = fromRlp(leaf, "hex");
    assert.equal(rlpInt(nonce), BigInt(res.nonce), "account leaf nonce vs proof.nonce");
    assert.equal(rlpInt(balance), res.balance, "account leaf balance vs proof.balance");
    assert.equal(storageHash, res.storageHash, "account leaf storageRoot vs proof.storageHash");
    assert.equal(codeHash, res.codeHash, "account leaf codeHash vs proof.codeHash");
  }
  assert.equal(res.storageProof.length, slots.length, "storageProof entries");
  const values = [];
  for (let i = 0; i < slots.length; i++) {
    const sp = res.storageProof[i];
    assert.equal(sp.key, slots[i], `storageProof[${i}].key`);
    const v = verifyProof(res.storageHash, sp.key, sp.proof);
    const proven = v === null ? 0n : rlpInt(fromRlp(v, "hex"));
    assert.equal(proven, sp.value, `storageProof[${i}]: proven value vs .value`);
    values.push(proven);
  }
  return { leaf, values };
}

// --- receipts and fees ---

const min = (a, b) => (a < b ? a : b);

// mined waits for hash's receipt, checks it (status success, type eip1559,
// effectiveGasPrice exact, block agrees) and returns it with its fee.
async function mined(hash, from, to, { status = "success" } = {}) {
  const rc = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  assert.equal(rc.status, status, `receipt ${hash}: status`);
  assert.equal(rc.type, "eip1559", "receipt type");
  assert.equal(rc.from, from.toLowerCase(), "receipt from");
  assert.equal(rc.to, to && to.toLowerCase(), "receipt to");
  const [tx, block, raw] = await Promise.all([
    client.getTransaction({ hash }),
    client.getBlock({ blockNumber: rc.blockNumber }),
    client.request({ method: "eth_getTransactionReceipt", params: [hash] }),
  ]);
  assert.equal(raw.type, "0x2", "raw receipt type");
  assert.equal(raw.status, status === "success" ? "0x1" : "0x0", "raw receipt status");
  assert.match(raw.effectiveGasPrice ?? "", /^0x[0-9a-f]+$/, "raw receipt effectiveGasPrice");
  assert.equal(tx.type, "eip1559", "tx type");
  assert.equal(tx.chainId, 31337, "tx chainId");
  assert.equal(tx.blockHash, rc.blockHash);
  assert.equal(block.hash, rc.blockHash, "block hash of the receipt's block number");
  assert.equal(block.transactions[rc.transactionIndex], hash, "tx at the receipt's index in its block");
  const effective = block.baseFeePerGas + min(tx.maxPriorityFeePerGas, tx.maxFeePerGas - block.baseFeePerGas);
  assert.equal(rc.effectiveGasPrice, effective, "effectiveGasPrice = baseFee + min(tip, maxFee - baseFee)");
  assert.ok(rc.gasUsed <= tx.gas, `gasUsed ${rc.gasUsed} <= gas ${tx.gas}`);
  if (from === ME) {
    assert.equal(tx.nonce, NONCE0 + sent, "tx nonce: one more than the sender's previous tx");
    sent++;
  }
  return { rc, tx, fee: rc.gasUsed * rc.effectiveGasPrice };
}

// --- the run ---

let tokenAddr, nftAddr;
let startBalance, expectMyBalance; // the sender's native balance, tracked to the wei
const receipts = {};
const token = () => ({ address: tokenAddr, abi: Token.abi });
const nft = () => ({ address: nftAddr, abi: NFT.abi });
const read = (c, functionName, args = [], extra = {}) => client.readContract({ ...c, functionName, args, ...extra });

await run("viem", async () => {
  await step("eth_chainId is 31337", async () => {
    assert.equal(await client.getChainId(), 31337);
    assert.equal(await wallet.getChainId(), 31337);
    assert.equal(await client.request({ method: "eth_chainId" }), "0x7a69");
  });

  startBalance = expectMyBalance = await client.getBalance({ address: ME });

  await step("deploy EmberToken (deployContract)", async () => {
    const nonce = await client.getTransactionCount({ address: ME });
    const hash = await wallet.deployContract({ abi: Token.abi, bytecode: Token.bytecode, args: [SUPPLY] });
    const { rc, fee } = await mined(hash, ME, null);
    tokenAddr = rc.contractAddress;
    assert.equal(getAddress(tokenAddr), getContractAddress({ from: ME, nonce: BigInt(nonce) }), "contractAddress = getContractAddress(from, nonce)");
    tokenAddr = getAddress(tokenAddr);
    expectMyBalance -= fee;
    assert.equal(await client.getTransactionCount({ address: ME }), nonce + 1);
    assert.equal(await client.getCode({ address: tokenAddr }), Token.deployedBytecode, "eth_getCode = artifact deployedBytecode");
    assert.equal(await read(token(), "totalSupply"), SUPPLY);
    assert.equal(await read(token(), "balanceOf", [ME]), SUPPLY);
    assert.equal(await read(token(), "name"), "Ember Token");
    assert.equal(await read(token(), "symbol"), "EMB");
    assert.equal(await read(token(), "decimals"), 18);
    const events = parseEventLogs({ abi: Token.abi, logs: rc.logs });
    assert.equal(events.length, 1);
    assert.equal(events[0].eventName, "Transfer");
    assert.deepEqual(events[0].args, { from: zeroAddress, to: ME, value: SUPPLY });
    assert.deepEqual(rc.logs[0].topics, [TRANSFER_TOPIC, pad(zeroAddress), pad(ME.toLowerCase())]);
    assert.equal(await client.getBalance({ address: ME }), expectMyBalance, "sender balance after deploy: fee charged exactly");
    receipts.tokenDeploy = rc;
  });

  await step("deploy EmberNFT", async () => {
    const nonce = await client.getTransactionCount({ address: ME });
    const hash = await wallet.deployContract({ abi: NFT.abi, bytecode: NFT.bytecode });
    const { rc, fee } = await mined(hash, ME, null);
    nftAddr = getAddress(rc.contractAddress);
    assert.equal(nftAddr, getContractAddress({ from: ME, nonce: BigInt(nonce) }));
    expectMyBalance -= fee;
    assert.equal(await client.getCode({ address: nftAddr }), NFT.deployedBytecode);
    assert.equal(await read(nft(), "name"), "Ember NFT");
    assert.equal(await read(nft(), "nextId"), 1n);
    assert.equal(rc.logs.length, 0);
  });

  await step("native transfer: exact balances, historical getBalance", async () => {
    const value = 2_718_281_828_459_045_235n;
    const before = await client.getBalance({ address: ME });
    assert.equal(before, expectMyBalance);
    assert.equal(await client.getBalance({ address: RECIPIENT }), 0n);
    const hash = await wallet.sendTransaction({ to: RECIPIENT, value });
    const { rc, fee } = await mined(hash, ME, RECIPIENT);
    assert.equal(rc.gasUsed, 21000n);
    expectMyBalance -= value + fee;
    assert.equal(await client.getBalance({ address: ME }), before - value - rc.gasUsed * rc.effectiveGasPrice, "sender: before - value - gasUsed*effectiveGasPrice");
    assert.equal(await client.getBalance({ address: RECIPIENT }), value);
    assert.equal(await client.getBalance({ address: ME, blockNumber: rc.blockNumber - 1n }), before, "sender at the block before the transfer");
    assert.equal(await client.getBalance({ address: RECIPIENT, blockNumber: rc.blockNumber - 1n }), 0n);
    assert.equal(await client.getBalance({ address: RECIPIENT, blockNumber: rc.blockNumber }), value);
    assert.equal(await client.getBalance({ address: ME, blockNumber: receipts.tokenDeploy.blockNumber - 1n }), startBalance, "sender at the block before the first deploy");
    receipts.native = rc;
  });

  await step("ERC-20 transfer with estimateContractGas as gas; Transfer log", async () => {
    const amount = 987_654_321_000_000_000_000n;
    const estimate = await client.estimateContractGas({ ...token(), functionName: "transfer", args: [ALICE, amount], account });
    const hash = await wallet.writeContract({ ...token(), functionName: "transfer", args: [ALICE, amount], gas: estimate });
    const { rc, tx, fee } = await mined(hash, ME, tokenAddr);
    expectMyBalance -= fee;
    assert.equal(tx.gas, estimate, "tx gas = estimate");
    assert.ok(rc.gasUsed <= estimate, `gasUsed ${rc.gasUsed} <= estimate ${estimate}`);
    assert.equal(await read(token(), "balanceOf", [ME]), SUPPLY - amount);
    assert.equal(await read(token(), "balanceOf", [ALICE]), amount);
    assert.equal(await client.getBalance({ address: ME }), expectMyBalance, "sender pays only the fee");
    const [ev] = parseEventLogs({ abi: Token.abi, logs: rc.logs, eventName: "Transfer" });
    assert.equal(rc.logs.length, 1);
    assert.deepEqual(ev.args, { from: ME, to: ALICE, value: amount });
    assert.deepEqual(ev.topics, [TRANSFER_TOPIC, pad(ME.toLowerCase()), pad(ALICE.toLowerCase())]);
    assert.equal(ev.data, numberToHex(amount, { size: 32 }));
    assert.equal(getAddress(ev.address), tokenAddr);
    assert.equal(ev.blockNumber, rc.blockNumber);
    assert.equal(ev.transactionHash, hash);
    assert.equal(ev.transactionIndex, rc.transactionIndex);
    // Historical reads (eth_call at a block number).
    assert.equal(await read(token(), "balanceOf", [ME], { blockNumber: rc.blockNumber - 1n }), SUPPLY);
    assert.equal(await read(token(), "balanceOf", [ALICE], { blockNumber: rc.blockNumber - 1n }), 0n);
    // eth_getLogs with an indexed-argument filter.
    const logs = await client.getContractEvents({ ...token(), eventName: "Transfer", args: { to: ALICE }, fromBlock: 0n, toBlock: rc.blockNumber });
    assert.deepEqual(logs.map((l) => [l.transactionHash, l.args.from, l.args.to, l.args.value]), [[hash, ME, ALICE, amount]]);
    receipts.tokenTransfer = rc;
  });

  await step("ERC-20 transfer from the second account (its own nonce and fee)", async () => {
    const aliceEth = await client.getBalance({ address: ALICE });
    const hash = await aliceWallet.writeContract({ ...token(), functionName: "transfer", args: [RECIPIENT, 7n] });
    const { tx, fee } = await mined(hash, ALICE, tokenAddr);
    assert.equal(tx.nonce, ALICE_NONCE0);
    assert.equal(await client.getBalance({ address: ALICE }), aliceEth - fee);
    assert.equal(await client.getTransactionCount({ address: ALICE }), ALICE_NONCE0 + 1);
    assert.equal(await read(token(), "balanceOf", [RECIPIENT]), 7n);
    assert.equal(await read(token(), "balanceOf", [ALICE]), 987_654_321_000_000_000_000n - 7n);
  });

  await step("revert: ERC20InsufficientBalance decoded with exact args", async () => {
    const have = await read(token(), "balanceOf", [ME]);
    const revertData = encodeErrorResult({ abi: Token.abi, errorName: "ERC20InsufficientBalance", args: [ME, have, have + 1n] });
    const isRevert = (what) => (e) => {
      const r = e.walk?.((x) => x instanceof ContractFunctionRevertedError);
      assert.ok(r instanceof ContractFunctionRevertedError, `${what}: no ContractFunctionRevertedError in ${e.name}: ${e.message}`);
      assert.equal(r.data?.errorName, "ERC20InsufficientBalance", `${what}: error name`);
      assert.deepEqual(r.data.args, [ME, have, have + 1n], `${what}: error args`);
      assert.equal(r.raw, revertData, `${what}: revert data`);
      return true;
    };
    const call = { ...token(), functionName: "transfer", args: [NOBODY, have + 1n], account };
    await assert.rejects(client.simulateContract(call), isRevert("simulateContract (eth_call)"));
    await assert.rejects(client.estimateContractGas(call), isRevert("estimateContractGas"));
    await assert.rejects(wallet.writeContract({ ...token(), functionName: "transfer", args: [NOBODY, have + 1n] }), isRevert("writeContract"));
    // The raw eth_call error: code 3 with the revert data.
    await assert.rejects(
      client.request({ method: "eth_call", params: [{ from: ME, to: tokenAddr, data: encodeTransfer(NOBODY, have + 1n) }, "latest"] }),
      (e) => {
        const rpc = e.walk((x) => x.code === 3);
        assert.ok(rpc, `eth_call: no error with code 3: ${e.message}`);
        assert.equal(rpc.data, revertData, "eth_call error data");
        assert.equal(decodeErrorResult({ abi: Token.abi, data: rpc.data }).errorName, "ERC20InsufficientBalance");
        return true;
      },
    );
    await assert.rejects(read(nft(), "ownerOf", [99n]), (e) => {
      const r = e.walk((x) => x instanceof ContractFunctionRevertedError);
      assert.equal(r?.data?.errorName, "ERC721NonexistentToken", e.message);
      assert.deepEqual(r.data.args, [99n]);
      return true;
    });
    assert.equal(await read(token(), "balanceOf", [ME]), have);
  });

  await step("mint NFTs: simulateContract result, ownerOf, balanceOf, Transfer logs", async () => {
    const owners = [ALICE, RECIPIENT, ALICE, ME];
    const mints = [];
    for (let i = 0; i < owners.length; i++) {
      const { result, request } = await client.simulateContract({ ...nft(), functionName: "mint", args: [owners[i]], account });
      assert.equal(result, BigInt(i + 1), "mint() return value (simulateContract)");
      const hash = await wallet.writeContract(request);
      const { rc, fee } = await mined(hash, ME, nftAddr);
      expectMyBalance -= fee;
      assert.equal(rc.logs.length, 1);
      const log = rc.logs[0];
      assert.equal(getAddress(log.address), nftAddr);
      assert.deepEqual(log.topics, [TRANSFER_TOPIC, pad(zeroAddress), pad(owners[i].toLowerCase()), numberToHex(i + 1, { size: 32 })]);
      assert.equal(log.data, "0x");
      assert.equal(log.logIndex, 0);
      const [ev] = parseEventLogs({ abi: NFT.abi, logs: rc.logs });
      assert.deepEqual(ev.args, { from: zeroAddress, to: owners[i], tokenId: BigInt(i + 1) });
      mints.push(rc);
    }
    for (let i = 0; i < owners.length; i++) assert.equal(await read(nft(), "ownerOf", [BigInt(i + 1)]), owners[i], `ownerOf(${i + 1})`);
    assert.equal(await read(nft(), "balanceOf", [ALICE]), 2n);
    assert.equal(await read(nft(), "balanceOf", [RECIPIENT]), 1n);
    assert.equal(await read(nft(), "balanceOf", [ME]), 1n);
    assert.equal(await read(nft(), "nextId"), 5n);
    const toAlice = await client.getContractEvents({ ...nft(), eventName: "Transfer", args: { to: ALICE }, fromBlock: 0n });
    assert.deepEqual(toAlice.map((l) => [l.transactionHash, l.blockNumber, l.args.tokenId]), [
      [mints[0].transactionHash, mints[0].blockNumber, 1n],
      [mints[2].transactionHash, mints[2].blockNumber, 3n],
    ]);
    assert.equal(await read(nft(), "nextId", [], { blockNumber: mints[1].blockNumber }), 3n, "nextId at the second mint's block");
    assert.equal(await client.getBalance({ address: ME }), expectMyBalance);
  });

  await step("eth_getProof: account and storage proofs verified against stateRoot", async () => {
    const rcT = receipts.tokenTransfer;
    const amount = 987_654_321_000_000_000_000n;
    const slotOf = (holder) => keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [holder, 0n]));
    const slots = [slotOf(ME), slotOf(ALICE), slotOf(NOBODY)];
    for (const [blockNumber, want] of [
      [rcT.blockNumber - 1n, [SUPPLY, 0n, 0n]],
      [rcT.blockNumber, [SUPPLY - amount, amount, 0n]],
    ]) {
      const block = await client.getBlock({ blockNumber });
      const res = await client.getProof({ address: tokenAddr, storageKeys: slots, blockNumber });
      const { leaf, values } = verifyGetProof(res, block.stateRoot, tokenAddr, slots);
      assert.notEqual(leaf, null, "token account present");
      assert.equal(res.nonce, 1, "contract nonce (EIP-161)");
      assert.equal(res.balance, 0n);
      assert.equal(res.codeHash, keccak256(Token.deployedBytecode), "codeHash = keccak256(code)");
      assert.deepEqual(values, want, `proven balances at block ${blockNumber}`);
      assert.equal(BigInt(await client.getStorageAt({ address: tokenAddr, slot: slots[0], blockNumber })), want[0], "eth_getStorageAt agrees");
    }
    // The verifier rejects a proof against another block's root, and a
    // tampered node.
    const prev = await client.getBlock({ blockNumber: rcT.blockNumber - 1n });
    const res = await client.getProof({ address: tokenAddr, storageKeys: slots, blockNumber: rcT.blockNumber });
    assert.throws(() => verifyProof(prev.stateRoot, tokenAddr, res.accountProof), /keccak256/);
    const tampered = [...res.storageProof[1].proof];
    tampered[0] = tampered[0].slice(0, -2) + (tampered[0].endsWith("00") ? "01" : "00");
    assert.throws(() => verifyProof(res.storageHash, slots[1], tampered), /keccak256/);
    // An externally owned account, and one that does not exist.
    const block = await client.getBlock({ blockNumber: receipts.native.blockNumber });
    const eoa = await client.getProof({ address: RECIPIENT, storageKeys: [], blockNumber: block.number });
    assert.notEqual(verifyGetProof(eoa, block.stateRoot, RECIPIENT, []).leaf, null);
    assert.equal(eoa.balance, 2_718_281_828_459_045_235n);
    assert.equal(eoa.nonce, 0);
    assert.equal(eoa.codeHash, keccak256("0x"));
    const none = await client.getProof({ address: NOBODY, storageKeys: [], blockNumber: block.number });
    assert.equal(verifyGetProof(none, block.stateRoot, NOBODY, []).leaf, null, "absent account: exclusion proof");
  });

  await step("nonces", async () => {
    // 2 deploys, 1 native transfer, 1 token transfer, 4 mints.
    assert.equal(sent, 8);
    assert.equal(await client.getTransactionCount({ address: ME }), NONCE0 + 8);
    assert.equal(await client.getTransactionCount({ address: ME, blockTag: "pending" }), NONCE0 + 8);
    assert.equal(await client.getTransactionCount({ address: ME, blockNumber: receipts.native.blockNumber - 1n }), NONCE0 + 2);
    assert.equal(await client.getTransactionCount({ address: ALICE }), ALICE_NONCE0 + 1);
  });

  if (WS) {
    await step("webSocket transport: watchContractEvent delivers a Transfer", async () => {
      const ws = createPublicClient({ chain: ember, transport: webSocket(WS) });
      let unwatch;
      try {
        assert.equal(await ws.getChainId(), 31337);
        const got = new Promise((resolve, reject) => {
          unwatch = ws.watchContractEvent({ ...token(), eventName: "Transfer", onLogs: (logs) => resolve(logs), onError: reject });
        });
        await ws.request({ method: "eth_blockNumber" }); // round trip after eth_subscribe
        await new Promise((r) => setTimeout(r, 100));
        const hash = await wallet.writeContract({ ...token(), functionName: "transfer", args: [NOBODY, 42n] });
        const { fee } = await mined(hash, ME, tokenAddr);
        expectMyBalance -= fee;
        const logs = await Promise.race([got, new Promise((_, rej) => setTimeout(() => rej(new Error("no Transfer log over WebSocket within 10s")), 10_000))]);
        assert.deepEqual(logs.map((l) => [l.transactionHash, l.args.from, l.args.to, l.args.value]), [[hash, ME, NOBODY, 42n]]);
      } finally {
        unwatch?.();
        (await ws.transport.getRpcClient()).close();
      }
    });
  }

  await step("final native balance to the wei", async () => {
    assert.equal(await client.getBalance({ address: ME }), expectMyBalance);
  });
});

function encodeTransfer(to, amount) {
  return "0xa9059cbb" + encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [to, amount]).slice(2);
}
