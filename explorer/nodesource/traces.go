package nodesource

import (
	"context"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/emberchain/ember/explorer"
)

// SetTracer gives the source the node's tracing machinery, making it a
// Tracer; without one CallTrace and StateAround answer ErrCannotTrace.
func (s *NodeSource) SetTracer(t explorer.Tracer) { s.tracer = t }

// CallTrace implements Tracer.
func (s *NodeSource) CallTrace(ctx context.Context, hash common.Hash) (*explorer.CallTrace, error) {
	if s.tracer == nil {
		return nil, explorer.ErrCannotTrace
	}
	return s.tracer.CallTrace(ctx, hash)
}

// StateAround implements Tracer.
func (s *NodeSource) StateAround(ctx context.Context, hash common.Hash, calls []explorer.StateCall) (*explorer.TxState, error) {
	if s.tracer == nil {
		return nil, explorer.ErrCannotTrace
	}
	return s.tracer.StateAround(ctx, hash, calls)
}

// internalCalls reads the frames the node captured with block number.
func (s *NodeSource) internalCalls(number uint64, txs int) ([][]explorer.InternalCall, error) {
	frames, err := s.st.InternalCalls(number)
	if err != nil || frames == nil {
		return nil, err
	}
	out := make([][]explorer.InternalCall, txs)
	for i, fs := range frames {
		if i >= txs {
			break
		}
		for _, f := range fs {
			addr := make([]int, len(f.TraceAddress))
			for j, v := range f.TraceAddress {
				addr[j] = int(v)
			}
			out[i] = append(out[i], explorer.InternalCall{
				Type: strings.ToLower(vm.OpCode(f.Type).String()), From: f.From, To: f.To, Value: f.Value,
				Gas: f.Gas, GasUsed: f.GasUsed, Input: f.Input, Output: f.Output, Error: f.Error, TraceAddress: addr,
			})
		}
	}
	return out, nil
}
