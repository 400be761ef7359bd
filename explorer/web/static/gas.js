// The gas tracker's levels from the node's eth_feeHistory: the next
// block's base fee plus a priority fee (tip) per level, the mean over the
// recent blocks holding transactions of the tip paid at that level's
// percentile of gas (slow 35, average 60, fast 90, Blockscout's oracle
// percentiles). Exact wei (BigInt); pinned to one block so that what the
// page shows can be checked against the same history.
import { rpc } from "./lib.js";

export const GAS_BLOCKS = 20;
export const LEVELS = [["Slow", 35], ["Average", 60], ["Fast", 90]];

// gasLevels reads the history ending at block (a number, or the head)
// and returns {block, baseFee, levels: [{name, percentile, tip, price}]},
// amounts as decimal wei strings.
export async function gasLevels(block) {
  const at = block == null ? BigInt(await rpc("eth_blockNumber", [])) : BigInt(block);
  const fh = await rpc("eth_feeHistory", ["0x" + GAS_BLOCKS.toString(16), "0x" + at.toString(16), LEVELS.map(([, p]) => p)]);
  const next = BigInt(fh.baseFeePerGas[fh.baseFeePerGas.length - 1]); // the base fee of the block after `at`
  const busy = (fh.reward || []).filter((_, i) => fh.gasUsedRatio[i] > 0);
  const levels = LEVELS.map(([name, pct], j) => {
    const tip = busy.length ? busy.reduce((s, r) => s + BigInt(r[j]), 0n) / BigInt(busy.length) : 0n;
    return { name, percentile: pct, tip: tip.toString(), price: (next + tip).toString() };
  });
  return { block: at.toString(), baseFee: next.toString(), blocks: (fh.reward || []).length, busy: busy.length, levels };
}
