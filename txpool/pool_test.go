package txpool

import (
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/legacypool"
	"github.com/holiman/uint256"
)

// fakeState is a head state for Reset.
type fakeState struct {
	nonces   map[common.Address]uint64
	balances map[common.Address]*uint256.Int
}

func (s fakeState) GetNonce(a common.Address) uint64 { return s.nonces[a] }
func (s fakeState) GetBalance(a common.Address) *uint256.Int {
	if b, ok := s.balances[a]; ok {
		return b
	}
	return uint256.NewInt(1e18)
}

var baseFee = big.NewInt(10)

func mustAdd(t *testing.T, p *Pool, x *Tx, stateNonce uint64) Added {
	t.Helper()
	added, err := p.Add(x, stateNonce, baseFee)
	if err != nil {
		t.Fatalf("add nonce %d: %v", x.Item.Nonce(), err)
	}
	return added
}

func wantStats(t *testing.T, p *Pool, pending, queued int) {
	t.Helper()
	if gp, gq := p.Stats(); gp != pending || gq != queued {
		t.Fatalf("stats pending %d queued %d, want %d %d", gp, gq, pending, queued)
	}
}

// TestOutOfOrderArrival sends nonces 3, 1, 2, 0: the first three queue,
// 0 is pending, and the rest are promoted in nonce order.
func TestOutOfOrderArrival(t *testing.T) {
	a := newAccount(t)
	p := New(Config{})
	txs := map[uint64]*Tx{}
	for _, n := range []uint64{3, 1, 2} {
		txs[n] = tx(t, a, n, 1, 100, 21000)
		if got := mustAdd(t, p, txs[n], 0); got.Status != Queued || got.Promotable {
			t.Fatalf("nonce %d: %+v, want queued", n, got)
		}
	}
	wantStats(t, p, 0, 3)
	if n := p.PendingNonce(a.addr, 0); n != 0 {
		t.Fatalf("pending nonce with a gap at 0: %d", n)
	}
	txs[0] = tx(t, a, 0, 1, 100, 21000)
	if got := mustAdd(t, p, txs[0], 0); got.Status != Pending || !got.Promotable {
		t.Fatalf("nonce 0: %+v, want pending and promotable", got)
	}
	if n := p.PendingNonce(a.addr, 0); n != 4 {
		t.Fatalf("pending nonce %d, want 4 (queued txs count once contiguous)", n)
	}
	promotable := p.Promotable(func(common.Address) uint64 { return 0 })
	if len(promotable) != 3 || promotable[0] != txs[1] || promotable[2] != txs[3] {
		t.Fatalf("promotable %v", promotable)
	}
	// Out of order, nonce 3 is not next: "already known".
	if _, err := p.Promote(txs[3].Key, 0, baseFee); !errors.Is(err, gethpool.ErrAlreadyKnown) {
		t.Fatalf("promote 3 before 1: %v", err)
	}
	for _, x := range promotable {
		if got, err := p.Promote(x.Key, 0, baseFee); err != nil || got.Status != Pending {
			t.Fatalf("promote %d: %+v %v", x.Item.Nonce(), got, err)
		}
	}
	wantStats(t, p, 4, 0)
	pending, queued := p.ContentFrom(a.addr)
	if len(pending) != 4 || len(queued) != 0 || pending[0].Nonce() != 0 || pending[3].Nonce() != 3 {
		t.Fatalf("content %v %v", pending, queued)
	}
	if _, err := p.Add(txs[2], 0, baseFee); !errors.Is(err, gethpool.ErrAlreadyKnown) {
		t.Fatalf("re-add: %v", err)
	}
}

// TestReplacement applies geth's 10% rule to pending and queued txs.
func TestReplacement(t *testing.T) {
	a := newAccount(t)
	p := New(Config{})
	old := tx(t, a, 0, 100, 1000, 21000)
	mustAdd(t, p, old, 0)
	for _, c := range []struct {
		tip, feeCap int64
	}{{105, 1100}, {110, 1050}, {100, 2000}, {109, 1099}} {
		if _, err := p.Add(tx(t, a, 0, c.tip, c.feeCap, 21000), 0, baseFee); !errors.Is(err, gethpool.ErrReplaceUnderpriced) {
			t.Fatalf("tip %d fee cap %d: %v, want replacement underpriced", c.tip, c.feeCap, err)
		}
	}
	repl := tx(t, a, 0, 110, 1100, 21000)
	got := mustAdd(t, p, repl, 0)
	if got.Status != Pending || len(got.Displaced) != 1 || got.Displaced[0] != old {
		t.Fatalf("replacement: %+v", got)
	}
	if p.Get(old.Key) != nil || p.ByHash(old.Hash) != nil || p.ByHash(repl.Hash) != repl {
		t.Fatal("old tx still indexed")
	}
	wantStats(t, p, 1, 0)
	// A queued tx is replaced the same way; CometBFT never held it.
	q := tx(t, a, 5, 1, 100, 21000)
	mustAdd(t, p, q, 0)
	if got := mustAdd(t, p, tx(t, a, 5, 2, 200, 21000), 0); got.Status != Queued || len(got.Displaced) != 0 {
		t.Fatalf("queued replacement: %+v", got)
	}
	wantStats(t, p, 1, 1)
}

// TestReplacingQueuedAtRunEndPromotes: a replacement of the first queued
// tx, which now extends the run, is pending.
func TestReplacingQueuedAtRunEndPromotes(t *testing.T) {
	a := newAccount(t)
	p := New(Config{})
	mustAdd(t, p, tx(t, a, 1, 1, 100, 21000), 0)
	mustAdd(t, p, tx(t, a, 0, 1, 100, 21000), 0)
	if got := mustAdd(t, p, tx(t, a, 1, 2, 200, 21000), 0); got.Status != Pending || len(got.Displaced) != 0 {
		t.Fatalf("%+v", got)
	}
	wantStats(t, p, 2, 0)
}

// TestEvictCheapestPending fills the pending pool and checks that a better
// tx evicts the cheapest tail of another account, a worse one is refused,
// and accounts over AccountSlots give first.
func TestEvictCheapestPending(t *testing.T) {
	p := New(Config{GlobalSlots: 4, AccountSlots: 1})
	a, b, c, d := newAccount(t), newAccount(t), newAccount(t), newAccount(t)
	a0, a1 := tx(t, a, 0, 5, 100, 21000), tx(t, a, 1, 5, 100, 21000)
	b0, c0 := tx(t, b, 0, 2, 100, 21000), tx(t, c, 0, 3, 100, 21000)
	for _, x := range []*Tx{a0, a1, b0, c0} {
		mustAdd(t, p, x, 0)
	}
	// a holds 2 > AccountSlots: its tail a1 goes before the cheaper b0.
	got := mustAdd(t, p, tx(t, d, 0, 6, 100, 21000), 0)
	if len(got.Displaced) != 1 || got.Displaced[0] != a1 || p.Get(a1.Key) != nil {
		t.Fatalf("first eviction %+v", got)
	}
	// Now nobody is over: the cheapest tail, b0 (tip 2), goes.
	got = mustAdd(t, p, tx(t, d, 1, 4, 100, 21000), 0)
	if len(got.Displaced) != 1 || got.Displaced[0] != b0 {
		t.Fatalf("second eviction %+v", got)
	}
	if _, err := p.Add(tx(t, b, 0, 3, 100, 21000), 0, baseFee); !errors.Is(err, gethpool.ErrUnderpriced) {
		t.Fatalf("tx no better than the cheapest (c0, tip 3): %v", err)
	}
	wantStats(t, p, 4, 0)
	// A sender's own tail never makes way for it (that would open a gap).
	solo := New(Config{GlobalSlots: 1})
	e := newAccount(t)
	mustAdd(t, solo, tx(t, e, 0, 1, 100, 21000), 0)
	if _, err := solo.Add(tx(t, e, 1, 9, 100, 21000), 0, baseFee); !errors.Is(err, legacypool.ErrTxPoolOverflow) {
		t.Fatalf("full of own txs: %v", err)
	}
}

// TestQueueLimits checks the per-account and the global queue.
func TestQueueLimits(t *testing.T) {
	p := New(Config{AccountQueue: 2, GlobalQueue: 3})
	a, b := newAccount(t), newAccount(t)
	mustAdd(t, p, tx(t, a, 5, 1, 100, 21000), 0)
	mustAdd(t, p, tx(t, a, 6, 1, 100, 21000), 0)
	if _, err := p.Add(tx(t, a, 7, 9, 100, 21000), 0, baseFee); !errors.Is(err, gethpool.ErrAccountLimitExceeded) {
		t.Fatalf("third queued tx of a: %v", err)
	}
	b5 := tx(t, b, 5, 1, 50, 21000)
	mustAdd(t, p, b5, 0)
	// Full: a better queued tx of b evicts a's tail (a6), not b's own.
	got := mustAdd(t, p, tx(t, b, 6, 2, 100, 21000), 0)
	if len(got.Displaced) != 0 || p.Len() != 3 {
		t.Fatalf("%+v, %d pooled", got, p.Len())
	}
	if pend, queued := p.ContentFrom(a.addr); len(pend) != 0 || len(queued) != 1 || queued[0].Nonce() != 5 {
		t.Fatalf("a's queue after eviction: %v %v", pend, queued)
	}
	// A pending tx never counts against the queue.
	mustAdd(t, p, tx(t, a, 0, 1, 100, 21000), 0)
	wantStats(t, p, 1, 3)
}

// TestReset drops mined, unaffordable and underpriced txs, demotes what
// follows a gap and expires silent queues.
func TestReset(t *testing.T) {
	p := New(Config{Lifetime: time.Hour})
	clock := time.Unix(1_700_000_000, 0)
	p.now = func() time.Time { return clock }
	a, b, c := newAccount(t), newAccount(t), newAccount(t)
	var as []*Tx
	for n := uint64(0); n < 4; n++ {
		feeCap := int64(100)
		if n == 1 {
			feeCap = 200 // costs twice the others
		}
		as = append(as, tx(t, a, n, 2, feeCap, 21000))
		mustAdd(t, p, as[n], 0)
	}
	b0, b1, b2 := tx(t, b, 0, 2, 100, 21000), tx(t, b, 1, 2, 100, 21000), tx(t, b, 2, 1, 100, 21000)
	for _, x := range []*Tx{b0, b1, b2} {
		mustAdd(t, p, x, 0)
	}
	c9 := tx(t, c, 9, 2, 100, 21000)
	mustAdd(t, p, c9, 0)
	wantStats(t, p, 7, 1)

	// a: nonce 0 mined, nonce 1 now costs more than the balance, so 2 and 3
	// are demoted behind the gap. b: b2's tip is below the new minimum.
	st := fakeState{
		nonces:   map[common.Address]uint64{a.addr: 1},
		balances: map[common.Address]*uint256.Int{a.addr: uint256.NewInt(21000 * 100)},
	}
	p.Reset(st, big.NewInt(2), 0)
	if p.Get(as[0].Key) != nil || p.Get(as[1].Key) != nil || p.Get(b2.Key) != nil {
		t.Fatal("mined, unaffordable or underpriced tx kept")
	}
	if p.StatusOf(as[2].Key) != Queued || p.StatusOf(as[3].Key) != Queued || p.StatusOf(b1.Key) != Pending {
		t.Fatalf("statuses %v %v %v", p.StatusOf(as[2].Key), p.StatusOf(as[3].Key), p.StatusOf(b1.Key))
	}
	wantStats(t, p, 2, 3)
	// Lifetime: c sent nothing for over an hour, a did (it has queued txs
	// too, but a new one refreshes it).
	clock = clock.Add(59 * time.Minute)
	mustAdd(t, p, tx(t, a, 9, 2, 100, 21000), 1)
	clock = clock.Add(2 * time.Minute)
	p.Reset(fakeState{nonces: map[common.Address]uint64{a.addr: 1}}, nil, 0)
	if p.Get(c9.Key) != nil || p.Get(as[2].Key) == nil {
		t.Fatal("lifetime: c's queue should expire, a's stay")
	}
	wantStats(t, p, 2, 3)
}

// TestSpentCountsPending: overdraft checks see pending txs only.
func TestSpentCountsPending(t *testing.T) {
	a := newAccount(t)
	p := New(Config{})
	mustAdd(t, p, tx(t, a, 0, 1, 10, 21000), 0)
	mustAdd(t, p, tx(t, a, 1, 1, 10, 21000), 0)
	mustAdd(t, p, tx(t, a, 3, 1, 10, 21000), 0)
	if s := p.Spent(a.addr); s.Int64() != 2*21000*10 {
		t.Fatalf("spent %v", s)
	}
	if c := p.PendingCost(a.addr, 1); c == nil || c.Int64() != 21000*10 {
		t.Fatalf("pending cost of 1: %v", c)
	}
	if c := p.PendingCost(a.addr, 3); c != nil {
		t.Fatalf("queued tx has a pending cost: %v", c)
	}
	if n := p.PendingNonce(a.addr, 0); n != 2 {
		t.Fatalf("pending nonce %d, want 2", n)
	}
	// The running total follows replacement, promotion, removal and reset.
	mustAdd(t, p, tx(t, a, 1, 2, 20, 21000), 0) // replaces nonce 1 at twice the fee cap
	if s := p.Spent(a.addr); s.Int64() != 21000*10+21000*20 {
		t.Fatalf("spent after replacement %v", s)
	}
	t2 := tx(t, a, 2, 1, 10, 21000)
	mustAdd(t, p, t2, 0) // fills the gap: 3 stays queued until promoted
	if s := p.Spent(a.addr); s.Int64() != 2*21000*10+21000*20 {
		t.Fatalf("spent after nonce 2 %v", s)
	}
	p.Remove(t2.Key)
	if s := p.Spent(a.addr); s.Int64() != 21000*10+21000*20 {
		t.Fatalf("spent after removal %v", s)
	}
	p.Reset(fakeState{nonces: map[common.Address]uint64{a.addr: 1}}, nil, 0) // nonce 0 mined
	if s := p.Spent(a.addr); s.Int64() != 21000*20 {
		t.Fatalf("spent after reset %v", s)
	}
}

// TestResetDemotesUnseen: a pending tx CometBFT did not recheck after the
// previous block is not in its mempool; it and what follows it are
// demoted, to be resubmitted.
func TestResetDemotesUnseen(t *testing.T) {
	a := newAccount(t)
	p := New(Config{})
	st := fakeState{nonces: map[common.Address]uint64{}}
	p.Reset(st, nil, 1)
	t0, t1 := tx(t, a, 0, 1, 100, 21000), tx(t, a, 1, 1, 100, 21000)
	mustAdd(t, p, t0, 0)
	mustAdd(t, p, t1, 0)
	p.Reset(st, nil, 2) // admitted since the last reset: kept
	wantStats(t, p, 2, 0)
	p.Seen(t1.Key) // rechecked after block 2; t0 was not
	p.Reset(st, nil, 3)
	if p.StatusOf(t0.Key) != Queued || p.StatusOf(t1.Key) != Queued {
		t.Fatalf("statuses %v %v, want both queued", p.StatusOf(t0.Key), p.StatusOf(t1.Key))
	}
	if got := p.Promotable(func(common.Address) uint64 { return 0 }); len(got) != 2 || got[0] != t0 {
		t.Fatalf("promotable %v", got)
	}
}

// TestResetKeepsUnseenProposedFromPool: when proposals take pending txs from
// the pool, CometBFT's mempool may never hold them: Reset keeps them
// pending without a recheck.
func TestResetKeepsUnseenProposedFromPool(t *testing.T) {
	a := newAccount(t)
	p := New(Config{})
	p.ProposeFromPool()
	st := fakeState{nonces: map[common.Address]uint64{}}
	p.Reset(st, nil, 1)
	t0 := tx(t, a, 0, 1, 100, 21000)
	mustAdd(t, p, t0, 0)
	p.Reset(st, nil, 2)
	p.Reset(st, nil, 3)
	wantStats(t, p, 1, 0)
}
