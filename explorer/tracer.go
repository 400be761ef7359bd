package explorer

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// ErrCannotTrace is what a Tracer returns when its chain cannot re-execute
// transactions (an endpoint without the debug namespace).
var ErrCannotTrace = errors.New("tracing not available")

// Tracer re-executes included transactions on demand, for the raw trace and
// the state changes of a transaction (nothing of it is stored). NodeSource
// implements it in-process once the node hands it its tracer (SetTracer);
// the JSON-RPC source implements it with debug_traceTransaction.
type Tracer interface {
	// CallTrace is an included transaction's call tree as go-ethereum's
	// callTracer reports it; ErrNotFound when the chain has no such
	// transaction.
	CallTrace(ctx context.Context, hash common.Hash) (*CallTrace, error)
	// StateAround re-executes an included transaction and reports the coin
	// balance before and after it of every account whose balance it
	// touched and of the block's fee recipient, and the results of calls
	// (e.g. balanceOf) run on the state just before and just after it.
	StateAround(ctx context.Context, hash common.Hash, calls []StateCall) (*TxState, error)
}

// CallTrace is one frame of callTracer's output (its JSON shape).
type CallTrace struct {
	Type         string          `json:"type"`
	From         common.Address  `json:"from"`
	To           *common.Address `json:"to,omitempty"`
	Value        *hexutil.Big    `json:"value,omitempty"`
	Gas          hexutil.Uint64  `json:"gas"`
	GasUsed      hexutil.Uint64  `json:"gasUsed"`
	Input        hexutil.Bytes   `json:"input"`
	Output       hexutil.Bytes   `json:"output,omitempty"`
	Error        string          `json:"error,omitempty"`
	RevertReason string          `json:"revertReason,omitempty"`
	Calls        []CallTrace     `json:"calls,omitempty"`
}

// StateCall is a read-only call run around a transaction.
type StateCall struct {
	To   common.Address
	Data []byte
}

// TxState is what StateAround reports.
type TxState struct {
	Miner common.Address
	// Coins lists each account whose balance the transaction touched, in
	// first-touch order, then the fee recipient if it is not among them.
	Coins []CoinState
	// Before and After hold the result of each call (nil when it failed or
	// the state around the transaction cannot be reached); nil when no
	// call was asked for.
	Before, After [][]byte
}

// CoinState is an account's coin balance before and after a transaction.
type CoinState struct {
	Address       common.Address
	Before, After *big.Int
}

// Frames flattens a call tree's frames below the top-level call into
// internal calls in depth-first order, with their trace addresses.
func (c *CallTrace) Frames() []InternalCall {
	var out []InternalCall
	var walk func(f *CallTrace, addr []int)
	walk = func(f *CallTrace, addr []int) {
		for i := range f.Calls {
			sub := &f.Calls[i]
			a := append(append([]int{}, addr...), i)
			ic := InternalCall{
				Type: sub.Type, From: sub.From, Value: new(big.Int), Gas: uint64(sub.Gas), GasUsed: uint64(sub.GasUsed),
				Input: sub.Input, Output: sub.Output, Error: sub.Error, TraceAddress: a,
			}
			if sub.To != nil {
				ic.To = *sub.To
			}
			if sub.Value != nil {
				ic.Value = sub.Value.ToInt()
			}
			out = append(out, ic)
			walk(sub, a)
		}
	}
	walk(c, nil)
	return out
}
