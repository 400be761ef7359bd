// Address: balance, both spellings, counters, and tabs for transactions,
// token transfers and balances, internal txs, native (Cosmos) txs, logs, the coin balance
// history, the account's stake (delegations, unbonding entries, pending
// rewards), and for a contract its code, ABI, read/write methods and the
// verification form.
import { api, rpc, bech32Decode, h, render, titled, age, fields, num, coin, decCoin, bothSpellings, tabs, paged, table, units, tokenLink, addr, txLink, blockLink } from "../lib.js";
import { addressTxCols, addressTransferCols, addressInternalCols, logCols, nativeCols, listTable } from "./lists.js";
import { lineChart } from "../chart.js";
import { checksum } from "../keccak.js";
import { contractPanel } from "../contract.js";

export default async function address([, id]) {
  // An address the index has not seen (nothing reached it yet, or only
  // native transfers in blocks indexed before they were recorded) would
  // be a 404: ask the search first, which answers an empty list instead.
  const hex = id.startsWith("0x") || id.startsWith("0X") ? id : bech32Decode(id);
  const known = await api("/search?q=" + encodeURIComponent(id));
  if (!known.items.length && hex) return unindexed(hex);
  const a = await api("/addresses/" + encodeURIComponent(id));
  const base = "/addresses/" + a.hash;
  const [c, tc, held, nonce] = await Promise.all([api(base + "/counters"), api(base + "/tabs-counters"), api(base + "/token-balances"),
    rpc("eth_getTransactionCount", [a.hash, "latest"]).then((n) => BigInt(n).toString(), () => null)]);
  const list = [
    ["Transactions", () => paged(base + "/transactions", listTable(addressTxCols(a.hash)), "No transactions."), tc.transactions_count],
    ["Token transfers", () => paged(base + "/token-transfers", listTable(addressTransferCols(a.hash)), "No token transfers."), tc.token_transfers_count],
    ["Tokens", () => paged(base + "/token-balances", listTable(balanceCols), "No tokens."), tc.token_balances_count],
    ["Internal txns", () => paged(base + "/internal-transactions", listTable(addressInternalCols(a.hash)), "No internal transactions."), tc.internal_transactions_count],
    ["Native txns", () => paged(base + "/native-transactions", listTable(nativeCols), "No native transactions.")],
    ["Logs", () => paged(base + "/logs", listTable(logCols), "No logs.")],
    ["Coin balance history", () => balanceHistory(base)],
    ["Staking", () => stakingPanel(base)],
  ];
  if (a.is_contract) list.unshift(["Contract", () => contractPanel(a)]);
  if (Number(c.validations_count) > 0) list.push(["Blocks proposed", () => paged(base + "/blocks-validated", listTable(validatedCols), "None.")]);
  render(a.is_contract ? "Contract" + (a.name ? " " + a.name : "") : "Address",
    h("div", { class: "card" }, fields([
      ["Address", bothSpellings(a.hash, "address"), "address"],
      ["Balance", coin(a.coin_balance), "balance"],
      held.length ? ["Tokens", tokenDropdown(held), "token-dropdown"] : null,
      a.token ? ["Token", tokenLink(a.token), "token"] : null,
      ["Nonce", nonce == null ? "—" : num(nonce), "nonce"],
      ["First seen", blockLink(a.first_seen_block_number), "first-seen"],
      ["Last seen", blockLink(a.last_seen_block_number), "last-seen"],
      a.creator_address_hash ? ["Creator", [addr(a.creator_address_hash), " in ", txLink(a.creation_transaction_hash)], "creator"] : null,
      ["Transactions", num(c.transactions_count), "transactions-count"],
      ["Token transfers", num(c.token_transfers_count), "token-transfers-count"],
      ["Gas used", num(c.gas_usage_count), "gas-usage-count"],
      Number(c.validations_count) > 0 ? ["Blocks proposed", num(c.validations_count), "validations-count"] : null,
      ["Last balance update", a.block_number_balance_updated_at == null ? "—" : blockLink(a.block_number_balance_updated_at), "balance-block"],
    ])),
    csvLinks(a.hash),
    tabs(list));
  titled((a.is_contract ? "Contract" + (a.name ? " " + a.name : "") : "Address") + " " + a.hash);
}

// tokenDropdown lists the address's token balances in a disclosure
// (Etherscan's token holdings dropdown): each token, its balance in the
// token's units, linked to the token (an NFT's id to its instance).
function tokenDropdown(held) {
  const row = (b) => h("li", { "data-token": b.token.address_hash },
    b.token_id == null ? tokenLink(b.token) : h("a", { href: "/token/" + b.token.address_hash + "/instance/" + b.token_id }, (b.token.name || b.token.address_hash) + " #" + b.token_id),
    " ", h("span", { class: "num", "data-field": "held" }, units(b.value, b.token.decimals ?? 0) + (b.token.symbol ? " " + b.token.symbol : "")));
  return h("details", { class: "token-dropdown" }, h("summary", {}, held.length + (held.length === 1 ? " token" : " tokens")), h("ul", {}, held.map(row)));
}

// csvLinks download the address's transactions and token transfers as
// CSV (Blockscout's columns), from its first day to today.
function csvLinks(hash) {
  const q = "?from_period=1970-01-01&to_period=" + new Date().toISOString().slice(0, 10);
  const link = (what, label) => h("a", { href: "/api/v2/addresses/" + hash + "/" + what + "/csv" + q, download: "", "data-csv": what }, label);
  return h("p", { class: "muted", "data-field": "csv-export" }, "Download CSV: ", link("transactions", "transactions"), " · ", link("token-transfers", "token transfers"));
}

// unindexed shows an address without EVM activity: its balance read from
// the node, which native (Cosmos) transfers change too.
async function unindexed(hex) {
  const wei = BigInt(await rpc("eth_getBalance", [hex, "latest"])).toString();
  render("Address",
    h("div", { class: "card" }, fields([
      ["Address", bothSpellings(checksum(hex), "address"), "address"],
      ["Balance", coin(wei), "balance"],
    ])),
    h("p", { class: "muted", "data-field": "unindexed" }, "No EVM transaction of this address is indexed; the balance is the node's."),
    h("h2", {}, "Staking"),
    h("div", { id: "panel-staking" }, await stakingPanel("/addresses/" + hex)));
  titled("Address " + checksum(hex));
}

const balanceCols = [
  ["Token", (b) => tokenLink(b.token)],
  ["Type", (b) => b.token.type],
  ["Balance", (b) => units(b.value, b.token.decimals ?? 0), "num"],
  ["Token id", (b) => b.token_id == null ? "—" : h("a", { href: "/token/" + b.token.address_hash + "/instance/" + b.token_id }, "#" + b.token_id)],
];

const validatedCols = [
  ["Block", (b) => blockLink(b.height)],
  ["Age", (b) => age(b.timestamp)],
  ["Txs", (b) => num(b.transactions_count), "num"],
];

async function balanceHistory(base) {
  const [byDay, changes] = await Promise.all([api(base + "/coin-balance-history-by-day"), api(base + "/coin-balance-history")]);
  const points = byDay.items.map((p) => ({ x: p.date, y: Number(BigInt(p.value) / 10n ** 12n) / 1e6 }));
  return h("div", {},
    h("div", { class: "card" }, lineChart(points, "Balance in EMBER per day, last " + byDay.days + " days", (v) => v.toLocaleString() + " EMBER")),
    h("h2", {}, "Balance changes"),
    changes.items.length ? table([
      ["Block", (x) => blockLink(x.block_number)],
      ["Tx", (x) => x.transaction_hash ? txLink(x.transaction_hash) : "—"],
      ["Change", (x) => [BigInt(x.delta) > 0n ? "+" : "", coin(x.delta)], "num"],
      ["Balance", (x) => coin(x.value), "num"],
    ], changes.items) : h("p", { class: "muted" }, "No balance changes."));
}

// validatorCell names a delegation's validator: moniker, then embervaloper1….
const validatorCell = (x) => h("span", {}, h("a", { href: "/validators", "data-field": "validator-moniker" }, x.moniker || "—"), h("br"),
  h("span", { class: "mono hash", "data-field": "validator-bech32", title: x.validator_address }, x.validator_address_bech32));

// stakingPanel shows the account's delegations, unbonding entries and
// pending rewards per validator, read from the chain at one block.
async function stakingPanel(base) {
  const s = await api(base + "/staking");
  return h("div", {},
    h("div", { class: "card" }, fields([
      ["Delegated", coin(s.total_delegated), "total-delegated"],
      ["Unbonding", coin(s.total_unbonding), "total-unbonding"],
      ["Pending rewards", decCoin(s.total_rewards), "total-rewards"],
      ["State of block", num(s.block_number), "staking-block"],
    ])),
    h("h2", {}, "Delegations"),
    s.delegations.length ? table([
      ["Validator", validatorCell],
      ["Shares", (x) => h("span", { class: "mono", "data-field": "shares" }, x.shares), "num"],
      ["Tokens", (x) => h("span", { "data-field": "delegation-balance" }, coin(x.balance)), "num"],
    ], s.delegations) : h("p", { class: "muted" }, "No delegations."),
    h("h2", {}, "Unbonding"),
    s.unbonding_entries.length ? table([
      ["Validator", validatorCell],
      ["Balance", (x) => h("span", { "data-field": "unbonding-balance" }, coin(x.balance)), "num"],
      ["Initial balance", (x) => coin(x.initial_balance), "num"],
      ["Created at block", (x) => h("span", { "data-field": "unbonding-height" }, blockLink(x.creation_height))],
      ["Completes", (x) => h("span", { "data-field": "unbonding-completion" }, h("time", { datetime: x.completion_time, title: x.completion_time }, new Date(x.completion_time).toLocaleString()))],
    ], s.unbonding_entries) : h("p", { class: "muted" }, "No unbonding entries."),
    h("h2", {}, "Pending rewards"),
    s.rewards.length ? table([
      ["Validator", validatorCell],
      ["Reward", (x) => h("span", { "data-field": "reward" }, decCoin(x.reward)), "num"],
    ], s.rewards) : h("p", { class: "muted" }, "No rewards."));
}
