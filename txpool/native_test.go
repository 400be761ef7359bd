package txpool

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// TestNativeStandIn: a native tx (a stand-in with Native set) takes its
// nonce in the sender's run, counts for the pending nonce, spending and
// ordering, and is left out of Content.
func TestNativeStandIn(t *testing.T) {
	a := newAccount(t)
	p := New(Config{})
	mustAdd(t, p, tx(t, a, 0, 1, 100, 21000), 0)
	key := Key{0xaa}
	standIn := types.NewTx(&types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(100), Gas: 50_000, To: &a.addr, Value: big.NewInt(7), Data: key[:],
		V: new(big.Int), R: new(big.Int), S: new(big.Int)})
	if added := mustAdd(t, p, &Tx{Tx: standIn, Sender: a.addr, Key: key, Native: struct{}{}}, 0); added.Status != Pending {
		t.Fatalf("native stand-in %v, want pending", added.Status)
	}
	mustAdd(t, p, tx(t, a, 2, 1, 100, 21000), 0)
	if n := p.PendingNonce(a.addr, 0); n != 3 {
		t.Fatalf("pending nonce %d, want 3", n)
	}
	if got, want := p.Spent(a.addr), big.NewInt(2*21000*100+50_000*100+7); got.Cmp(want) != 0 {
		t.Fatalf("spent %v, want %v", got, want)
	}
	pending, _ := p.Content()
	if len(pending[a.addr]) != 2 || pending[a.addr][0].Nonce() != 0 || pending[a.addr][1].Nonce() != 2 {
		t.Fatalf("content %v", pending[a.addr])
	}
	var cands []*Tx
	for _, n := range []uint64{2, 1, 0} {
		cands = append(cands, p.ByNonce(a.addr, n))
	}
	ordered := Order(cands, func(common.Address) uint64 { return 0 }, baseFee, 1_000_000)
	if len(ordered) != 3 || ordered[1].Native == nil {
		t.Fatalf("order %v", ordered)
	}
}
