package api

import (
	"context"
	"math"
	"math/big"
	"sort"
)

// The gas price oracle of /stats, as Blockscout computes it: percentiles of
// the priority fees the newest transactions paid, on top of the newest
// block's base fee (the next block's may differ by up to 12.5%).
const (
	oracleBlocks = 200  // how far back transactions are sampled
	oracleTxs    = 2000 // at most this many of the newest transactions
)

// The oracle's percentiles, Blockscout's.
const (
	oracleSlow    = 35
	oracleAverage = 60
	oracleFast    = 90
)

// gasPrices answers the gas_prices member of /stats (gwei, two decimals)
// and the time of the block it was computed at; nil when nothing is
// indexed. blockMilli is the average block time, the inclusion estimate.
func (h *handlers) gasPrices(ctx context.Context, blockMilli float64) (*gasPricesJSON, *string, error) {
	g, err := h.gas.get(h.b.Status, func() (gasSample, error) {
		tips, base, at, err := h.b.Store.RecentTips(ctx, oracleBlocks, oracleTxs)
		sort.Slice(tips, func(i, j int) bool { return tips[i].Cmp(tips[j]) < 0 })
		if base == nil {
			base = new(big.Int)
		}
		return gasSample{tips: tips, base: base, at: at}, err
	})
	if err != nil || g.at == 0 {
		return nil, nil, err
	}
	tips, base, when := g.tips, g.base, g.at
	at := func(pct int) gasPrice {
		tip := new(big.Int)
		if len(tips) > 0 {
			tip = tips[(len(tips)-1)*pct/100]
		}
		return gasPrice{BaseFee: gwei(base), Price: gwei(new(big.Int).Add(base, tip)), PriorityFee: gwei(tip),
			Time: math.Round(blockMilli)}
	}
	return &gasPricesJSON{Average: at(oracleAverage), Fast: at(oracleFast), Slow: at(oracleSlow)}, ptr(isoTime(when)), nil
}

// gasSample is what the oracle reads from the store, kept per indexed
// height: the sampled priority fees in ascending order, the newest block's
// base fee and time (0 before any block).
type gasSample struct {
	tips []*big.Int
	base *big.Int
	at   uint64
}

// gwei spells wei in gwei rounded to two decimals, as Blockscout's oracle.
func gwei(wei *big.Int) float64 {
	f, _ := new(big.Rat).SetFrac(wei, big.NewInt(1e9)).Float64()
	return math.Round(f*100) / 100
}
