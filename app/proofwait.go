package app

import (
	"context"
	"time"
)

// proofWait is how long a dev chain's empty proposal waits for a
// transaction.
//
// A chain that makes blocks only when transactions arrive (`emberd dev`)
// still makes one more block, empty, after each block that changed the
// state: CometBFT's proof block, which carries the new AppHash in its
// header (needProofBlock in CometBFT's consensus/state.go). It is proposed
// the moment the previous block is committed, before a client waiting for
// its receipt has even seen it; that client's next transaction then
// arrives while the proof block is in consensus and waits for it, then for
// a block of its own: two blocks per transaction. So an empty dev proposal
// is held back until a transaction is admitted, for at most proofWait, and
// the proof block carries it. Timeline of one tx at a time (newHeads, then
// eth_getTransactionReceipt, then the next send): the next tx reaches
// CheckTx a few milliseconds after the proof block was proposed, and
// proofWait also covers a client polling its receipt that often (the
// timeline is in bench/README.md). A block nobody sends
// a transaction for is 5 ms late, and that block is empty.
const proofWait = 5 * time.Millisecond

// arrivals signals a transaction admitted as pending (CheckTx) to an
// empty proposal waiting for one, at most wait.
type arrivals struct {
	ch   chan struct{}
	wait time.Duration
}

func newArrivals() arrivals { return arrivals{ch: make(chan struct{}, 1), wait: proofWait} }

// signal notes an arrival without blocking: one pending signal is enough.
func (r arrivals) signal() {
	select {
	case r.ch <- struct{}{}:
	default:
	}
}

// awaitArrival holds back an empty dev proposal (txs empty) for at most
// proofWait until a transaction is admitted; it reports whether the pool
// has pending transactions the proposal should take. It does not wait on a
// real chain (d nil), when automine is off (admitted txs are held), or when
// dev edits are queued or a caller waits for this very block
// (evm_setBalance and friends).
func (d *devChain) awaitArrival(ctx context.Context, txs [][]byte) bool {
	if d == nil || len(txs) > 0 || d.manual.off.Load() || d.busy() {
		return false
	}
	arrived, p := d.a.arrived, d.a.pool
	select { // a signal of a transaction already proposed
	case <-arrived.ch:
	default:
	}
	if pending, _ := p.Stats(); pending > 0 {
		return true
	}
	t := time.NewTimer(arrived.wait)
	defer t.Stop()
	select {
	case <-arrived.ch:
	case <-t.C:
	case <-ctx.Done():
	}
	if d.manual.off.Load() {
		// Automine went off during the wait: what arrived since is held
		// for evm_mine, not for this block.
		return false
	}
	pending, _ := p.Stats()
	return pending > 0
}
