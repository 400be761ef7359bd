package txpool

import (
	"container/heap"
	"math/big"
	"slices"

	"github.com/emberchain/ember/evm"
	"github.com/ethereum/go-ethereum/common"
)

// Order picks transactions for a block: for each sender only the run of
// consecutive nonces starting at its state nonce, senders interleaved by
// effective tip at baseFee (highest first, earlier arrival on ties), up to
// gasLimit of declared gas. A sender whose next transaction does not fit, or
// whose fee cap is below baseFee, contributes nothing further. txs is in
// arrival order; stateNonce gives each sender's nonce in the parent state.
func Order(txs []*Tx, stateNonce func(common.Address) uint64, baseFee *big.Int, gasLimit uint64) []*Tx {
	arrival := make(map[*Tx]int, len(txs))
	bySender := make(map[common.Address][]*Tx)
	for i, tx := range txs {
		arrival[tx] = i
		bySender[tx.Sender] = append(bySender[tx.Sender], tx)
	}
	h := &tipHeap{}
	for sender, list := range bySender {
		slices.SortStableFunc(list, func(a, b *Tx) int {
			return cmpUint(a.Item.Nonce(), b.Item.Nonce())
		})
		if run := consecutive(list, stateNonce(sender)); len(run) > 0 {
			h.runs = append(h.runs, newSenderRun(run, arrival, baseFee))
		}
	}
	heap.Init(h)

	var (
		out []*Tx
		gas uint64
	)
	for h.Len() > 0 {
		run := h.runs[0]
		tx := run.txs[0]
		if gas+tx.Item.Gas() > gasLimit || tx.Item.GasFeeCap().Cmp(baseFee) < 0 {
			heap.Pop(h)
			continue
		}
		gas += tx.Item.Gas()
		out = append(out, tx)
		if len(run.txs) == 1 {
			heap.Pop(h)
		} else {
			h.runs[0] = newSenderRun(run.txs[1:], arrival, baseFee)
			heap.Fix(h, 0)
		}
	}
	return out
}

// consecutive returns the prefix of nonce-sorted list that starts at nonce
// next and has no gap; duplicates of a nonce keep the first arrival.
func consecutive(list []*Tx, next uint64) []*Tx {
	var run []*Tx
	for _, tx := range list {
		switch n := tx.Item.Nonce(); {
		case n < next:
			continue // already used, or a duplicate of a nonce taken
		case n == next:
			run = append(run, tx)
			next++
		default:
			return run
		}
	}
	return run
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// senderRun is one sender's remaining run with its head's sort keys,
// computed once when the head changes rather than on every comparison (a
// block of a thousand transfers made a hundred thousand big.Int copies).
type senderRun struct {
	txs     []*Tx
	tip     *big.Int // effective tip of txs[0] at the base fee
	arrival int      // arrival position of txs[0]
}

func newSenderRun(txs []*Tx, arrival map[*Tx]int, baseFee *big.Int) senderRun {
	return senderRun{txs: txs, tip: evm.EffectiveTip(txs[0].Item, baseFee), arrival: arrival[txs[0]]}
}

// tipHeap orders per-sender runs by the effective tip of their head tx,
// earlier arrival first on ties.
type tipHeap struct{ runs []senderRun }

func (h *tipHeap) Len() int { return len(h.runs) }
func (h *tipHeap) Less(i, j int) bool {
	a, b := &h.runs[i], &h.runs[j]
	if c := a.tip.Cmp(b.tip); c != 0 {
		return c > 0
	}
	return a.arrival < b.arrival
}
func (h *tipHeap) Swap(i, j int) { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *tipHeap) Push(x any)    { h.runs = append(h.runs, x.(senderRun)) }
func (h *tipHeap) Pop() any {
	old := h.runs
	x := old[len(old)-1]
	h.runs = old[:len(old)-1]
	return x
}
