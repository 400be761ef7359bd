// Ember end to end with ethers v6: JsonRpcProvider + Wallet + ContractFactory.
//
//   EMBER_RPC=http://127.0.0.1:8545 EMBER_WS=ws://127.0.0.1:8546 \
//   EMBER_KEYS=0x<key>,0x<key> node ethers.mjs
//
// EMBER_KEYS: two funded private keys (the sender, and a second holder). Every
// check compares an exact value; the first mismatch exits 1 with what differed.
import assert from "node:assert/strict";
import {
  AbiCoder,
  ContractFactory,
  JsonRpcProvider,
  WebSocketProvider,
  Wallet,
  decodeRlp,
  getAddress,
  getCreateAddress,
  id,
  keccak256,
  toBeHex,
  toQuantity,
  zeroPadValue,
} from "ethers";
import { env, loadArtifact, makeProofVerifier, run, step } from "./lib.mjs";

const RPC = env("EMBER_RPC");
const WS = process.env.EMBER_WS || "";
const KEYS = env("EMBER_KEYS").split(",");
if (KEYS.length < 2) throw new Error("EMBER_KEYS: want at least 2 keys");

const Token = loadArtifact("EmberToken");
const NFT = loadArtifact("EmberNFT");
const SUPPLY = 1_000_000n * 10n ** 18n;
const TRANSFER_TOPIC = id("Transfer(address,address,uint256)");

// pollingInterval: tx.wait() polls for new blocks; Ember makes one within
// milliseconds of a tx arriving, so the 4 s default would only add latency.
// cacheTimeout -1: no caching of identical requests (by default ethers answers
// a repeated request within 250 ms from its cache, e.g. a balance read right
// after a receipt, or a null receipt that then waits for the next block).
const provider = new JsonRpcProvider(RPC, undefined, { pollingInterval: 50, cacheTimeout: -1 });
const wallet = new Wallet(KEYS[0], provider);
const alice = new Wallet(KEYS[1], provider);
const ME = wallet.address;
const NONCE0 = await provider.getTransactionCount(ME);
const ALICE_NONCE0 = await provider.getTransactionCount(alice.address);
// Fresh addresses (no balance, no code) for this run, which receive native
// value and tokens.
const fresh = (name) => getAddress("0x" + keccak256(Buffer.from(`ember ethers ${name} ${ME} ${NONCE0}`)).slice(-40));
const RECIPIENT = fresh("recipient");
const NOBODY = fresh("nobody");
let sent = 0; // txs sent from ME

// --- Merkle-Patricia proof verification with ethers' decodeRlp and keccak256 (lib.mjs) ---

const verifyProof = makeProofVerifier(keccak256, decodeRlp);

const rlpInt = (hex) => (hex === "0x" ? 0n : BigInt(hex));

// verifyGetProof checks an eth_getProof answer against the stateRoot of a
// block: the account leaf [nonce, balance, storageHash, codeHash] equals the
// answer's fields, and each storage proof proves its value under storageHash.
async function verifyGetProof(res, stateRoot, address, slots) {
  assert.equal(getAddress(res.address), address, "eth_getProof address");
  const leaf = verifyProof(stateRoot, address, res.accountProof);
  if (leaf === null) {
    assert.equal(BigInt(res.balance), 0n, "absent account: balance");
    assert.equal(BigInt(res.nonce), 0n, "absent account: nonce");
  } else {
    const [nonce, balance, storageHash, codeHash] = decodeRlp(leaf);
    assert.equal(rlpInt(nonce), BigInt(res.nonce), "account leaf nonce vs proof.nonce");
    assert.equal(rlpInt(balance), BigInt(res.balance), "account leaf balance vs proof.balance");
    assert.equal(storageHash, res.storageHash, "account leaf storageRoot vs proof.storageHash");
    assert.equal(codeHash, res.codeHash, "account leaf codeHash vs proof.codeHash");
  }
  assert.equal(res.storageProof.length, slots.length, "storageProof entries");
  const values = [];
  for (let i = 0; i < slots.length; i++) {
    const sp = res.storageProof[i];
    assert.equal(sp.key, slots[i], `storageProof[${i}].key`);
    const v = verifyProof(res.storageHash, sp.key, sp.proof);
    const proven = v === null ? 0n : rlpInt(decodeRlp(v));
    assert.equal(proven, BigInt(sp.value), `storageProof[${i}]: proven value vs .value`);
    values.push(proven);
  }
  return { leaf, values };
}

// --- receipts and fees ---

// checkReceipt checks a receipt of a type-2 tx from `from` that succeeded and
// returns its fee (gasUsed * effectiveGasPrice).
async function checkReceipt(rc, from, to) {
  assert.equal(rc.status, 1, `receipt ${rc.hash}: status`);
  if (from === ME) {
    const tx = await provider.getTransaction(rc.hash);
    assert.equal(tx.nonce, NONCE0 + sent, "tx nonce: one more than the sender's previous tx");
    sent++;
  }
  assert.equal(rc.type, 2, "receipt type");
  assert.equal(rc.from, from, "receipt from");
  assert.equal(rc.to, to, "receipt to");
  const [tx, block, raw] = await Promise.all([
    provider.getTransaction(rc.hash),
    provider.getBlock(rc.blockNumber),
    provider.send("eth_getTransactionReceipt", [rc.hash]),
  ]);
  assert.equal(tx.type, 2, "tx type");
  assert.equal(tx.chainId, 31337n, "tx chainId");
  assert.equal(tx.blockNumber, rc.blockNumber, "tx blockNumber");
  assert.equal(tx.blockHash, rc.blockHash, "tx blockHash");
  assert.equal(block.hash, rc.blockHash, "block hash of the receipt's block number");
  assert.equal(block.transactions[rc.index], rc.hash, "tx at the receipt's index in its block");
  assert.match(raw.effectiveGasPrice ?? "", /^0x[0-9a-f]+$/, "raw receipt effectiveGasPrice");
  const effective = block.baseFeePerGas + min(tx.maxPriorityFeePerGas, tx.maxFeePerGas - block.baseFeePerGas);
  assert.equal(BigInt(raw.effectiveGasPrice), effective, "effectiveGasPrice = baseFee + min(tip, maxFee - baseFee)");
  assert.equal(rc.gasPrice, effective, "receipt.gasPrice (ethers' effectiveGasPrice)");
  assert.ok(rc.gasUsed <= tx.gasLimit, `gasUsed ${rc.gasUsed} <= gasLimit ${tx.gasLimit}`);
  assert.equal(rc.fee, rc.gasUsed * effective, "receipt.fee");
  return rc.gasUsed * effective;
}
const min = (a, b) => (a < b ? a : b);

// --- the run ---

let token, nft, tokenAddr, nftAddr;
let startBalance, expectMyBalance; // the sender's native balance, tracked to the wei
const receipts = {};

await run("ethers", async () => {
  await step("eth_chainId is 31337", async () => {
    assert.equal(await provider.send("eth_chainId", []), "0x7a69");
    assert.equal((await provider.getNetwork()).chainId, 31337n);
    assert.equal(await provider.send("net_version", []), "31337");
  });

  startBalance = expectMyBalance = await provider.getBalance(ME);

  await step("deploy EmberToken (ContractFactory)", async () => {
    const nonce = await provider.getTransactionCount(ME);
    token = await new ContractFactory(Token.abi, Token.bytecode, wallet).deploy(SUPPLY);
    const rc = await token.deploymentTransaction().wait();
    tokenAddr = await token.getAddress();
    assert.equal(rc.contractAddress, getCreateAddress({ from: ME, nonce }), "contractAddress = getCreateAddress(from, nonce)");
    assert.equal(tokenAddr, rc.contractAddress);
    expectMyBalance -= await checkReceipt(rc, ME, null);
    assert.equal(await provider.getTransactionCount(ME), nonce + 1, "nonce after deploy");
    assert.equal(await provider.getCode(tokenAddr), Token.deployedBytecode, "eth_getCode = artifact deployedBytecode");
    assert.equal(await token.totalSupply(), SUPPLY);
    assert.equal(await token.balanceOf(ME), SUPPLY);
    assert.equal(await token.name(), "Ember Token");
    assert.equal(await token.symbol(), "EMB");
    assert.equal(await token.decimals(), 18n);
    // The mint's Transfer(0 -> deployer, SUPPLY).
    assert.equal(rc.logs.length, 1, "deploy logs");
    const log = rc.logs[0];
    assert.equal(log.address, tokenAddr);
    assert.deepEqual(log.topics, [TRANSFER_TOPIC, zeroPadValue("0x", 32), zeroPadValue(ME, 32)]);
    assert.equal(log.data, toBeHex(SUPPLY, 32));
    assert.equal(await provider.getBalance(ME), expectMyBalance, "sender balance after deploy: fee charged exactly");
    receipts.tokenDeploy = rc;
  });

  await step("deploy EmberNFT", async () => {
    const nonce = await provider.getTransactionCount(ME);
    nft = await new ContractFactory(NFT.abi, NFT.bytecode, wallet).deploy();
    const rc = await nft.deploymentTransaction().wait();
    nftAddr = await nft.getAddress();
    assert.equal(rc.contractAddress, getCreateAddress({ from: ME, nonce }));
    assert.equal(nftAddr, rc.contractAddress);
    expectMyBalance -= await checkReceipt(rc, ME, null);
    assert.equal(await provider.getCode(nftAddr), NFT.deployedBytecode, "eth_getCode = artifact deployedBytecode");
    assert.equal(await nft.name(), "Ember NFT");
    assert.equal(await nft.symbol(), "EMBN");
    assert.equal(await nft.nextId(), 1n);
    assert.equal(rc.logs.length, 0);
  });

  await step("native transfer: exact balances, historical getBalance", async () => {
    const value = 1_234_567_891_234_567_891n;
    const before = await provider.getBalance(ME);
    assert.equal(before, expectMyBalance);
    assert.equal(await provider.getBalance(RECIPIENT), 0n);
    const tx = await wallet.sendTransaction({ to: RECIPIENT, value });
    const rc = await tx.wait();
    assert.equal(rc.gasUsed, 21000n, "gasUsed of a plain transfer");
    const fee = await checkReceipt(rc, ME, RECIPIENT);
    expectMyBalance -= value + fee;
    assert.equal(await provider.getBalance(ME), before - value - rc.gasUsed * rc.gasPrice, "sender: before - value - gasUsed*effectiveGasPrice");
    assert.equal(await provider.getBalance(ME), expectMyBalance);
    assert.equal(await provider.getBalance(RECIPIENT), value, "recipient: value");
    // History: the block before the transfer has the old balances.
    assert.equal(await provider.getBalance(ME, rc.blockNumber - 1), before, "sender at block before the transfer");
    assert.equal(await provider.getBalance(RECIPIENT, rc.blockNumber - 1), 0n, "recipient at block before the transfer");
    assert.equal(await provider.getBalance(RECIPIENT, rc.blockNumber), value, "recipient at the transfer's block");
    assert.equal(await provider.getBalance(ME, receipts.tokenDeploy.blockNumber - 1), startBalance, "sender at the block before the first deploy");
    receipts.native = rc;
  });

  await step("ERC-20 transfer with estimateGas as gas limit; Transfer log", async () => {
    const amount = 123_456_789_000_000_000_000n;
    const estimate = await token.transfer.estimateGas(alice.address, amount);
    const tx = await token.transfer(alice.address, amount, { gasLimit: estimate });
    assert.equal(tx.gasLimit, estimate, "tx gasLimit = estimate");
    const rc = await tx.wait();
    expectMyBalance -= await checkReceipt(rc, ME, tokenAddr);
    assert.ok(rc.gasUsed <= estimate, `gasUsed ${rc.gasUsed} <= estimate ${estimate}`);
    assert.equal((await provider.getTransaction(rc.hash)).gasLimit, estimate);
    assert.equal(await token.balanceOf(ME), SUPPLY - amount);
    assert.equal(await token.balanceOf(alice.address), amount);
    assert.equal(await token.totalSupply(), SUPPLY);
    assert.equal(await provider.getBalance(ME), expectMyBalance, "sender pays only the fee");
    assert.equal(rc.logs.length, 1);
    const log = rc.logs[0];
    assert.equal(log.address, tokenAddr);
    assert.deepEqual(log.topics, [TRANSFER_TOPIC, zeroPadValue(ME, 32), zeroPadValue(alice.address, 32)]);
    assert.equal(log.data, toBeHex(amount, 32));
    assert.equal(log.transactionHash, rc.hash);
    assert.equal(log.blockNumber, rc.blockNumber);
    assert.equal(log.blockHash, rc.blockHash);
    assert.equal(log.transactionIndex, rc.index);
    const ev = token.interface.parseLog(log);
    assert.equal(ev.name, "Transfer");
    assert.deepEqual([...ev.args], [ME, alice.address, amount]);
    // Historical token balance (eth_call at an earlier block).
    assert.equal(await token.balanceOf(ME, { blockTag: rc.blockNumber - 1 }), SUPPLY, "balanceOf before the transfer");
    assert.equal(await token.balanceOf(alice.address, { blockTag: rc.blockNumber - 1 }), 0n);
    assert.equal(await token.balanceOf(ME, { blockTag: rc.blockNumber }), SUPPLY - amount);
    // eth_getLogs by topic: exactly the deploy's mint and this transfer.
    const logs = await token.queryFilter(token.filters.Transfer(), 0, rc.blockNumber);
    assert.deepEqual(logs.map((l) => [l.transactionHash, ...l.args]), [
      [receipts.tokenDeploy.hash, "0x0000000000000000000000000000000000000000", ME, SUPPLY],
      [rc.hash, ME, alice.address, amount],
    ]);
    receipts.tokenTransfer = rc;
  });

  await step("ERC-20 transfer from the second account (its own nonce and fee)", async () => {
    const amount = 1_000n;
    const aliceEth = await provider.getBalance(alice.address);
    const nonce = await provider.getTransactionCount(alice.address);
    const rc = await (await token.connect(alice).transfer(RECIPIENT, amount)).wait();
    const fee = await checkReceipt(rc, alice.address, tokenAddr);
    assert.equal(await provider.getBalance(alice.address), aliceEth - fee);
    assert.equal(await provider.getTransactionCount(alice.address), nonce + 1);
    assert.equal(await token.balanceOf(RECIPIENT), amount);
    assert.equal(await token.balanceOf(alice.address), 123_456_789_000_000_000_000n - amount);
  });

  await step("revert: ERC20InsufficientBalance decoded with exact args (eth_call, estimateGas)", async () => {
    const have = await token.balanceOf(ME);
    const revertData = token.interface.encodeErrorResult("ERC20InsufficientBalance", [ME, have, have + 1n]);
    // staticCall (eth_call): ethers decodes the custom error with the ABI.
    await assert.rejects(token.transfer.staticCall(NOBODY, have + 1n), (e) => {
      assert.equal(e.code, "CALL_EXCEPTION", e.message);
      assert.ok(e.revert, `revert not decoded: ${e.shortMessage} data=${e.data}`);
      assert.equal(e.revert.name, "ERC20InsufficientBalance");
      assert.equal(e.revert.signature, "ERC20InsufficientBalance(address,uint256,uint256)");
      assert.deepEqual([...e.revert.args], [ME, have, have + 1n], "error args");
      assert.equal(e.data, revertData, "revert data");
      return true;
    });
    // estimateGas: ethers passes the node's error through (CALL_EXCEPTION
    // with the revert data; contract.estimateGas does not decode it itself).
    await assert.rejects(token.transfer.estimateGas(NOBODY, have + 1n), (e) => {
      assert.equal(e.code, "CALL_EXCEPTION", e.message);
      assert.equal(e.data, revertData, "revert data");
      const err = token.interface.parseError(e.data);
      assert.equal(err.name, "ERC20InsufficientBalance");
      assert.deepEqual([...err.args], [ME, have, have + 1n]);
      return true;
    });
    // A transfer sent anyway (explicit gas limit, no estimate) is mined as
    // failed: status 0, gas charged, balances unchanged.
    const before = await provider.getBalance(ME);
    const tx = await token.transfer(NOBODY, have + 1n, { gasLimit: 100_000n });
    await assert.rejects(tx.wait(), (e) => {
      assert.equal(e.code, "CALL_EXCEPTION", e.message);
      assert.equal(e.receipt.status, 0, "failed tx: receipt status 0");
      return true;
    });
    const rc = await provider.getTransactionReceipt(tx.hash);
    assert.equal(rc.status, 0);
    assert.equal(rc.logs.length, 0);
    assert.ok(rc.gasUsed > 21000n && rc.gasUsed < 100_000n, `failed tx gasUsed ${rc.gasUsed}`);
    const fee = rc.gasUsed * rc.gasPrice;
    expectMyBalance -= fee;
    sent++;
    assert.equal(await provider.getBalance(ME), before - fee, "failed tx: fee charged, nothing else");
    assert.equal(await token.balanceOf(ME), have);
    assert.equal(await token.balanceOf(NOBODY), 0n);
    // ERC-721: an unminted id.
    await assert.rejects(() => nft.ownerOf(99n), (e) => {
      assert.equal(e.revert?.name, "ERC721NonexistentToken", e.message);
      assert.deepEqual([...e.revert.args], [99n]);
      return true;
    });
  });

  await step("mint NFTs: ids, ownerOf, balanceOf, Transfer logs", async () => {
    const owners = [RECIPIENT, ME, RECIPIENT];
    const mints = [];
    for (let i = 0; i < owners.length; i++) {
      assert.equal(await nft.mint.staticCall(owners[i]), BigInt(i + 1), "mint() return value (eth_call)");
      const rc = await (await nft.mint(owners[i])).wait();
      expectMyBalance -= await checkReceipt(rc, ME, nftAddr);
      assert.equal(rc.logs.length, 1);
      const log = rc.logs[0];
      assert.equal(log.address, nftAddr);
      assert.deepEqual(log.topics, [TRANSFER_TOPIC, zeroPadValue("0x", 32), zeroPadValue(owners[i], 32), toBeHex(i + 1, 32)]);
      assert.equal(log.data, "0x");
      assert.equal(log.index, 0, "log index in its block");
      const ev = nft.interface.parseLog(log);
      assert.deepEqual([...ev.args], ["0x0000000000000000000000000000000000000000", owners[i], BigInt(i + 1)]);
      mints.push(rc);
    }
    for (let i = 0; i < owners.length; i++) assert.equal(await nft.ownerOf(i + 1), owners[i], `ownerOf(${i + 1})`);
    assert.equal(await nft.balanceOf(RECIPIENT), 2n);
    assert.equal(await nft.balanceOf(ME), 1n);
    assert.equal(await nft.nextId(), 4n);
    const toRecipient = await nft.queryFilter(nft.filters.Transfer(null, RECIPIENT), 0, "latest");
    assert.deepEqual(toRecipient.map((l) => [l.transactionHash, l.blockNumber, l.args.tokenId]), [
      [mints[0].hash, mints[0].blockNumber, 1n],
      [mints[2].hash, mints[2].blockNumber, 3n],
    ]);
    // History: before the second mint, ME owned nothing.
    assert.equal(await nft.balanceOf(ME, { blockTag: mints[1].blockNumber - 1 }), 0n);
    assert.equal(await provider.getBalance(ME), expectMyBalance);
  });

  await step("eth_getProof: account and storage proofs verified against stateRoot", async () => {
    const rcT = receipts.tokenTransfer;
    const slotOf = (holder) => keccak256(AbiCoder.defaultAbiCoder().encode(["address", "uint256"], [holder, 0]));
    const slots = [slotOf(ME), slotOf(alice.address), slotOf(NOBODY)];
    for (const [blockNumber, want] of [
      [rcT.blockNumber - 1, [SUPPLY, 0n, 0n]],
      [rcT.blockNumber, [SUPPLY - 123_456_789_000_000_000_000n, 123_456_789_000_000_000_000n, 0n]],
    ]) {
      const block = await provider.getBlock(blockNumber);
      const res = await provider.send("eth_getProof", [tokenAddr, slots, toQuantity(blockNumber)]);
      const { leaf, values } = await verifyGetProof(res, block.stateRoot, tokenAddr, slots);
      assert.notEqual(leaf, null, "token account present");
      assert.equal(BigInt(res.nonce), 1n, "contract nonce (EIP-161)");
      assert.equal(BigInt(res.balance), 0n);
      assert.equal(res.codeHash, keccak256(Token.deployedBytecode), "codeHash = keccak256(code)");
      assert.deepEqual(values, want, `proven balances at block ${blockNumber}`);
      assert.equal(BigInt(await provider.getStorage(tokenAddr, slots[0], blockNumber)), want[0], "eth_getStorageAt agrees");
    }
    // The verifier rejects a proof against another block's root, and a
    // tampered node.
    const [b0, b1] = await Promise.all([provider.getBlock(rcT.blockNumber - 1), provider.getBlock(rcT.blockNumber)]);
    assert.notEqual(b0.stateRoot, b1.stateRoot);
    const res1 = await provider.send("eth_getProof", [tokenAddr, slots, toQuantity(rcT.blockNumber)]);
    assert.throws(() => verifyProof(b0.stateRoot, tokenAddr, res1.accountProof), /keccak256/, "proof against the previous block's stateRoot");
    const tampered = [...res1.storageProof[0].proof];
    const last = tampered.length - 1;
    tampered[last] = tampered[last].slice(0, -2) + (tampered[last].endsWith("00") ? "01" : "00");
    assert.throws(() => verifyProof(res1.storageHash, slots[0], tampered), /keccak256/, "tampered storage proof");
    // An externally owned account, and one that does not exist.
    const block = await provider.getBlock(receipts.native.blockNumber);
    const mine = await provider.send("eth_getProof", [RECIPIENT, [], toQuantity(block.number)]);
    const { leaf } = await verifyGetProof(mine, block.stateRoot, RECIPIENT, []);
    assert.notEqual(leaf, null);
    assert.equal(BigInt(mine.balance), 1_234_567_891_234_567_891n);
    assert.equal(mine.codeHash, keccak256("0x"));
    const none = await provider.send("eth_getProof", [NOBODY, [], toQuantity(block.number)]);
    assert.equal((await verifyGetProof(none, block.stateRoot, NOBODY, [])).leaf, null, "absent account: exclusion proof");
  });

  await step("nonces", async () => {
    // 2 deploys, 1 native transfer, 1 token transfer, 1 failed transfer, 3 mints.
    assert.equal(sent, 8);
    assert.equal(await provider.getTransactionCount(ME, "latest"), NONCE0 + 8);
    assert.equal(await provider.getTransactionCount(ME, "pending"), NONCE0 + 8);
    assert.equal(await provider.getTransactionCount(ME, receipts.native.blockNumber - 1), NONCE0 + 2, "nonce before the native transfer");
    assert.equal(await provider.getTransactionCount(ME, receipts.tokenDeploy.blockNumber - 1), NONCE0, "nonce before the first deploy");
    assert.equal(await provider.getTransactionCount(alice.address), ALICE_NONCE0 + 1);
  });

  if (WS) {
    await step("WebSocket: contract event subscription delivers a Transfer", async () => {
      const ws = new WebSocketProvider(WS);
      try {
        assert.equal((await ws.getNetwork()).chainId, 31337n);
        const tokenWs = token.connect(ws);
        const got = new Promise((resolve) => tokenWs.once("Transfer", (from, to, value, ev) => resolve({ from, to, value, hash: ev.log.transactionHash })));
        await ws.send("eth_blockNumber", []); // round trip after eth_subscribe
        await new Promise((r) => setTimeout(r, 100));
        const rc = await (await token.transfer(NOBODY, 42n)).wait();
        expectMyBalance -= await checkReceipt(rc, ME, tokenAddr);
        const ev = await Promise.race([got, new Promise((_, rej) => setTimeout(() => rej(new Error("no Transfer event over WebSocket within 10s")), 10_000))]);
        assert.deepEqual(ev, { from: ME, to: NOBODY, value: 42n, hash: rc.hash });
      } finally {
        await ws.destroy();
      }
    });
  }

  await step("final native balance to the wei", async () => {
    assert.equal(await provider.getBalance(ME), expectMyBalance);
  });
});
