package feemarket

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/module"
)

func genesis(t *testing.T, appState string) (*module.AllocState, error) {
	t.Helper()
	g := &module.Genesis{AppState: json.RawMessage(appState), Alloc: types.GenesisAlloc{}}
	err := Module{}.InitGenesis(g)
	return module.NewAllocState(g.Alloc), err
}

// TestGenesisAndFallback: app_state.fee_market.min_base_fee (decimal or
// 0x hex) is written into the state; a state without it answers the
// fallback, and a recorded 0 is 0, not the fallback.
func TestGenesisAndFallback(t *testing.T) {
	for appState, want := range map[string]int64{
		`{"fee_market":{"min_base_fee":"1000000000"}}`:  1_000_000_000,
		`{"fee_market":{"min_base_fee":"0x2540be400"}}`: 10_000_000_000,
		`{"fee_market":{"min_base_fee":"0"}}`:           0,
	} {
		st, err := genesis(t, appState)
		if err != nil {
			t.Fatal(err)
		}
		if got := MinBaseFee(st, big.NewInt(7)); got.Cmp(big.NewInt(want)) != 0 || st.GetNonce(StateAddress) != 1 {
			t.Fatalf("%s: floor %v (nonce %d), want %d", appState, got, st.GetNonce(StateAddress), want)
		}
	}
	for _, appState := range []string{`{}`, `{"fee_market":{}}`, `{"fee_market":null}`} {
		st, err := genesis(t, appState)
		if err != nil {
			t.Fatal(err)
		}
		fallback := big.NewInt(7)
		got := MinBaseFee(st, fallback)
		if got.Cmp(fallback) != 0 || st.Exist(StateAddress) {
			t.Fatalf("%s: floor %v, want the fallback 7 and no account", appState, got)
		}
		got.SetInt64(9) // a copy: the caller's fallback is not the state's
		if fallback.Int64() != 7 || MinBaseFee(st, nil).Sign() != 0 {
			t.Fatalf("fallback changed through the answer, or nil fallback not 0")
		}
	}
	if _, err := genesis(t, `{"fee_market":{"min_base_fee":"-1"}}`); err == nil {
		t.Fatal("negative floor accepted at genesis")
	}
}

func TestSetParams(t *testing.T) {
	st, _ := genesis(t, `{}`)
	for _, tc := range []struct {
		fee  *big.Int
		want string
	}{
		{nil, "min base fee cannot be nil"},
		{big.NewInt(-5), "min base fee cannot be negative: -5"},
		{new(big.Int).Lsh(big.NewInt(1), 256), "min base fee is too large: 115792089237316195423570985008687907853269984665640564039457584007913129639936"},
	} {
		if err := SetParams(st, Params{MinBaseFee: tc.fee}); err == nil || err.Error() != tc.want {
			t.Fatalf("SetParams(%v) = %v, want %q", tc.fee, err, tc.want)
		}
	}
	if st.Exist(StateAddress) {
		t.Fatal("a refused SetParams wrote the account")
	}
	if err := SetParams(st, Params{MinBaseFee: big.NewInt(42)}); err != nil {
		t.Fatal(err)
	}
	if p, ok := GetParams(st); !ok || p.MinBaseFee.Int64() != 42 {
		t.Fatalf("params %v %v", p.MinBaseFee, ok)
	}
}
