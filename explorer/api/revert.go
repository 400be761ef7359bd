package api

import (
	"context"
	"errors"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/decode"
)

// txFailure is why a transaction failed, read from its re-executed top
// call: the EVM's error ("execution reverted", "out of gas"), the data it
// reverted with, and that data decoded (nil when it does not decode).
type txFailure struct {
	evmError string
	raw      []byte
	revert   *decode.Revert
}

// result is Blockscout's result of a failed transaction: the decoded
// reason, else the EVM's error.
func (f *txFailure) result() string {
	switch {
	case f == nil:
		return resultReverted
	case f.revert != nil:
		return f.revert.Text
	case f.evmError != "":
		return f.evmError
	}
	return resultReverted
}

// resultReverted is the result of a failed transaction whose reason cannot
// be read (no tracer, or past a list's tracing budget): Blockscout's word
// for a failure of unknown reason.
const resultReverted = "Reverted"

// revertReasonJSON is Blockscout's revert_reason: the error decoded as a
// DecodedInput, else {"raw": the revert data}, else null.
func (f *txFailure) revertReasonJSON() any {
	switch {
	case f == nil:
		return nil
	case f.revert != nil:
		return f.revert.Decoded.JSON()
	case len(f.raw) > 0:
		return rawRevert{Raw: hexutil.Encode(f.raw)}
	}
	return nil
}

// rawRevert is revert_reason for revert data no ABI decodes.
type rawRevert struct {
	Raw string `json:"raw"`
}

// failureCache keeps failures already traced: a mined transaction's never
// changes. It forgets everything when full, which only costs traces again.
type failureCache struct {
	mu sync.Mutex
	m  map[common.Hash]*txFailure
}

const failureCacheSize = 4096

func (c *failureCache) get(h common.Hash) (*txFailure, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.m[h]
	return f, ok
}

func (c *failureCache) put(h common.Hash, f *txFailure) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= failureCacheSize {
		c.m = map[common.Hash]*txFailure{}
	}
	c.m[h] = f
}

// failure re-executes a failed transaction and decodes its revert with the
// verified ABIs of the contracts it called (the callee first); nil when the
// source cannot trace it.
func (h *handlers) failure(ctx context.Context, hash common.Hash) (*txFailure, error) {
	if f, ok := h.failures.get(hash); ok {
		return f, nil
	}
	if h.b.Tracer == nil {
		return nil, nil
	}
	top, err := h.b.Tracer.CallTrace(ctx, hash)
	if errors.Is(err, explorer.ErrCannotTrace) || errors.Is(err, explorer.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	callees := traceCallees(top)
	abis, _, err := h.abisOf(ctx, callees)
	if err != nil {
		return nil, err
	}
	ordered := make([]*abi.ABI, len(callees))
	for i, a := range callees {
		ordered[i] = abis[a]
	}
	f := &txFailure{evmError: top.Error, raw: top.Output, revert: decode.RevertData(ordered, top.Output)}
	h.failures.put(hash, f)
	return f, nil
}

// traceCallees are the addresses a call tree called, each once, in
// depth-first order from the top call's.
func traceCallees(top *explorer.CallTrace) []common.Address {
	var out []common.Address
	seen := map[common.Address]bool{}
	var walk func(c *explorer.CallTrace)
	walk = func(c *explorer.CallTrace) {
		if c.To != nil && !seen[*c.To] {
			seen[*c.To] = true
			out = append(out, *c.To)
		}
		for i := range c.Calls {
			walk(&c.Calls[i])
		}
	}
	walk(top)
	return out
}

// maxListTraces bounds the failed transactions one list answer traces
// (those already traced are free): past it, a failure's result is
// resultReverted until a later answer traces it.
const maxListTraces = 10

// fillFailures sets result and revert_reason of the failed transactions
// among rendered ones; budget is how many it may trace (<0: all).
func (h *handlers) fillFailures(ctx context.Context, txs []explorer.Tx, items []*txItem, budget int) error {
	for i := range txs {
		if txs[i].Status == 1 {
			continue
		}
		if _, cached := h.failures.get(txs[i].Hash); !cached {
			if budget == 0 {
				items[i].Result = resultReverted
				continue
			}
			budget--
		}
		f, err := h.failure(ctx, txs[i].Hash)
		if err != nil {
			return err
		}
		items[i].Result, items[i].RevertReason = f.result(), f.revertReasonJSON()
	}
	return nil
}
