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
	tips, base, at, err := h.b.Store.RecentTips(ctx, oracleBlocks, oracleTxs)
	if err != nil || at == 0 {
		return nil, nil, err
	}
	if base == nil {
		base = new(big.Int)
	}
	sort.Slice(tips, func(i, j int) bool { return tips[i].Cmp(tips[j]) < 0 })
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

// gwei spells wei in gwei rounded to two decimals, as Blockscout's oracle.
func gwei(wei *big.Int) float64 {
	f, _ := new(big.Rat).SetFrac(wei, big.NewInt(1e9)).Float64()
	return math.Round(f*100) / 100
}
