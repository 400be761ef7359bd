package app

import (
	"context"
	"time"

	pool "github.com/emberchain/ember/txpool"
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
// CheckTx 1–2 ms after the proof block was proposed; 5 ms also covers a
// client polling its receipt every few milliseconds. A block nobody sends
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
// has pending transactions the proposal should take. It does not wait when
// automine is off (admitted txs are held), or when dev edits are queued or
// a caller waits for this very block (evm_setBalance and friends).
func (a *App) awaitArrival(ctx context.Context, txs [][]byte) bool {
	if !a.genesis.Dev || len(txs) > 0 || a.manual.off.Load() || a.devBusy() {
		return false
	}
	select { // a signal of a transaction already proposed
	case <-a.arrived.ch:
	default:
	}
	if pending, _ := a.pool.Stats(); pending > 0 {
		return true
	}
	t := time.NewTimer(a.arrived.wait)
	defer t.Stop()
	select {
	case <-a.arrived.ch:
	case <-t.C:
	case <-ctx.Done():
	}
	if a.manual.off.Load() {
		// Automine went off during the wait: what arrived since is held
		// for evm_mine, not for this block.
		return false
	}
	pending, _ := a.pool.Stats()
	return pending > 0
}

// arrivedTxs is what a proposal that waited takes: every pending
// transaction (CometBFT's mempool had none when it asked).
func (a *App) arrivedTxs() []*pool.Tx { return a.pool.Pending() }
