package e2e

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
)

// TestExplorerGasOracle sends ten transactions tipping 1…10 gwei and checks
// /stats gas_prices: Blockscout's 35th/60th/90th percentiles of the tips
// over the newest block's base fee, in gwei.
func TestExplorerGasOracle(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--explorer.enable")
	s := loadBlockscoutSchemas(t)
	var empty map[string]any
	n.explorerJSON(t, s, "StatsResponse", "/api/v2/stats", &empty)

	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	gwei := big.NewInt(params.GWei)
	var last uint64
	for i := int64(1); i <= 10; i++ {
		tx := n.signTx(t, devKeys[7].Private, txOpts{To: &to, Value: big.NewInt(1),
			Tip: new(big.Int).Mul(big.NewInt(i), gwei), FeeCap: new(big.Int).Mul(big.NewInt(100), gwei)})
		if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
			t.Fatal(err)
		}
		last = max(last, n.WaitReceipt(t, tx.Hash()).BlockNumber.Uint64())
	}
	n.waitIndexed(t, last)
	head, err := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(last))
	if err != nil || head.BaseFee.Cmp(gwei) != 0 {
		t.Fatalf("base fee of block %d is %v (%v), the test expects the 1 gwei floor", last, head.BaseFee, err)
	}

	var st struct {
		GasPrices map[string]map[string]any `json:"gas_prices"`
		UpdatedAt *string                   `json:"gas_price_updated_at"`
	}
	n.explorerJSON(t, s, "StatsResponse", "/api/v2/stats", &st)
	// Tips sorted 1…10 gwei; Blockscout's index (n−1)·p/100: 35% → 4,
	// 60% → 6, 90% → 9 gwei; base fee 1 gwei.
	want := map[string]float64{"slow": 4, "average": 6, "fast": 9}
	for name, tip := range want {
		got := st.GasPrices[name]
		if got["priority_fee"] != tip || got["base_fee"] != 1.0 || got["price"] != tip+1 || got["fiat_price"] != nil {
			t.Fatalf("gas_prices.%s = %v, want priority fee %v gwei over base fee 1", name, got, tip)
		}
	}
	if st.UpdatedAt == nil {
		t.Fatal("gas_price_updated_at is null with blocks indexed")
	}
}
