// Block: header fields, proposer, gas, fees, previous/next, its
// transactions, internal transactions and native (Cosmos) transactions.
import { api, h, render, titled, hashText, fields, num, coin, gwei, time, bothSpellings, blockLink, paged, tabs, table } from "../lib.js";
import { txCols, internalCols, nativeCols, listTable } from "./lists.js";

// allPages follows a list endpoint's next_page_params to its end: a
// block's transactions are few, and its totals need all of them.
async function allPages(path) {
  const out = [];
  let params = null;
  do {
    const page = await api(path + (params ? "?" + new URLSearchParams(params) : ""));
    out.push(...page.items);
    params = page.next_page_params;
  } while (params);
  return out;
}

const wei = (v) => BigInt(v == null ? 0 : v);

// kindCol badges a row of the block's combined list as EVM or native.
const kindCol = (kind) => ["Kind", () => h("span", { class: "badge", "data-field": "tx-kind" }, kind)];
const evmAll = [txCols[0], kindCol("EVM"), ...txCols.slice(1)];
const nativeAll = [nativeCols[0], kindCol("Native"), ...nativeCols.slice(1)];

export default async function block([, id]) {
  const b = await api("/blocks/" + encodeURIComponent(id));
  // The newest indexed block says whether a next one exists (asking for
  // it by number would answer 404 at the head).
  const latest = await api("/main-page/blocks");
  const next = latest.length && latest[0].height > b.height ? { height: b.height + 1 } : null;
  // The chain's transactions are EVM and native (Cosmos) ones alike: the
  // block counts both, its fees add what the native ones paid, and its
  // transactions tab lists both (EVM first, in index order, then native in
  // position order).
  // A source that cannot list them leaves the block's EVM figures, said so.
  let nativeErr = "";
  const natives = await allPages("/blocks/" + b.height + "/native-transactions").catch((e) => { nativeErr = e.message; return []; });
  const nativeFees = natives.reduce((s, t) => s + wei(t.fee && t.fee.value), 0n);
  const nativeBurnt = natives.reduce((s, t) => s + wei(t.transaction_burnt_fee), 0n);
  const total = b.transactions_count + natives.length;
  const txCount = natives.length
    ? num(total) + " (" + num(b.transactions_count) + " EVM, " + num(natives.length) + " native)"
    : num(total) + (nativeErr ? " EVM (native transactions unavailable: " + nativeErr + ")" : "");
  const txsTab = async () => {
    if (!natives.length) return paged("/blocks/" + b.height + "/transactions", listTable(txCols), "No transactions in this block.");
    const evm = b.transactions_count ? await allPages("/blocks/" + b.height + "/transactions") : [];
    return h("div", {}, evm.length ? table(evmAll, evm) : null, table(nativeAll, natives));
  };
  const pct = (v) => v == null ? "" : " (" + Number(v).toFixed(2) + "%)";
  render("Block " + b.height,
    h("nav", { class: "pager", "aria-label": "Neighbouring blocks" },
      b.height > 0 ? h("a", { href: "/block/" + (b.height - 1), rel: "prev" }, "← Block " + (b.height - 1)) : null,
      next ? h("a", { href: "/block/" + next.height, rel: "next" }, "Block " + next.height + " →") : null),
    h("div", { class: "card" }, fields([
      ["Height", String(b.height), "height"],
      ["Hash", hashText(b.hash, null, "block hash"), "hash"],
      b.cometbft_hash ? ["CometBFT block hash", hashText(b.cometbft_hash, null, "CometBFT block hash"), "cometbft-hash"] : null,
      ["Parent hash", h("a", { href: "/block/" + b.parent_hash, class: "mono hash" }, b.parent_hash), "parent-hash"],
      ["Timestamp", time(b.timestamp), "timestamp"],
      ["Transactions", txCount, "transactions-count"],
      ["Proposer (fee recipient)", bothSpellings(b.miner.hash, "miner"), "miner"],
      ["Gas used", num(b.gas_used) + pct(b.gas_used_percentage), "gas-used"],
      ["Gas limit", num(b.gas_limit), "gas-limit"],
      ["Gas target", b.gas_target_percentage == null ? "—" : (b.gas_target_percentage >= 0 ? "+" : "") + Number(b.gas_target_percentage).toFixed(2) + "% vs target", "gas-target"],
      ["Base fee per gas", gwei(b.base_fee_per_gas), "base-fee"],
      ["Burnt fees", coin((wei(b.burnt_fees) + nativeBurnt).toString()), "burnt-fees"],
      ["Priority fees", coin((wei(b.priority_fee) + nativeFees - nativeBurnt).toString()), "priority-fee"],
      ["Transaction fees", coin((wei(b.transaction_fees) + nativeFees).toString()), "transaction-fees"],
      ["Size", num(b.size) + " bytes", "size"],
      ["State root", h("span", { class: "mono hash" }, b.state_root), "state-root"],
      ["Extra data", h("span", { class: "mono hash" }, b.extra_data), "extra-data"],
    ])),
    tabs([
      ["Transactions", txsTab],
      ["Internal transactions", () => paged("/blocks/" + b.height + "/internal-transactions", listTable(internalCols), "No internal transactions.")],
      ["Native transactions", () => paged("/blocks/" + b.height + "/native-transactions", listTable(nativeCols), "No native transactions in this block.")],
    ]));
  titled("Block " + b.height + " " + b.hash);
}
