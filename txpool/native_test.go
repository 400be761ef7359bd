package txpool

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// otherTx is a transaction of another kind than EVM (as the app's native
// ones): a fixed price per gas and an amount it spends besides.
type otherTx struct {
	nonce, gas   uint64
	price, spend *big.Int
}

func (o otherTx) Nonce() uint64       { return o.nonce }
func (o otherTx) Gas() uint64         { return o.gas }
func (o otherTx) GasFeeCap() *big.Int { return o.price }
func (o otherTx) GasTipCap() *big.Int { return o.price }
func (o otherTx) Cost() *big.Int {
	return new(big.Int).Add(new(big.Int).Mul(o.price, new(big.Int).SetUint64(o.gas)), o.spend)
}

// TestOtherKindOfTx: a transaction that is not an EVM one takes its nonce
// in the sender's run, counts for the pending nonce, spending and ordering,
// and is left out of Content.
func TestOtherKindOfTx(t *testing.T) {
	a := newAccount(t)
	p := New(Config{})
	mustAdd(t, p, tx(t, a, 0, 1, 100, 21000), 0)
	other := NewTx(otherTx{nonce: 1, gas: 50_000, price: big.NewInt(100), spend: big.NewInt(7)}, a.addr, Key{0xaa}, []byte{0x0a})
	if added := mustAdd(t, p, other, 0); added.Status != Pending {
		t.Fatalf("other tx %v, want pending", added.Status)
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
	if len(ordered) != 3 || ordered[1] != other || other.EVM() != nil {
		t.Fatalf("order %v", ordered)
	}
}
