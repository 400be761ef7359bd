package evm

import (
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/emberchain/ember/callframe"
)

// CallRecorder captures the internal transactions of a block while it
// executes: every call frame below each transaction's top-level call, with
// its trace address. It only uses the OnTxStart/OnTxEnd/OnEnter/OnExit
// hooks, so a plain value transfer (a single depth-0 frame) costs a few
// slice operations and no allocation beyond its empty per-transaction slot.
type CallRecorder struct {
	txs   [][]callframe.Frame // one list per included transaction
	stack []recFrame          // open frames; [0] is the top-level call
	inTx  bool                // between OnTxStart and OnTxEnd: frames outside a transaction are not recorded
}

type recFrame struct {
	index    int // in the current transaction's list; -1 for the top-level call
	children uint64
}

// NewCallRecorder returns an empty recorder.
func NewCallRecorder() *CallRecorder { return &CallRecorder{} }

// Hook adds the recorder's hooks to h, which must not already set
// OnTxStart, OnTxEnd, OnEnter or OnExit (the account tracker's hooks are
// state hooks only).
func (r *CallRecorder) Hook(h *tracing.Hooks) {
	h.OnTxStart = r.onTxStart
	h.OnTxEnd = r.onTxEnd
	h.OnEnter = r.onEnter
	h.OnExit = r.onExit
}

// Frames returns the frames of each transaction the block included, in
// order.
func (r *CallRecorder) Frames() [][]callframe.Frame { return r.txs }

func (r *CallRecorder) onTxStart(*tracing.VMContext, *types.Transaction, common.Address) {
	r.txs = append(r.txs, nil)
	r.stack = r.stack[:0]
	r.inTx = true
}

// onTxEnd drops the slot of a transaction the block rejected (ApplyMessage
// failed before executing it): it has no receipt and is not in the block.
func (r *CallRecorder) onTxEnd(_ *types.Receipt, err error) {
	r.inTx = false
	if err != nil && len(r.txs) > 0 {
		r.txs = r.txs[:len(r.txs)-1]
	}
}

func (r *CallRecorder) onEnter(depth int, typ byte, from, to common.Address, input []byte, gas uint64, value *big.Int) {
	if !r.inTx {
		return // not inside a transaction the executor applies (ApplyTx)
	}
	if depth == 0 || len(r.stack) == 0 {
		r.stack = append(r.stack[:0], recFrame{index: -1})
		return
	}
	parent := &r.stack[len(r.stack)-1]
	cur := &r.txs[len(r.txs)-1]
	// The parent's trace address (none for the top-level call) and this
	// frame's position among its siblings.
	var addr []uint64
	if parent.index >= 0 {
		pa := (*cur)[parent.index].TraceAddress
		addr = append(make([]uint64, 0, len(pa)+1), pa...)
	}
	addr = append(addr, parent.children)
	parent.children++
	v := new(big.Int)
	if value != nil {
		v.Set(value)
	}
	*cur = append(*cur, callframe.Frame{
		Type: typ, From: from, To: to, Value: v, Gas: gas,
		Input: bounded(input), TraceAddress: addr,
	})
	r.stack = append(r.stack, recFrame{index: len(*cur) - 1})
}

func (r *CallRecorder) onExit(depth int, output []byte, gasUsed uint64, err error, _ bool) {
	if !r.inTx || len(r.stack) == 0 {
		return
	}
	top := r.stack[len(r.stack)-1]
	r.stack = r.stack[:len(r.stack)-1]
	if depth == 0 || top.index < 0 {
		return
	}
	f := &r.txs[len(r.txs)-1][top.index]
	f.GasUsed = gasUsed
	f.Output = bounded(output)
	if err != nil {
		f.Error = err.Error()
		f.Output = nil
		if errors.Is(err, vm.ErrExecutionReverted) {
			f.Output = bounded(output) // the revert data
		}
	}
}

func bounded(b []byte) []byte {
	if len(b) > callframe.MaxData {
		b = b[:callframe.MaxData]
	}
	return common.CopyBytes(b)
}
