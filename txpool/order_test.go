package txpool

import (
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

type testAccount struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newAccount(t testing.TB) testAccount {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return testAccount{k, crypto.PubkeyToAddress(k.PublicKey)}
}

func tx(t testing.TB, a testAccount, nonce uint64, tip, feeCap int64, gas uint64) *Tx {
	signed, err := types.SignNewTx(a.key, types.LatestSignerForChainID(big.NewInt(1)), &types.DynamicFeeTx{
		ChainID: big.NewInt(1), Nonce: nonce, GasTipCap: big.NewInt(tip), GasFeeCap: big.NewInt(feeCap), Gas: gas,
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := signed.MarshalBinary()
	return NewTx(signed, a.addr, KeyOf(raw), raw)
}

func TestOrder(t *testing.T) {
	a, b, c := newAccount(t), newAccount(t), newAccount(t)
	base := big.NewInt(10)
	// a: nonces 5,6 arriving in reverse, tip 1; b: nonce 0 tip 5 then nonce 1
	// tip 50; c: nonce 3 is gapped (state nonce 2); a's stale nonce 4.
	a6, a5, a4 := tx(t, a, 6, 1, 100, 21000), tx(t, a, 5, 1, 100, 21000), tx(t, a, 4, 9, 100, 21000)
	b0, b1 := tx(t, b, 0, 5, 100, 21000), tx(t, b, 1, 50, 100, 21000)
	c3 := tx(t, c, 3, 99, 100, 21000)
	nonces := map[common.Address]uint64{a.addr: 5, b.addr: 0, c.addr: 2}
	got := Order([]*Tx{a6, a5, a4, b0, b1, c3}, func(x common.Address) uint64 { return nonces[x] }, base, 1_000_000)
	want := []*Tx{b0, b1, a5, a6} // b0 (tip 5) beats a5 (tip 1); then b1 (tip 50)
	if len(got) != len(want) {
		t.Fatalf("got %d txs, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("position %d: nonce %d of %s, want nonce %d of %s", i, got[i].Item.Nonce(), got[i].Sender, want[i].Item.Nonce(), want[i].Sender)
		}
	}
}

func TestOrderGasLimitAndBaseFee(t *testing.T) {
	a, b, c := newAccount(t), newAccount(t), newAccount(t)
	base := big.NewInt(10)
	big0 := tx(t, a, 0, 100, 200, 60_000) // best tip, does not fit after b0
	b0 := tx(t, b, 0, 200, 300, 50_000)
	cheap := tx(t, c, 0, 1, 9, 21_000) // fee cap below the base fee
	zero := func(common.Address) uint64 { return 0 }
	got := Order([]*Tx{big0, b0, cheap}, zero, base, 100_000)
	if len(got) != 1 || got[0] != b0 {
		t.Fatalf("got %d txs (first %v), want only b0", len(got), got)
	}
}

// BenchmarkOrder orders a dev-chain burst's block: 1,200 transfers from 50
// senders, 24 each, all at one tip (every comparison falls to arrival).
func BenchmarkOrder(b *testing.B) {
	var txs []*Tx
	nonces := map[common.Address]uint64{}
	for range 50 {
		a := newAccount(b)
		nonces[a.addr] = 0
		for n := range uint64(24) {
			txs = append(txs, tx(b, a, n, 1, 100, 21000))
		}
	}
	base := big.NewInt(10)
	for b.Loop() {
		if got := Order(txs, func(x common.Address) uint64 { return nonces[x] }, base, 30_000_000); len(got) != len(txs) {
			b.Fatalf("ordered %d of %d", len(got), len(txs))
		}
	}
}
