package rpcsource

import (
	"context"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/explorer"
)

var _ explorer.Tracer = (*Source)(nil)

// traceState remembers that the endpoint lacks the debug namespace.
type traceState struct {
	off    bool
	logged bool
}

func (s *Source) traceOff() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tracing.off
}

// noTracing records (and logs once) that the endpoint cannot trace.
func (s *Source) noTracing(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tracing.off = true
	if !s.tracing.logged {
		s.tracing.logged = true
		s.log.Warn("endpoint cannot trace (debug_traceBlockByNumber with callTracer); internal transactions, raw traces and state changes are not available", "err", err)
	}
}

// blockTrace is one item of debug_traceBlockByNumber's answer.
type blockTrace struct {
	TxHash common.Hash         `json:"txHash"`
	Result *explorer.CallTrace `json:"result"`
	Error  string              `json:"error"`
}

// internalCalls reads a block's internal transactions with
// debug_traceBlockByNumber and callTracer; nil when the endpoint cannot
// trace (logged once) or the block has no transaction.
func (s *Source) internalCalls(ctx context.Context, b *types.Block) ([][]explorer.InternalCall, error) {
	txs := b.Transactions()
	if len(txs) == 0 || s.traceOff() {
		return nil, nil
	}
	var traces []blockTrace
	err := s.c.CallContext(ctx, &traces, "debug_traceBlockByNumber", hexutil.Uint64(b.NumberU64()), map[string]any{"tracer": "callTracer"})
	if err != nil {
		if methodMissing(err) {
			s.noTracing(err)
			return nil, nil
		}
		return nil, fmt.Errorf("debug_traceBlockByNumber: %w", err)
	}
	if len(traces) != len(txs) {
		return nil, fmt.Errorf("debug_traceBlockByNumber: %d traces for %d transactions", len(traces), len(txs))
	}
	out := make([][]explorer.InternalCall, len(txs))
	for i, t := range traces {
		if t.Error != "" || t.Result == nil {
			return nil, fmt.Errorf("trace of transaction %s: %s", txs[i].Hash().Hex(), t.Error)
		}
		out[i] = t.Result.Frames()
	}
	return out, nil
}

// CallTrace implements explorer.Tracer with debug_traceTransaction.
func (s *Source) CallTrace(ctx context.Context, hash common.Hash) (*explorer.CallTrace, error) {
	if s.traceOff() {
		return nil, explorer.ErrCannotTrace
	}
	var top explorer.CallTrace
	err := s.c.CallContext(ctx, &top, "debug_traceTransaction", hash, map[string]any{"tracer": "callTracer"})
	if err != nil {
		if methodMissing(err) {
			s.noTracing(err)
			return nil, explorer.ErrCannotTrace
		}
		return nil, err
	}
	return &top, nil
}

// prestateAccount is prestateTracer's account (diff mode).
type prestateAccount struct {
	Balance *hexutil.Big `json:"balance"`
}

// StateAround implements explorer.Tracer: coin balances from
// prestateTracer's diff mode; the calls run with eth_call at the block
// boundaries, which are the state around the transaction only when it is
// the first (before) or the last (after) of its block; otherwise those
// results are nil.
func (s *Source) StateAround(ctx context.Context, hash common.Hash, calls []explorer.StateCall) (*explorer.TxState, error) {
	if s.traceOff() {
		return nil, explorer.ErrCannotTrace
	}
	var loc struct {
		BlockNumber *hexutil.Uint64 `json:"blockNumber"`
		Index       *hexutil.Uint64 `json:"transactionIndex"`
	}
	if err := s.c.CallContext(ctx, &loc, "eth_getTransactionByHash", hash); err != nil {
		return nil, err
	}
	if loc.BlockNumber == nil || loc.Index == nil {
		return nil, explorer.ErrNotFound
	}
	number := uint64(*loc.BlockNumber)
	var head struct {
		Miner common.Address `json:"miner"`
		Txs   []common.Hash  `json:"transactions"`
	}
	if err := s.c.CallContext(ctx, &head, "eth_getBlockByNumber", hexutil.Uint64(number), false); err != nil {
		return nil, err
	}
	var diff struct {
		Pre  map[common.Address]prestateAccount `json:"pre"`
		Post map[common.Address]prestateAccount `json:"post"`
	}
	err := s.c.CallContext(ctx, &diff, "debug_traceTransaction", hash,
		map[string]any{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}})
	if err != nil {
		if methodMissing(err) {
			s.noTracing(err)
			return nil, explorer.ErrCannotTrace
		}
		return nil, err
	}
	out := &explorer.TxState{Miner: head.Miner}
	addrs := make([]common.Address, 0, len(diff.Pre)+len(diff.Post))
	for a := range diff.Pre {
		addrs = append(addrs, a)
	}
	for a := range diff.Post {
		if _, ok := diff.Pre[a]; !ok {
			addrs = append(addrs, a)
		}
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i].Cmp(addrs[j]) < 0 })
	for _, a := range addrs {
		before := new(big.Int)
		if p, ok := diff.Pre[a]; ok && p.Balance != nil {
			before = p.Balance.ToInt()
		}
		after := new(big.Int).Set(before)
		if p, ok := diff.Post[a]; ok {
			if p.Balance != nil {
				after = p.Balance.ToInt()
			}
		} else {
			after = new(big.Int) // in pre only: the account was deleted
		}
		out.Coins = append(out.Coins, explorer.CoinState{Address: a, Before: before, After: after})
	}
	if len(calls) > 0 {
		out.Before = make([][]byte, len(calls))
		out.After = make([][]byte, len(calls))
		index := int(*loc.Index)
		for i, c := range calls {
			if index == 0 && number > 0 {
				out.Before[i], _ = s.Call(ctx, number-1, c.To, c.Data)
			}
			if index == len(head.Txs)-1 {
				out.After[i], _ = s.Call(ctx, number, c.To, c.Data)
			}
		}
	}
	return out, nil
}
