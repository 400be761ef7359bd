// Ember end to end with cosmjs 0.32 (@cosmjs/stargate), the client library of
// Cosmos wallets and dapps, and with the REST paths Keplr-style wallets call.
//
//   EMBER_COMET=http://127.0.0.1:26657 EMBER_REST=http://127.0.0.1:1317 \
//   EMBER_RPC=http://127.0.0.1:8545 EMBER_CHAIN_ID=ember_31337-1 \
//   EMBER_KEYS=0x<key>,0x<key> node cosmjs.mjs
//
// EMBER_KEYS: two funded private keys that are not the dev validator's (its
// account receives the fees' tips). The signer is the one Ethermint chains
// plug into cosmjs (as Evmos dapps do): SIGN_MODE_DIRECT over
// keccak256(SignDoc), a 64-byte r||s signature, the key packed as
// /ethermint.crypto.v1.ethsecp256k1.PubKey. Every check compares an exact
// value, from a second source where there is one (eth_getBalance, CometBFT
// RPC, the documented gas rule); the first mismatch exits 1.
import assert from "node:assert/strict";
import { EthSecp256k1Signer, ethAccountParser } from "./ethsigner.mjs";
import {
  GasPrice,
  QueryClient,
  SigningStargateClient,
  StargateClient,
  calculateFee,
  setupStakingExtension,
} from "@cosmjs/stargate";
import { keccak256 } from "@cosmjs/crypto";
import { fromHex, toBase64, toBech32, toHex } from "@cosmjs/encoding";
import { BaseAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth.js";
import { PubKey } from "cosmjs-types/cosmos/crypto/secp256k1/keys.js";
import { AuthInfo, Fee, TxBody, TxRaw, SignerInfo, ModeInfo } from "cosmjs-types/cosmos/tx/v1beta1/tx.js";
import { SignMode } from "cosmjs-types/cosmos/tx/signing/v1beta1/signing.js";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx.js";
import { TxResponse, GasInfo } from "cosmjs-types/cosmos/base/abci/v1beta1/abci.js";
import { Validator, Delegation, Pool } from "cosmjs-types/cosmos/staking/v1beta1/staking.js";
import { Coin } from "cosmjs-types/cosmos/base/v1beta1/coin.js";
import { VersionInfo } from "cosmjs-types/cosmos/base/tendermint/v1beta1/query.js";
import { Header } from "cosmjs-types/cosmos/base/tendermint/v1beta1/types.js";
import { env, run, step } from "./lib.mjs";

const COMET = env("EMBER_COMET");
const REST = env("EMBER_REST");
const RPC = env("EMBER_RPC");
const CHAIN_ID = env("EMBER_CHAIN_ID");
const [KEY_A, KEY_B] = env("EMBER_KEYS").split(",");
const PREFIX = "ember";
const DENOM = "aember";
const ETH_ACCOUNT = "/ethermint.types.v1.EthAccount";
const ETH_PUBKEY = "/ethermint.crypto.v1.ethsecp256k1.PubKey";
const GENESIS_BALANCE = 10n ** 22n; // emberd dev funds each dev account with 10^22 aember
// The gas of a native tx (README, "Native transactions"): 21000 + 10 per
// byte + per message (MsgSend 10000, MsgDelegate 50000).
const txGas = (bytes, msgGas) => 21000n + 10n * BigInt(bytes) + BigInt(msgGas);

// --- the ethsecp256k1 signer: ethsigner.mjs ---

// --- helpers ---

async function jsonRpc(url, method, params = []) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}
const ethBalance = async (addr) => BigInt(await jsonRpc(RPC, "eth_getBalance", [addr, "latest"]));
const cometStatus = async () => (await (await fetch(`${COMET}/status`)).json()).result;

async function rest(path, init) {
  const res = await fetch(REST + path, init);
  return { status: res.status, body: await res.json(), headers: res.headers };
}
const restPost = (path, body) => rest(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

// snake is a proto field name from its cosmjs-types (ts-proto) name.
const snake = (s) => s.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
// fields are the proto field names of a cosmjs-types message, in order:
// the SDK's .proto files, which the gateway's JSON follows.
const fields = (Type) => Object.keys(Type.fromPartial({})).map(snake);
function assertShape(obj, Type, what) {
  assert.deepEqual(Object.keys(obj), fields(Type), `${what}: JSON field names`);
}

async function waitFor(what, fn) {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// dec is the JSON form of a cosmos.Dec holding the integer n.
const dec = (n) => `${n}.000000000000000000`;

await run("cosmjs", async () => {
  const a = await EthSecp256k1Signer.fromKey(KEY_A);
  const b = await EthSecp256k1Signer.fromKey(KEY_B);
  const fresh = toBech32(PREFIX, keccak256(new TextEncoder().encode(`fresh ${Date.now()}`)).slice(-20));
  const client = await StargateClient.connect(COMET, { accountParser: ethAccountParser });
  const gasPrice = BigInt(await jsonRpc(RPC, "eth_gasPrice")) * 2n;
  const signing = await SigningStargateClient.connectWithSigner(COMET, a, {
    accountParser: ethAccountParser,
    gasPrice: GasPrice.fromString(`${gasPrice}${DENOM}`),
    broadcastPollIntervalMs: 200, // the default 3 s is longer than a dev block
  });
  let aNumber;

  await step("chain id, height, block", async () => {
    assert.equal(await client.getChainId(), CHAIN_ID);
    const before = Number((await cometStatus()).sync_info.latest_block_height);
    const height = await client.getHeight();
    const after = Number((await cometStatus()).sync_info.latest_block_height);
    assert.ok(before <= height && height <= after, `height ${height} not within CometBFT's ${before}..${after}`);
    const block = await client.getBlock(height);
    assert.equal(block.header.height, height);
    assert.equal(block.header.chainId, CHAIN_ID);
    const comet = (await (await fetch(`${COMET}/block?height=${height}`)).json()).result;
    assert.equal(block.id, comet.block_id.hash);
  });

  await step("account and balances before any tx (abci_query cosmos.auth / cosmos.bank)", async () => {
    const acc = await client.getAccount(a.address);
    const { body } = await rest(`/cosmos/auth/v1beta1/accounts/${a.address}`);
    aNumber = Number(body.account.base_account.account_number);
    assert.deepEqual(acc, { address: a.address, pubkey: null, accountNumber: aNumber, sequence: 0 });
    assert.equal(await client.getAccount(fresh), null); // codes.NotFound → null
    assert.deepEqual(await client.getBalance(a.address, DENOM), { denom: DENOM, amount: GENESIS_BALANCE.toString() });
    assert.equal(BigInt((await client.getBalance(a.address, DENOM)).amount), await ethBalance(a.ethAddress));
    assert.deepEqual(await client.getAllBalances(a.address), [{ denom: DENOM, amount: GENESIS_BALANCE.toString() }]);
    assert.deepEqual(await client.getAllBalances(fresh), []);
    assert.deepEqual(await client.getBalance(fresh, "uatom"), { denom: "uatom", amount: "0" });
  });

  const amount = 1234567890123456789n;
  let sendHash, sendHeight;
  await step("MsgSend: simulate, sign, broadcast; balances to the wei", async () => {
    const msg = { typeUrl: "/cosmos.bank.v1beta1.MsgSend", value: MsgSend.fromPartial({ fromAddress: a.address, toAddress: fresh, amount: [{ denom: DENOM, amount: amount.toString() }] }) };
    const simulated = await signing.simulate(a.address, [msg], "cosmjs send");
    const fee = calculateFee(Math.round(simulated * 1.4), GasPrice.fromString(`${gasPrice}${DENOM}`));
    const txRaw = await signing.sign(a.address, [msg], fee, "cosmjs send");
    const bytes = TxRaw.encode(txRaw).finish();
    const gasUsed = txGas(bytes.length, 10000);
    assert.ok(BigInt(simulated) >= gasUsed && BigInt(simulated) - gasUsed < 1000n, `simulated ${simulated}, charged ${gasUsed}`);
    const res = await signing.broadcastTx(bytes, 60_000, 200);
    assert.equal(res.code, 0, res.rawLog);
    assert.equal(BigInt(res.gasUsed), gasUsed);
    assert.equal(BigInt(res.gasWanted), BigInt(fee.gas));
    sendHash = res.transactionHash;
    sendHeight = res.height;
    const feeAmount = BigInt(fee.amount[0].amount);
    assert.deepEqual(await client.getBalance(a.address, DENOM), { denom: DENOM, amount: (GENESIS_BALANCE - amount - feeAmount).toString() });
    assert.equal(await ethBalance(a.ethAddress), GENESIS_BALANCE - amount - feeAmount);
    assert.deepEqual(await client.getAllBalances(fresh), [{ denom: DENOM, amount: amount.toString() }]);
    const acc = await client.getAccount(a.address);
    assert.deepEqual(acc, { address: a.address, pubkey: { type: "ethermint/PubKeyEthSecp256k1", value: toBase64(a.pubkey) }, accountNumber: aNumber, sequence: 1 });
  });

  await step("tx by hash and by events", async () => {
    const tx = await client.getTx(sendHash);
    assert.equal(tx.hash, sendHash);
    assert.equal(tx.height, sendHeight);
    assert.equal(tx.code, 0);
    const found = await client.searchTx(`transfer.recipient='${fresh}'`);
    assert.deepEqual(found.map((t) => t.hash), [sendHash]);
    const bySender = await client.searchTx([{ key: "message.sender", value: a.address }, { key: "tx.height", value: sendHeight }]);
    assert.deepEqual(bySender.map((t) => t.hash), [sendHash]);
  });

  await step("MsgDelegate: validator tokens, delegation and CometBFT voting power change exactly", async () => {
    const q = QueryClient.withExtensions(signing.forceGetCometClient(), setupStakingExtension);
    const { validators } = await q.staking.validators("BOND_STATUS_BONDED");
    assert.equal(validators.length, 1);
    const val = validators[0];
    const tokens = BigInt(val.tokens);
    const cometBefore = await signing.forceGetCometClient().validators({});
    assert.equal(cometBefore.validators.length, 1);
    assert.equal(cometBefore.validators[0].votingPower, tokens / 10n ** 18n);
    const delegation = 2n * 10n ** 18n + 5n;
    const res = await signing.delegateTokens(a.address, val.operatorAddress, { denom: DENOM, amount: delegation.toString() }, "auto", "cosmjs delegate");
    assert.equal(res.code, 0, res.rawLog);
    const after = (await q.staking.validator(val.operatorAddress)).validator;
    assert.equal(BigInt(after.tokens), tokens + delegation);
    assert.equal(after.delegatorShares, ((tokens + delegation) * 10n ** 18n).toString()); // a cosmos.Dec in protobuf: ×10^18
    const d = await q.staking.delegation(a.address, val.operatorAddress);
    assert.deepEqual(d.delegationResponse.balance, { denom: DENOM, amount: delegation.toString() });
    // CometBFT applies the update two blocks after the tx's.
    const h = res.height + 2;
    const cometAfter = await waitFor(`validators at height ${h}`, async () => {
      try { return await signing.forceGetCometClient().validators({ height: h }); } catch { return null; }
    });
    assert.equal(cometAfter.validators[0].votingPower, (tokens + delegation) / 10n ** 18n);
    assert.equal(cometAfter.validators[0].votingPower - cometBefore.validators[0].votingPower, 2n);
    const acc = await client.getAccount(a.address);
    assert.equal(acc.sequence, 2);
  });

  await step("REST only, as Keplr: account → simulate → broadcast → tx by hash", async () => {
    const acc = await rest(`/cosmos/auth/v1beta1/accounts/${b.address}`);
    assert.equal(acc.status, 200);
    assert.deepEqual(Object.keys(acc.body.account), ["@type", "base_account", "code_hash"]);
    assert.equal(acc.body.account["@type"], ETH_ACCOUNT);
    assertShape(acc.body.account.base_account, BaseAccount, "base_account");
    const { account_number, sequence } = acc.body.account.base_account;
    assert.equal(sequence, "0");
    const before = BigInt((await rest(`/cosmos/bank/v1beta1/balances/${b.address}/by_denom?denom=${DENOM}`)).body.balance.amount);

    const amount = 777n;
    const body = TxBody.encode(TxBody.fromPartial({
      messages: [{ typeUrl: "/cosmos.bank.v1beta1.MsgSend", value: MsgSend.encode({ fromAddress: b.address, toAddress: fresh, amount: [{ denom: DENOM, amount: amount.toString() }] }).finish() }],
      memo: "rest",
    })).finish();
    const authInfo = (gas, fee) => AuthInfo.encode(AuthInfo.fromPartial({
      signerInfos: [SignerInfo.fromPartial({ publicKey: { typeUrl: ETH_PUBKEY, value: PubKey.encode({ key: b.pubkey }).finish() }, modeInfo: ModeInfo.fromPartial({ single: { mode: SignMode.SIGN_MODE_DIRECT } }), sequence: BigInt(sequence) })],
      fee: Fee.fromPartial({ gasLimit: gas, amount: fee ? [{ denom: DENOM, amount: fee.toString() }] : [] }),
    })).finish();
    const unsigned = TxRaw.encode({ bodyBytes: body, authInfoBytes: authInfo(0n), signatures: [new Uint8Array()] }).finish();
    const sim = await restPost("/cosmos/tx/v1beta1/simulate", { tx_bytes: toBase64(unsigned) });
    assert.equal(sim.status, 200, JSON.stringify(sim.body));
    assert.deepEqual(Object.keys(sim.body), ["gas_info", "result"]);
    assertShape(sim.body.gas_info, GasInfo, "gas_info");
    const gas = BigInt(sim.body.gas_info.gas_used);
    const fee = gas * gasPrice;
    const authBytes = authInfo(gas, fee);
    const signature = await b.sign({ bodyBytes: body, authInfoBytes: authBytes, chainId: CHAIN_ID, accountNumber: BigInt(account_number) });
    const txBytes = TxRaw.encode({ bodyBytes: body, authInfoBytes: authBytes, signatures: [signature] }).finish();
    assert.ok(gas >= txGas(txBytes.length, 10000), `simulated ${gas} below the charge`);

    const sent = await restPost("/cosmos/tx/v1beta1/txs", { tx_bytes: toBase64(txBytes), mode: "BROADCAST_MODE_SYNC" });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assertShape(sent.body.tx_response, TxResponse, "broadcast tx_response");
    assert.equal(sent.body.tx_response.code, 0, sent.body.tx_response.raw_log);
    const hash = sent.body.tx_response.txhash;
    assert.equal(hash, toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", txBytes))).toUpperCase());

    const got = await waitFor(`tx ${hash}`, async () => {
      const r = await rest(`/cosmos/tx/v1beta1/txs/${hash}`);
      return r.status === 200 ? r : null;
    });
    assert.deepEqual(Object.keys(got.body), ["tx", "tx_response"]);
    const tr = got.body.tx_response;
    assertShape(tr, TxResponse, "tx_response");
    assert.equal(tr.txhash, hash);
    assert.equal(tr.code, 0);
    assert.equal(BigInt(tr.gas_used), txGas(txBytes.length, 10000));
    assert.equal(tr.gas_wanted, gas.toString());
    assert.equal(tr.tx["@type"], "/cosmos.tx.v1beta1.Tx");
    assert.deepEqual(got.body.tx.body.messages, [{ "@type": "/cosmos.bank.v1beta1.MsgSend", from_address: b.address, to_address: fresh, amount: [{ denom: DENOM, amount: "777" }] }]);
    assert.equal(got.body.tx.body.memo, "rest");
    assert.deepEqual(got.body.tx.auth_info.signer_infos[0].public_key, { "@type": ETH_PUBKEY, key: toBase64(b.pubkey) });
    assert.deepEqual(got.body.tx.signatures, [toBase64(signature)]);
    const block = await rest(`/cosmos/base/tendermint/v1beta1/blocks/${tr.height}`);
    assert.equal(tr.timestamp, block.body.block.header.time.replace(/\.\d+Z$/, "Z"));

    const after = await rest(`/cosmos/bank/v1beta1/balances/${b.address}`);
    assert.deepEqual(after.body, { balances: [{ denom: DENOM, amount: (before - amount - fee).toString() }], pagination: { next_key: null, total: "1" } });
    assert.equal(await ethBalance(b.ethAddress), before - amount - fee);
    assert.equal(after.headers.get("grpc-metadata-x-cosmos-block-height") !== null, true);
    const seq = await rest(`/cosmos/auth/v1beta1/accounts/${b.address}`);
    assert.equal(seq.body.account.base_account.sequence, "1");
    assert.deepEqual(seq.body.account.base_account.pub_key, { "@type": ETH_PUBKEY, key: toBase64(b.pubkey) });

    for (const q of [`query=${encodeURIComponent(`message.sender='${b.address}'`)}`, `events=${encodeURIComponent(`message.sender='${b.address}'`)}`]) {
      const s = await rest(`/cosmos/tx/v1beta1/txs?${q}`);
      assert.equal(s.status, 200, JSON.stringify(s.body));
      assert.deepEqual(Object.keys(s.body), ["txs", "tx_responses", "pagination", "total"]);
      assert.deepEqual(s.body.tx_responses.map((r) => r.txhash), [hash]);
      assert.equal(s.body.total, "1");
    }
  });

  await step("REST shapes: staking, supply, node info, blocks", async () => {
    const vals = await rest("/cosmos/staking/v1beta1/validators");
    assert.deepEqual(Object.keys(vals.body), ["validators", "pagination"]);
    const v = vals.body.validators[0];
    assertShape(v, Validator, "validator");
    assert.equal(v.status, "BOND_STATUS_BONDED");
    assert.equal(v.delegator_shares, dec(BigInt(v.tokens))); // a cosmos.Dec in JSON: 18 places
    assert.equal(v.consensus_pubkey["@type"], "/cosmos.crypto.ed25519.PubKey");
    const dels = await rest(`/cosmos/staking/v1beta1/delegations/${a.address}`);
    assert.equal(dels.body.delegation_responses.length, 1);
    assertShape(dels.body.delegation_responses[0].delegation, Delegation, "delegation");
    assert.deepEqual(dels.body.delegation_responses[0].balance, { denom: DENOM, amount: (2n * 10n ** 18n + 5n).toString() });
    assert.equal(dels.body.delegation_responses[0].delegation.shares, dec(2n * 10n ** 18n + 5n));
    const pool = await rest("/cosmos/staking/v1beta1/pool");
    assertShape(pool.body.pool, Pool, "pool");
    assert.equal(pool.body.pool.bonded_tokens, v.tokens);

    const supply = await rest("/cosmos/bank/v1beta1/supply");
    assert.deepEqual(Object.keys(supply.body), ["supply", "pagination"]);
    assertShape(supply.body.supply[0], Coin, "supply coin");
    const one = await rest(`/cosmos/bank/v1beta1/supply/by_denom?denom=${DENOM}`);
    assert.deepEqual(one.body.amount, supply.body.supply[0]);

    const info = await rest("/cosmos/base/tendermint/v1beta1/node_info");
    assert.deepEqual(Object.keys(info.body), ["default_node_info", "application_version"]);
    assert.equal(info.body.default_node_info.network, CHAIN_ID);
    assertShape(info.body.application_version, VersionInfo, "application_version");
    const latest = await rest("/cosmos/base/tendermint/v1beta1/blocks/latest");
    assert.deepEqual(Object.keys(latest.body), ["block_id", "block", "sdk_block"]);
    assertShape(latest.body.sdk_block.header, Header, "sdk_block.header");
    assert.match(latest.body.sdk_block.header.proposer_address, /^embervalcons1/);
    const h = latest.body.block.header.height;
    const comet = (await (await fetch(`${COMET}/block?height=${h}`)).json()).result;
    assert.equal(latest.body.block_id.hash, toBase64(fromHex(comet.block_id.hash)));
  });

  await step("REST errors as the SDK gives them", async () => {
    const cases = [
      ["/cosmos/bank/v1beta1/balances/ember1bad", {}, 400, 3],
      // last character changed (to q, or p when it is q): a bad checksum
      ["/cosmos/auth/v1beta1/accounts/" + fresh.slice(0, -1) + (fresh.endsWith("q") ? "p" : "q"), {}, 400, 3],
      ["/cosmos/auth/v1beta1/accounts/" + toBech32(PREFIX, new Uint8Array(20).fill(7)), {}, 404, 5],
      ["/cosmos/base/tendermint/v1beta1/blocks/99999999", {}, 400, 3],
      ["/cosmos/tx/v1beta1/txs/" + "00".repeat(32), {}, 404, 5],
      ["/cosmos/tx/v1beta1/txs", {}, 400, 3],
      ["/cosmos/staking/v1beta1/validators?status=BOND_STATUS_NOPE", {}, 400, 3],
      ["/cosmos/bank/v1beta1/balances/" + a.address, { "x-cosmos-block-height": "abc" }, 400, 3],
      ["/cosmos/bank/v1beta1/balances/" + a.address, { "x-cosmos-block-height": "99999999" }, 400, 3],
    ];
    for (const [path, headers, status, code] of cases) {
      const r = await rest(path, { headers });
      assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(Object.keys(r.body), ["code", "message", "details"]);
      assert.equal(r.body.code, code, path);
    }
    const bad = await restPost("/cosmos/tx/v1beta1/simulate", { tx_bytes: toBase64(new Uint8Array([1, 2, 3])) });
    assert.equal(bad.status, 500, JSON.stringify(bad.body)); // codes.Unknown, as the SDK
    assert.equal(bad.body.code, 2);
  });
});
