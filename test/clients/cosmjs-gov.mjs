// Governance with cosmjs 0.32's stock SigningStargateClient (and the
// ethsecp256k1 signer Ethermint chains plug into it) on a dev chain:
//
//   EMBER_COMET=http://127.0.0.1:26657 EMBER_RPC=http://127.0.0.1:8545 \
//   EMBER_KEYS=0x<validator operator>,0x<proposer>,0x<depositor> node cosmjs-gov.mjs
//
// signAndBroadcast of a v1beta1 MsgSubmitProposal (TextProposal) with a
// partial deposit, a MsgDeposit from another account that starts the
// voting period and the validator's MsgVote; after each, the gov query
// extension (proposal, deposits, vote, tally, params) and the balances to
// the wei (−deposit −fee).
import assert from "node:assert/strict";
import { GasPrice, QueryClient, SigningStargateClient, calculateFee, setupGovExtension, setupStakingExtension } from "@cosmjs/stargate";
import { TextProposal, VoteOption, ProposalStatus } from "cosmjs-types/cosmos/gov/v1beta1/gov.js";
import { EthSecp256k1Signer, ethAccountParser } from "./ethsigner.mjs";
import { env, run, step } from "./lib.mjs";

const COMET = env("EMBER_COMET");
const RPC = env("EMBER_RPC");
const [VOTER_KEY, PROPOSER_KEY, DEPOSITOR_KEY] = env("EMBER_KEYS").split(",");
const DENOM = "aember";

async function jsonRpc(method, params = []) {
  const res = await fetch(RPC, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

const attrs = (events, typ, key) => events.filter((e) => e.type === typ).flatMap((e) => e.attributes.filter((a) => a.key === key).map((a) => a.value));
const amountOf = (coins) => BigInt(coins.replace(new RegExp(`${DENOM}$`), ""));

await run("cosmjs-gov", async () => {
  const price = GasPrice.fromString(`${BigInt(await jsonRpc("eth_gasPrice")) * 2n}${DENOM}`);
  const connect = async (key) => {
    const signer = await EthSecp256k1Signer.fromKey(key);
    const client = await SigningStargateClient.connectWithSigner(COMET, signer, { accountParser: ethAccountParser, gasPrice: price, broadcastPollIntervalMs: 200 });
    return { me: signer.address, client };
  };
  const voter = await connect(VOTER_KEY);
  const proposer = await connect(PROPOSER_KEY);
  const depositor = await connect(DEPOSITOR_KEY);
  const q = QueryClient.withExtensions(proposer.client.forceGetCometClient(), setupGovExtension, setupStakingExtension);
  const balance = async (who) => BigInt((await who.client.getBalance(who.me, DENOM)).amount);
  // send signs msgs with who's key through signAndBroadcast and checks the
  // result: code 0, the fee charged is the one signed, the balance moved
  // by −spent − fee.
  const send = async (who, msgs, spent) => {
    const fee = calculateFee(Math.ceil((await who.client.simulate(who.me, msgs, "")) * 1.3), price);
    const before = await balance(who);
    const res = await who.client.signAndBroadcast(who.me, msgs, fee, "gov");
    assert.equal(res.code, 0, res.rawLog);
    const charged = attrs(res.events, "tx", "fee").map(amountOf);
    assert.deepEqual(charged, [BigInt(fee.amount[0].amount)], "the tx event's fee");
    assert.equal(await balance(who), before - spent - charged[0], `balance after the tx at height ${res.height}`);
    return res;
  };
  const minDeposit = BigInt((await q.gov.params("deposit")).depositParams.minDeposit[0].amount);
  const first = minDeposit / 4n + 1n;
  let id;

  await step("MsgSubmitProposal (v1beta1, TextProposal): deposit period, content, deposit held", async () => {
    const content = { typeUrl: "/cosmos.gov.v1beta1.TextProposal", value: TextProposal.encode(TextProposal.fromPartial({ title: "cosmjs", description: "a text proposal from cosmjs" })).finish() };
    const msg = { typeUrl: "/cosmos.gov.v1beta1.MsgSubmitProposal", value: { content, initialDeposit: [{ denom: DENOM, amount: first.toString() }], proposer: proposer.me } };
    const res = await send(proposer, [msg], first);
    const ids = attrs(res.events, "submit_proposal", "proposal_id");
    assert.equal(ids.length, 1, "one submit_proposal event with the id");
    id = BigInt(ids[0]);
    const p = (await q.gov.proposal(id)).proposal;
    assert.equal(p.status, ProposalStatus.PROPOSAL_STATUS_DEPOSIT_PERIOD);
    assert.equal(p.content.typeUrl, "/cosmos.gov.v1beta1.TextProposal");
    assert.equal(TextProposal.decode(p.content.value).title, "cosmjs");
    assert.deepEqual(p.totalDeposit, [{ denom: DENOM, amount: first.toString() }]);
  });

  await step("MsgDeposit from another account: voting period, deposits listed", async () => {
    const rest = minDeposit - first;
    const msg = { typeUrl: "/cosmos.gov.v1beta1.MsgDeposit", value: { proposalId: id, depositor: depositor.me, amount: [{ denom: DENOM, amount: rest.toString() }] } };
    const res = await send(depositor, [msg], rest);
    assert.deepEqual(attrs(res.events, "proposal_deposit", "voting_period_start"), [id.toString()]);
    const p = (await q.gov.proposal(id)).proposal;
    assert.equal(p.status, ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD);
    assert.deepEqual(p.totalDeposit, [{ denom: DENOM, amount: minDeposit.toString() }]);
    const deps = (await q.gov.deposits(id)).deposits.map((d) => [d.depositor, d.amount[0].amount]).sort();
    assert.deepEqual(deps, [[proposer.me, first.toString()], [depositor.me, rest.toString()]].sort());
    assert.equal((await q.gov.deposit(id, depositor.me)).deposit.amount[0].amount, rest.toString());
    const voting = (await q.gov.proposals(ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD, "", "")).proposals.map((x) => x.proposalId);
    assert.ok(voting.includes(id), `proposal ${id} among the voting ones ${voting}`);
  });

  await step("MsgVote yes from the validator: the vote and the running tally (all its bonded tokens)", async () => {
    const msg = { typeUrl: "/cosmos.gov.v1beta1.MsgVote", value: { proposalId: id, voter: voter.me, option: VoteOption.VOTE_OPTION_YES } };
    const res = await send(voter, [msg], 0n);
    assert.deepEqual(attrs(res.events, "proposal_vote", "proposal_id"), [id.toString()]);
    const v = (await q.gov.vote(id, voter.me)).vote;
    assert.equal(v.option, VoteOption.VOTE_OPTION_YES);
    assert.deepEqual(v.options.map((o) => [o.option, o.weight]), [[VoteOption.VOTE_OPTION_YES, "1000000000000000000"]]);
    const bonded = (await q.staking.pool()).pool.bondedTokens;
    const t = (await q.gov.tally(id)).tally;
    assert.deepEqual([t.yes, t.abstain, t.no, t.noWithVeto], [bonded, "0", "0", "0"]);
  });
});
