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

// oraclePercentiles are Blockscout's: slow, average, fast.
var oraclePercentiles = []struct {
	name string
	pct  int
}{{"slow", 35}, {"average", 60}, {"fast", 90}}

// gasPrices answers the gas_prices member of /stats (gwei, two decimals)
// and the time of the block it was computed at; nil when nothing is
// indexed. blockMilli is the average block time, the inclusion estimate.
func (h *handlers) gasPrices(ctx context.Context, blockMilli float64) (any, any, error) {
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
	tips, base, at := g.tips, g.base, g.at
	out := obj{}
	for _, p := range oraclePercentiles {
		tip := new(big.Int)
		if len(tips) > 0 {
			tip = tips[(len(tips)-1)*p.pct/100]
		}
		out[p.name] = obj{
			"price":        gwei(new(big.Int).Add(base, tip)),
			"priority_fee": gwei(tip),
			"base_fee":     gwei(base),
			"fiat_price":   nil, // no price source
			"time":         math.Round(blockMilli),
		}
	}
	return out, isoTime(at), nil
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
