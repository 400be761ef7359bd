// Home: chain stats, the daily transactions chart, and the latest
// blocks and transactions, polled every second while the tab is visible.
import { api, h, num, coin, age, short, addr, txLink, blockLink, status, mainEl, gwei } from "../lib.js";
import { lineChart } from "../chart.js";

const POLL_MS = 1000;

export default async function home() {
  document.title = "Ember explorer";
  const statsBox = h("div", { class: "grid", id: "stats", "aria-live": "polite" });
  const chartBox = h("div", { class: "card", id: "tx-chart" });
  const blocksBox = h("div", { id: "latest-blocks" });
  const txsBox = h("div", { id: "latest-txs" });
  mainEl().replaceChildren(
    h("h1", { class: "visually-hidden" }, "Ember explorer"),
    statsBox,
    h("h2", {}, "Daily transactions"), chartBox,
    h("div", { class: "cols" },
      h("section", { "aria-labelledby": "h-blocks" }, h("h2", { id: "h-blocks" }, "Latest blocks ", h("a", { href: "/blocks", class: "muted" }, "view all")), blocksBox),
      h("section", { "aria-labelledby": "h-txs" }, h("h2", { id: "h-txs" }, "Latest EVM transactions ", h("a", { href: "/txs", class: "muted" }, "view all")), txsBox)));

  const [stats, chart] = await Promise.all([api("/stats"), api("/stats/charts/transactions")]);
  showStats(statsBox, stats);
  const points = chart.chart_data.slice().reverse().map((p) => ({ x: p.date, y: Number(p.transactions_count ?? p.transaction_count ?? 0) }));
  chartBox.replaceChildren(lineChart(points, "Transactions per day over the last " + points.length + " days", num));

  let seen = new Set(), first = true;
  // A block's count is its EVM and native transactions; an indexed block
  // does not change, so each block's native count is asked for once.
  const natives = new Map();
  const nativeCount = async (height) => {
    if (!natives.has(height)) {
      // A failed read leaves the block at its EVM count and is asked again
      // at the next poll.
      const p = await api("/blocks/" + height + "/native-transactions").catch(() => null);
      if (!p) return null;
      natives.set(height, { n: p.items.length, more: !!p.next_page_params });
    }
    return natives.get(height);
  };
  async function poll() {
    const [blocks, txs] = await Promise.all([api("/main-page/blocks"), api("/main-page/transactions")]);
    const counts = await Promise.all(blocks.map((b) => nativeCount(b.height)));
    blocks.forEach((b, i) => { b.native = counts[i]; });
    for (const k of natives.keys()) if (!blocks.some((b) => b.height === k)) natives.delete(k);
    blocksBox.replaceChildren(blockTable(blocks, first ? null : seen));
    txsBox.replaceChildren(txTable(txs));
    seen = new Set(blocks.map((b) => b.height));
    first = false;
  }
  await poll();
  let busy = false;
  setInterval(async () => {
    if (document.hidden || busy) return;
    busy = true;
    try {
      await poll();
      showStats(statsBox, await api("/stats"));
    } catch (e) { /* a failed poll is retried at the next tick */ } finally { busy = false; }
  }, POLL_MS);
}

function showStats(box, s) {
  const stat = (label, value, key) => h("div", { class: "card stat" }, h("div", { class: "label" }, label), h("div", { class: "value", "data-field": key }, value));
  const gp = s.gas_prices || {};
  box.replaceChildren(
    stat("Blocks", num(s.total_blocks), "total-blocks"),
    // Counts EVM and native transactions, as Blockscout counts every
    // transaction of the chain; /txs lists the EVM ones.
    stat("Transactions (EVM + native)", num(s.total_transactions), "total-transactions"),
    stat("Addresses", num(s.total_addresses), "total-addresses"),
    stat("Average block time", s.average_block_time == null ? "—" : (s.average_block_time / 1000).toFixed(2) + " s", "average-block-time"),
    stat(h("a", { href: "/gas-tracker" }, "Gas price (average)"), gp.average && gp.average.price != null ? gp.average.price + " Gwei" : "—", "gas-price"),
    stat("Transactions today", num(s.transactions_today), "transactions-today"));
}

function blockTable(blocks, seen) {
  return h("ul", { class: "card", style: null, role: "list" }, blocks.map((b) =>
    h("li", { class: seen && !seen.has(b.height) ? "new" : null, "data-block": b.height },
      h("a", { href: "/block/" + b.height }, "Block " + b.height), " ",
      h("span", { class: "muted" }, age(b.timestamp), " · ", h("span", { "data-field": "block-txs" }, blockTxs(b)), " · proposer "), addr(b.miner))));
}

// blockTxs counts a block's EVM and native transactions ("+" when the
// native ones fill more than a page).
function blockTxs(b) {
  const n = b.transactions_count + (b.native ? b.native.n : 0);
  return num(n) + (b.native && b.native.more ? "+" : "") + (n === 1 ? " tx" : " txs");
}

function txTable(txs) {
  if (!txs.length) return h("p", { class: "muted" }, "No transactions yet.");
  return h("ul", { class: "card", role: "list" }, txs.map((t) =>
    h("li", {}, txLink(t.hash), " ", status(t), " ", h("span", { class: "muted" }, "from "), addr(t.from), h("span", { class: "muted" }, " to "), addr(t.to || t.created_contract), " ", coin(t.value))));
}
