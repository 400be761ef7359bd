// eth_simulateV1 through viem 2: simulateCalls (with traceTransfers and
// traceAssetChanges) and simulateBlocks (several blocks, state and block
// overrides, a revert decoded by the ABI, full transactions), and the
// validation errors viem surfaces.
//
//   EMBER_RPC=http://127.0.0.1:8545 EMBER_KEYS=0x<key> node simulate.mjs
//
// EMBER_KEYS: one funded private key. Every check compares an exact value;
// the first mismatch exits 1 with what differed.
import assert from "node:assert/strict";
import {
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  getAddress,
  http,
  keccak256,
  numberToHex,
  pad,
  parseEther,
  parseEventLogs,
  stringToHex,
  toEventSelector,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { env, loadArtifact, run, step } from "./lib.mjs";

const RPC = env("EMBER_RPC");
const [KEY] = env("EMBER_KEYS").split(",");

const Token = loadArtifact("EmberToken");
const SUPPLY = 1_000_000n * 10n ** 18n;
const TRANSFER_TOPIC = toEventSelector("Transfer(address,address,uint256)");
// ERC-7528: the address eth_simulateV1's traceTransfers logs ether moves from.
const ETH = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";

const ember = defineChain({
  id: 31337,
  name: "Ember dev",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [RPC] } },
});
const client = createPublicClient({ chain: ember, transport: http(RPC), pollingInterval: 50, cacheTime: 0 });
const account = privateKeyToAccount(KEY);
const wallet = createWalletClient({ account, chain: ember, transport: http(RPC), pollingInterval: 50, cacheTime: 0 });
const ME = account.address;
const NONCE0 = await client.getTransactionCount({ address: ME });
const fresh = (name) => getAddress("0x" + keccak256(stringToHex(`ember simulate ${name} ${ME} ${NONCE0}`)).slice(-40));
const RECIPIENT = fresh("recipient");
const POOR = fresh("poor");

// rpcCode is the JSON-RPC error code somewhere in viem's error chain.
function rpcCode(e) {
  for (let c = e; c; c = c.cause) if (typeof c.code === "number") return c.code;
  return undefined;
}

let tokenAddr;
// A contract call for simulateCalls/simulateBlocks ("to"); readContract and
// writeContract take "address".
const token = () => ({ to: tokenAddr, abi: Token.abi });
const tokenContract = () => ({ address: tokenAddr, abi: Token.abi });

await run("simulate (viem)", async () => {
  await step("deploy EmberToken (a real transaction, for the simulations to call)", async () => {
    const hash = await wallet.deployContract({ abi: Token.abi, bytecode: Token.bytecode, args: [SUPPLY] });
    const rc = await client.waitForTransactionReceipt({ hash });
    assert.equal(rc.status, "success");
    tokenAddr = rc.contractAddress;
  });

  const amount = 250n * 10n ** 18n;
  let simulatedGas;
  await step("simulateCalls: ether and token transfers, traceTransfers, traceAssetChanges", async () => {
    // A fixed base block: emberd dev also makes empty blocks on its own.
    const base = await client.getBlockNumber();
    const balance0 = await client.getBalance({ address: ME, blockNumber: base });
    const { results, assetChanges, block } = await client.simulateCalls({
      blockNumber: base,
      account: ME,
      traceTransfers: true,
      traceAssetChanges: true,
      calls: [
        { to: RECIPIENT, value: parseEther("1.5") },
        { ...token(), functionName: "transfer", args: [RECIPIENT, amount] },
        { ...token(), functionName: "balanceOf", args: [RECIPIENT] },
      ],
    });
    assert.equal(block.number, base + 1n, "the simulated block follows its base");
    assert.deepEqual(results.map((r) => r.status), ["success", "success", "success"]);
    assert.equal(results[0].gasUsed, 21000n, "plain transfer gas");
    assert.equal(results[2].result, amount, "balanceOf sees the transfer before it");
    // The ether transfer as an ERC-20 Transfer log from 0xeeee…eeee.
    assert.equal(results[0].logs.length, 1);
    const [eth] = results[0].logs;
    assert.equal(eth.address, ETH);
    assert.deepEqual(eth.topics, [TRANSFER_TOPIC, pad(ME.toLowerCase()), pad(RECIPIENT.toLowerCase())]);
    assert.equal(BigInt(eth.data), parseEther("1.5"));
    // The token's own Transfer event, decoded by viem.
    const [ev] = parseEventLogs({ abi: Token.abi, logs: results[1].logs, eventName: "Transfer" });
    assert.deepEqual(ev.args, { from: ME, to: RECIPIENT, value: amount });
    assert.equal(ev.address, tokenAddr);
    // Without validation the calls pay no fees: ether moves by the value only.
    const ethChange = assetChanges.find((c) => c.token.address === ETH);
    assert.deepEqual(ethChange.value, { pre: balance0, post: balance0 - parseEther("1.5"), diff: -parseEther("1.5") });
    const tokChange = assetChanges.find((c) => c.token.address === tokenAddr.toLowerCase());
    assert.equal(tokChange.token.symbol, "EMB");
    assert.equal(tokChange.token.decimals, 18);
    assert.deepEqual(tokChange.value, { pre: SUPPLY, post: SUPPLY - amount, diff: -amount });
    simulatedGas = results[1].gasUsed;
    // Nothing reached the chain.
    assert.equal(await client.getBalance({ address: RECIPIENT }), 0n);
    assert.equal(await client.readContract({ ...tokenContract(), functionName: "balanceOf", args: [RECIPIENT] }), 0n);
  });

  await step("the simulated token transfer used the gas the real one uses", async () => {
    const hash = await wallet.writeContract({ ...tokenContract(), functionName: "transfer", args: [RECIPIENT, amount] });
    const rc = await client.waitForTransactionReceipt({ hash });
    assert.equal(rc.status, "success");
    assert.equal(rc.gasUsed, simulatedGas);
  });

  await step("simulateBlocks: two blocks, overrides, a decoded revert, full transactions", async () => {
    const head = await client.getBlock();
    const blocks = await client.simulateBlocks({
      blockNumber: head.number,
      returnFullTransactions: true,
      traceTransfers: true,
      blocks: [
        {
          // POOR gets 3 ether for the simulation only.
          stateOverrides: [{ address: POOR, balance: parseEther("3") }],
          // (viem pairs answer blocks with request blocks by position, so no
          // gap in the numbers here: TestSimulateMatchesGeth covers gaps.)
          blockOverrides: { number: head.number + 1n, time: head.timestamp + 100n, feeRecipient: RECIPIENT },
          calls: [
            { from: POOR, to: RECIPIENT, value: parseEther("2") },
            // POOR holds no tokens: OpenZeppelin's ERC20InsufficientBalance.
            { from: POOR, ...token(), functionName: "transfer", args: [ME, 1n] },
          ],
        },
        {
          calls: [{ from: POOR, to: ME, value: parseEther("1") }],
        },
      ],
    });
    assert.deepEqual(blocks.map((b) => b.number), [head.number + 1n, head.number + 2n]);
    assert.deepEqual(blocks.map((b) => b.timestamp), [head.timestamp + 100n, head.timestamp + 112n], "12 s after the overridden time");
    assert.deepEqual(blocks.map((b) => b.calls.length), [2, 1]);
    assert.equal(blocks[0].parentHash, head.hash);
    assert.equal(blocks[1].parentHash, blocks[0].hash);
    assert.equal(blocks[0].miner, RECIPIENT.toLowerCase());
    assert.equal(blocks[1].miner, RECIPIENT.toLowerCase(), "the fee recipient carries over to the next block");
    assert.equal(blocks[0].baseFeePerGas, 0n, "no validation: base fee 0");

    const [send, revert] = blocks[0].calls;
    assert.equal(send.status, "success");
    assert.equal(revert.status, "failure");
    const decoded = decodeErrorResult({ abi: Token.abi, data: revert.data });
    assert.equal(decoded.errorName, "ERC20InsufficientBalance");
    assert.deepEqual(decoded.args, [POOR, 0n, 1n]);
    assert.equal(revert.logs.length, 0, "a failed call keeps no logs");
    // The second block saw the first one's state: 3 - 2 = 1 ether left to send.
    assert.equal(blocks[1].calls[0].status, "success");
    assert.equal(BigInt(blocks[1].calls[0].logs[0].data), parseEther("1"));

    const txs = blocks[0].transactions;
    assert.equal(txs.length, 2);
    assert.equal(txs[0].from, POOR.toLowerCase());
    assert.equal(txs[0].to, RECIPIENT.toLowerCase());
    assert.equal(txs[0].value, parseEther("2"));
    assert.equal(txs[0].type, "eip1559");
    assert.equal(txs[0].nonce, 0);
    assert.equal(txs[1].nonce, 1);
    assert.equal(txs[0].blockHash, blocks[0].hash);
    assert.equal(blocks[0].calls[0].logs[0].blockHash, blocks[0].hash);
    assert.equal(blocks[0].calls[0].logs[0].transactionHash, txs[0].hash);
  });

  await step("validation: nonce too high (-38011), base fee too low (-38012), numbers out of order (-38020)", async () => {
    const nonce = await client.getTransactionCount({ address: ME });
    const head = await client.getBlock();
    const cases = [
      [-38011, { validation: true, blocks: [{ calls: [{ from: ME, to: RECIPIENT, nonce: nonce + 5, maxFeePerGas: head.baseFeePerGas * 2n }] }] }],
      [-38012, { validation: true, blocks: [{ calls: [{ from: ME, to: RECIPIENT, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }] }] }],
      [-38020, { blocks: [{ blockOverrides: { number: head.number + 2n }, calls: [] }, { blockOverrides: { number: head.number + 1n }, calls: [] }] }],
    ];
    for (const [code, params] of cases) {
      await assert.rejects(client.simulateBlocks(params), (e) => {
        assert.equal(rpcCode(e), code, e.message);
        return true;
      });
    }
    // With enough fees the same transfer validates: the sender pays them.
    const [block] = await client.simulateBlocks({
      blockNumber: head.number,
      validation: true,
      blocks: [{ calls: [{ from: ME, to: RECIPIENT, value: 1n, maxFeePerGas: head.baseFeePerGas * 2n, maxPriorityFeePerGas: 0n }] }],
    });
    assert.equal(block.calls[0].status, "success");
    const fees = await client.getFeeHistory({ blockCount: 1, blockNumber: head.number, rewardPercentiles: [] });
    assert.equal(block.baseFeePerGas, fees.baseFeePerGas[1], "validation: the base fee of the block after the base");
    assert.equal(numberToHex(block.gasUsed), "0x5208");
  });
});
