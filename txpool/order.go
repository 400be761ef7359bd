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
	h := &tipHeap{baseFee: baseFee, arrival: arrival}
	for sender, list := range bySender {
		slices.SortStableFunc(list, func(a, b *Tx) int {
			return cmpUint(a.Item.Nonce(), b.Item.Nonce())
		})
		run := consecutive(list, stateNonce(sender))
		if len(run) > 0 {
			h.queues = append(h.queues, run)
		}
	}
	heap.Init(h)

	var (
		out []*Tx
		gas uint64
	)
	for h.Len() > 0 {
		run := h.queues[0]
		tx := run[0]
		if gas+tx.Item.Gas() > gasLimit || tx.Item.GasFeeCap().Cmp(baseFee) < 0 {
			heap.Pop(h)
			continue
		}
		gas += tx.Item.Gas()
		out = append(out, tx)
		if len(run) == 1 {
			heap.Pop(h)
		} else {
			h.queues[0] = run[1:]
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

// tipHeap orders per-sender runs by the effective tip of their head tx.
type tipHeap struct {
	queues  [][]*Tx
	baseFee *big.Int
	arrival map[*Tx]int
}

func (h *tipHeap) Len() int { return len(h.queues) }
func (h *tipHeap) Less(i, j int) bool {
	a, b := h.queues[i][0], h.queues[j][0]
	if c := evm.EffectiveTip(a.Item, h.baseFee).Cmp(evm.EffectiveTip(b.Item, h.baseFee)); c != 0 {
		return c > 0
	}
	return h.arrival[a] < h.arrival[b]
}
func (h *tipHeap) Swap(i, j int) { h.queues[i], h.queues[j] = h.queues[j], h.queues[i] }
func (h *tipHeap) Push(x any)    { h.queues = append(h.queues, x.([]*Tx)) }
func (h *tipHeap) Pop() any {
	old := h.queues
	x := old[len(old)-1]
	h.queues = old[:len(old)-1]
	return x
}
