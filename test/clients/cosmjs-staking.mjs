// Staking and rewards with cosmjs 0.32's stock SigningStargateClient and
// the ethsecp256k1 signer Ethermint chains plug into it, on a network with
// several validators:
//
//   EMBER_COMET=http://127.0.0.1:26657 EMBER_RPC=http://127.0.0.1:8545 \
//   EMBER_KEY=0x<funded key without delegations> \
//   EMBER_VALIDATORS=embervaloper1…,embervaloper1… node cosmjs-staking.mjs
//
// delegateTokens, withdrawRewards, a MsgBeginRedelegate through
// signAndBroadcast and undelegateTokens; after each, the delegations
// (staking extension), the rewards and withdraw address (distribution
// extension) and the balance to the wei: it changes by −amount − fee, plus
// the rewards the tx's withdraw_rewards events say it paid.
import assert from "node:assert/strict";
import {
  GasPrice,
  QueryClient,
  SigningStargateClient,
  calculateFee,
  setupDistributionExtension,
  setupStakingExtension,
} from "@cosmjs/stargate";
import { MsgBeginRedelegate } from "cosmjs-types/cosmos/staking/v1beta1/tx.js";
import { EthSecp256k1Signer, ethAccountParser } from "./ethsigner.mjs";
import { env, run, step } from "./lib.mjs";

const COMET = env("EMBER_COMET");
const RPC = env("EMBER_RPC");
const KEY = env("EMBER_KEY");
const [VAL0, VAL1] = env("EMBER_VALIDATORS").split(",");
const DENOM = "aember";

async function jsonRpc(method, params = []) {
  const res = await fetch(RPC, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

// attrs are the values of key in the events of type typ.
const attrs = (events, typ, key) => events.filter((e) => e.type === typ).flatMap((e) => e.attributes.filter((a) => a.key === key).map((a) => a.value));
const amountOf = (coins) => (coins === "" ? 0n : BigInt(coins.replace(new RegExp(`${DENOM}$`), "")));

await run("cosmjs-staking", async () => {
  const signer = await EthSecp256k1Signer.fromKey(KEY);
  const me = signer.address;
  const price = GasPrice.fromString(`${BigInt(await jsonRpc("eth_gasPrice")) * 2n}${DENOM}`);
  const client = await SigningStargateClient.connectWithSigner(COMET, signer, { accountParser: ethAccountParser, gasPrice: price, broadcastPollIntervalMs: 200 });
  const q = QueryClient.withExtensions(client.forceGetCometClient(), setupStakingExtension, setupDistributionExtension);
  const balance = async () => BigInt((await client.getBalance(me, DENOM)).amount);
  const delegated = async (val) => {
    const d = await client.getDelegation(me, val);
    return d === null ? 0n : BigInt(d.amount);
  };
  // fee: the simulated gas with room, at twice the gas price.
  const feeFor = async (msgs) => calculateFee(Math.ceil((await client.simulate(me, msgs, "")) * 1.3), price);
  // settle checks a tx's result: code 0, the fee charged is the one
  // signed, the balance moved by −spent − fee + the withdrawn rewards its
  // events report. It returns those rewards.
  const settle = async (res, fee, before, spent) => {
    assert.equal(res.code, 0, res.rawLog);
    const charged = attrs(res.events, "tx", "fee").map(amountOf);
    assert.deepEqual(charged, [BigInt(fee.amount[0].amount)], "the tx event's fee");
    const withdrawn = attrs(res.events, "withdraw_rewards", "amount").map(amountOf).reduce((a, b) => a + b, 0n);
    const after = await balance();
    assert.equal(after - before, withdrawn - spent - charged[0], `balance change at height ${res.height} (withdrawn per events ${withdrawn}, fee ${charged[0]}, spent ${spent})`);
    return withdrawn;
  };
  const waitBlocks = async (n) => {
    const h = await client.getHeight();
    while ((await client.getHeight()) < h + n) await new Promise((r) => setTimeout(r, 100));
  };
  const X = 5n * 10n ** 18n + 11n;
  const Y = 2n * 10n ** 18n + 3n;

  await step("delegateTokens: a new delegation, getDelegation, balance −amount −fee", async () => {
    assert.equal(await delegated(VAL0), 0n);
    const amount = { denom: DENOM, amount: X.toString() };
    const msg = { typeUrl: "/cosmos.staking.v1beta1.MsgDelegate", value: { delegatorAddress: me, validatorAddress: VAL0, amount } };
    const fee = await feeFor([msg]);
    const before = await balance();
    const res = await client.delegateTokens(me, VAL0, amount, fee, "delegate");
    assert.equal(await settle(res, fee, before, X), 0n);
    assert.equal(await delegated(VAL0), X);
    assert.equal((await q.staking.delegation(me, VAL0)).delegationResponse.delegation.shares, (X * 10n ** 18n).toString());
  });

  await step("distribution extension: rewards accrue, withdraw address is the delegator", async () => {
    await waitBlocks(3);
    const r = await q.distribution.delegationRewards(me, VAL0);
    assert.equal(r.rewards.length, 1);
    assert.equal(r.rewards[0].denom, DENOM);
    assert.ok(BigInt(r.rewards[0].amount) > 0n, `rewards ${r.rewards[0].amount}`);
    assert.equal((await q.distribution.delegatorWithdrawAddress(me)).withdrawAddress, me);
  });

  await step("withdrawRewards: balance +withdrawn −fee, rewards start again", async () => {
    const msg = { typeUrl: "/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward", value: { delegatorAddress: me, validatorAddress: VAL0 } };
    const fee = await feeFor([msg]);
    const before = await balance();
    const res = await client.withdrawRewards(me, VAL0, fee, "withdraw");
    const withdrawn = await settle(res, fee, before, 0n);
    assert.ok(withdrawn > 0n, "withdrew nothing");
    assert.deepEqual(attrs(res.events, "withdraw_rewards", "validator"), [VAL0]);
    assert.deepEqual(attrs(res.events, "withdraw_rewards", "delegator"), [me]);
    console.log(`     withdrew ${withdrawn} at height ${res.height}`);
  });

  await step("MsgBeginRedelegate via signAndBroadcast: delegations move, rewards paid", async () => {
    await waitBlocks(2);
    const msg = { typeUrl: "/cosmos.staking.v1beta1.MsgBeginRedelegate", value: MsgBeginRedelegate.fromPartial({ delegatorAddress: me, validatorSrcAddress: VAL0, validatorDstAddress: VAL1, amount: { denom: DENOM, amount: Y.toString() } }) };
    const fee = await feeFor([msg]);
    const before = await balance();
    const res = await client.signAndBroadcast(me, [msg], fee, "redelegate");
    const withdrawn = await settle(res, fee, before, 0n);
    console.log(`     redelegation paid ${withdrawn} of rewards at height ${res.height}`);
    assert.equal(await delegated(VAL0), X - Y);
    assert.equal(await delegated(VAL1), Y);
  });

  await step("undelegateTokens: the delegation shrinks, balance −fee + withdrawn", async () => {
    await waitBlocks(2);
    const amount = { denom: DENOM, amount: Y.toString() };
    const msg = { typeUrl: "/cosmos.staking.v1beta1.MsgUndelegate", value: { delegatorAddress: me, validatorAddress: VAL1, amount } };
    const fee = await feeFor([msg]);
    const before = await balance();
    const res = await client.undelegateTokens(me, VAL1, amount, fee, "undelegate");
    const withdrawn = await settle(res, fee, before, 0n);
    console.log(`     undelegation paid ${withdrawn} of rewards at height ${res.height}`);
    assert.equal(await delegated(VAL1), 0n);
    const u = await q.staking.unbondingDelegation(me, VAL1);
    assert.deepEqual(u.unbond.entries.map((e) => e.balance), [Y.toString()]);
  });
});
