package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/evm"
	explorerindex "github.com/emberchain/ember/explorer"
)

// explorerTracer is the explorer's in-process Tracer: go-ethereum's
// callTracer over the node's trace backend for raw traces, and a re-run of
// the transaction on the state its block left before it for state changes.
// One job runs at a time, each bounded by explorerTraceTimeout, so the
// public explorer cannot monopolise the node.
type explorerTracer struct {
	b     *Tracer
	api   *tracers.API
	slots chan struct{}
}

// explorerTraceTimeout bounds one raw-trace or state-changes request.
const explorerTraceTimeout = 10 * time.Second

// stateCallGas is the gas each balanceOf-like call of StateAround may use.
const stateCallGas = 5_000_000

// NewExplorerTracer is the explorer's tracer over c.
func NewExplorerTracer(c Chain) explorerindex.Tracer {
	b := NewTracer(c, stateCallGas)
	return &explorerTracer{b: b, api: tracers.NewAPI(b), slots: make(chan struct{}, 1)}
}

var _ explorerindex.Tracer = (*explorerTracer)(nil)

func (t *explorerTracer) job(ctx context.Context) (context.Context, func(), error) {
	ctx, cancel := context.WithTimeout(ctx, explorerTraceTimeout)
	select {
	case t.slots <- struct{}{}:
		return ctx, func() { <-t.slots; cancel() }, nil
	case <-ctx.Done():
		cancel()
		return nil, nil, ctx.Err()
	}
}

// CallTrace implements explorer.Tracer.
func (t *explorerTracer) CallTrace(ctx context.Context, hash common.Hash) (*explorerindex.CallTrace, error) {
	if tx, _ := t.b.c.Store.Transaction(hash); tx == nil {
		return nil, explorerindex.ErrNotFound
	}
	ctx, done, err := t.job(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	name := "callTracer"
	timeout := explorerTraceTimeout.String()
	res, err := t.api.TraceTransaction(ctx, hash, &tracers.TraceConfig{Tracer: &name, Timeout: &timeout})
	if err != nil {
		return nil, err
	}
	raw, ok := res.(json.RawMessage)
	if !ok {
		return nil, fmt.Errorf("callTracer returned %T", res)
	}
	var top explorerindex.CallTrace
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("decode callTracer output: %w", err)
	}
	return &top, nil
}

// StateAround implements explorer.Tracer: the block is replayed on its
// parent's state up to the transaction (native transactions included), the
// calls run on a copy of that state, the transaction runs through the same
// executor with a balance hook noting every account it touches, and the
// calls run again on a copy of the result.
func (t *explorerTracer) StateAround(ctx context.Context, hash common.Hash, calls []explorerindex.StateCall) (*explorerindex.TxState, error) {
	tx, loc := t.b.c.Store.Transaction(hash)
	if tx == nil {
		return nil, explorerindex.ErrNotFound
	}
	block := t.b.c.Store.BlockByHash(loc.BlockHash)
	if block == nil {
		return nil, explorerindex.ErrNotFound
	}
	ctx, done, err := t.job(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	r, statedb, err := t.b.replay(ctx, block, true)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	if err := r.To(int(loc.Index)); err != nil {
		return nil, err
	}
	cfg := t.b.ChainConfig()
	blockCtx := r.BlockContext()
	out := &explorerindex.TxState{Miner: block.Coinbase()}
	pre := statedb.Copy()
	if len(calls) > 0 {
		out.Before = runCalls(ctx, cfg, blockCtx, pre.Copy(), calls)
	}

	var order []common.Address
	seen := map[common.Address]bool{}
	hooks := &tracing.Hooks{OnBalanceChange: func(a common.Address, _, _ *big.Int, _ tracing.BalanceChangeReason) {
		if !seen[a] {
			seen[a] = true
			order = append(order, a)
		}
	}}
	if _, err := r.Next(hooks); err != nil {
		return nil, fmt.Errorf("re-execute transaction %s: %w", hash.Hex(), err)
	}
	if !seen[out.Miner] {
		order = append(order, out.Miner)
	}
	for _, a := range order {
		out.Coins = append(out.Coins, explorerindex.CoinState{Address: a, Before: pre.GetBalance(a).ToBig(), After: statedb.GetBalance(a).ToBig()})
	}
	if len(calls) > 0 {
		out.After = runCalls(ctx, cfg, blockCtx, statedb.Copy(), calls)
	}
	return out, nil
}

// runCalls runs read-only calls on st, each result nil when the call failed.
func runCalls(ctx context.Context, cfg *params.ChainConfig, blockCtx vm.BlockContext, st *state.StateDB, calls []explorerindex.StateCall) [][]byte {
	out := make([][]byte, len(calls))
	for i, c := range calls {
		to := c.To
		msg := (&core.Message{
			To: &to, Value: new(uint256.Int), GasLimit: stateCallGas, GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int),
			GasTipCap: new(uint256.Int), BlobGasFeeCap: new(uint256.Int), Data: c.Data,
		}).SkipNonceCheck().SkipEOACheck().SkipGasLimitCapCheck()
		res, err := evm.Call(ctx, cfg, blockCtx, st, msg, evm.CallOptions{})
		if err == nil && !res.Failed() {
			out[i] = res.ReturnData
		}
	}
	return out
}
