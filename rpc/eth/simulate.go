package eth

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// eth_simulateV1 runs calls in a chain of simulated blocks on top of a real
// block, with state and block overrides per block, and answers each block
// as eth_getBlockByNumber would, plus the outcome of each call. Nothing it
// does reaches the chain. The semantics are go-ethereum's (its
// internal/ethapi/simulate.go, v1.17): block numbering and timestamps, gap
// filling, defaults, limits and error codes; the blocks themselves are
// Ember's (no EIP-4788/2935 system calls, no EIP-7685 requests), as its real
// blocks are.
//
// This file holds the request, the limits and the chain of headers;
// simulate_block.go executes one block, simulate_call.go turns a call
// object into what the block executes, simulate_logs.go collects logs and
// ether transfers.

const (
	// maxSimulateBlocks bounds the blocks of one request, counting the
	// empty ones that fill gaps in the numbering.
	maxSimulateBlocks = 256
	// maxSimulateCallsPerBlock and maxSimulateTotalCalls bound the calls.
	maxSimulateCallsPerBlock = 5000
	maxSimulateTotalCalls    = 10000
	// simBlockTime is the default gap between simulated timestamps.
	simBlockTime = 12
)

// SimulateOptions is the first parameter of eth_simulateV1.
type SimulateOptions struct {
	BlockStateCalls []SimBlock `json:"blockStateCalls"`
	// TraceTransfers reports every ether transfer as an ERC-20 Transfer log
	// from 0xeeee…eeee (ERC-7528).
	TraceTransfers bool `json:"traceTransfers"`
	// Validation checks nonces, balances and the base fee as a real block
	// would; off, calls run as eth_call runs them (any nonce, zero base fee
	// unless overridden).
	Validation bool `json:"validation"`
	// ReturnFullTransactions lists transaction objects instead of hashes.
	ReturnFullTransactions bool `json:"returnFullTransactions"`
}

// SimBlock is one simulated block: its overrides and its calls.
type SimBlock struct {
	BlockOverrides *BlockOverrides   `json:"blockOverrides"`
	StateOverrides *StateOverride    `json:"stateOverrides"`
	Calls          []TransactionArgs `json:"calls"`
}

// UnmarshalJSON refuses override keys that name no field (a misspelt
// "feeRecipient" would otherwise be ignored without a word), as geth does.
func (b *SimBlock) UnmarshalJSON(input []byte) error {
	var raw struct {
		BlockOverrides json.RawMessage                    `json:"blockOverrides"`
		StateOverrides map[common.Address]json.RawMessage `json:"stateOverrides"`
		Calls          []TransactionArgs                  `json:"calls"`
	}
	if err := json.Unmarshal(input, &raw); err != nil {
		return err
	}
	res := SimBlock{Calls: raw.Calls}
	if raw.BlockOverrides != nil {
		if err := checkKeys(raw.BlockOverrides, reflect.TypeFor[BlockOverrides](), "block override"); err != nil {
			return err
		}
		if err := json.Unmarshal(raw.BlockOverrides, &res.BlockOverrides); err != nil {
			return err
		}
	}
	if raw.StateOverrides != nil {
		so := make(StateOverride, len(raw.StateOverrides))
		for addr, acct := range raw.StateOverrides {
			if err := checkKeys(acct, reflect.TypeFor[OverrideAccount](), "state override for "+addr.Hex()); err != nil {
				return err
			}
			var a OverrideAccount
			if err := json.Unmarshal(acct, &a); err != nil {
				return err
			}
			so[addr] = a
		}
		res.StateOverrides = &so
	}
	*b = res
	return nil
}

// checkKeys reports a key of a JSON object that matches no json name of
// t's fields (case-insensitively, as encoding/json matches). Anything not
// an object is left for the decoder to refuse.
func checkKeys(input json.RawMessage, t reflect.Type, what string) error {
	var keys map[string]json.RawMessage
	if json.Unmarshal(input, &keys) != nil {
		return nil
	}
	for key := range keys {
		known := false
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if strings.EqualFold(key, name) {
				known = true
				break
			}
		}
		if !known {
			return fmt.Errorf("unknown field %q in %s", key, what)
		}
	}
	return nil
}

// SimulateV1 executes opts' blocks of calls on the state of the given block
// (default latest) and returns the simulated blocks.
func (api *API) SimulateV1(ctx context.Context, opts SimulateOptions, bnh *rpc.BlockNumberOrHash) ([]*SimBlockResult, error) {
	if err := checkSimLimits(opts.BlockStateCalls); err != nil {
		return nil, err
	}
	st, base, err := api.stateAt(orLatest(bnh))
	if err != nil {
		return nil, err
	}
	if api.cfg.EVMTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, api.cfg.EVMTimeout)
		defer cancel()
	}
	blocks, err := numberSimBlocks(base, opts.BlockStateCalls)
	if err != nil {
		return nil, err
	}
	headers, err := api.simHeaders(base, blocks)
	if err != nil {
		return nil, err
	}
	s := &simulation{
		api: api, state: st, opts: opts, budget: newGasBudget(api.cfg.GasCap),
		chain: &simChain{b: api.b, headers: make(map[common.Hash]*types.Header)},
	}
	results := make([]*SimBlockResult, len(blocks))
	parent := base
	for i := range blocks {
		res, err := s.runBlock(ctx, &blocks[i], headers[i], parent)
		if err != nil {
			return nil, err
		}
		results[i] = res
		parent = res.block.Header()
		s.chain.headers[parent.Hash()] = parent
	}
	return results, nil
}

// checkSimLimits refuses an empty request and one over the block and call
// limits before any state is opened.
func checkSimLimits(blocks []SimBlock) error {
	if len(blocks) == 0 {
		return &simError{"empty input", codeInvalidParams}
	}
	if len(blocks) > maxSimulateBlocks {
		return &simError{"too many blocks", codeClientLimitExceeded}
	}
	total := 0
	for _, b := range blocks {
		if len(b.Calls) > maxSimulateCallsPerBlock {
			return &simError{fmt.Sprintf("too many calls in block: %d > %d", len(b.Calls), maxSimulateCallsPerBlock), codeClientLimitExceeded}
		}
		if total += len(b.Calls); total > maxSimulateTotalCalls {
			return &simError{fmt.Sprintf("too many calls: %d > %d", total, maxSimulateTotalCalls), codeClientLimitExceeded}
		}
	}
	return nil
}

// numberSimBlocks gives every block its number and timestamp: by default
// one more than the previous block's number and 12 s after its time. Given
// ones must increase (-38020, -38021); a jump in numbers is filled with
// empty blocks 12 s apart; no block may lie more than 256 past base
// (-38026). The blocks returned own their overrides.
func numberSimBlocks(base *types.Header, blocks []SimBlock) ([]SimBlock, error) {
	var (
		out      = make([]SimBlock, 0, len(blocks))
		prevNum  = new(big.Int).Set(base.Number)
		prevTime = base.Time
		limit    = new(big.Int).Add(base.Number, big.NewInt(maxSimulateBlocks))
	)
	for _, b := range blocks {
		o := BlockOverrides{}
		if b.BlockOverrides != nil {
			o = *b.BlockOverrides
		}
		b.BlockOverrides = &o
		if o.Number == nil {
			o.Number = (*hexutil.Big)(new(big.Int).Add(prevNum, common.Big1))
		}
		num := o.Number.ToInt()
		if num.Cmp(prevNum) <= 0 {
			return nil, &simError{fmt.Sprintf("block numbers must be in order: %d <= %d", num, prevNum), codeBlockNumberInvalid}
		}
		if num.Cmp(limit) > 0 {
			return nil, &simError{"too many blocks", codeClientLimitExceeded}
		}
		// Fill the gap, if any, with empty blocks.
		for n := new(big.Int).Add(prevNum, common.Big1); n.Cmp(num) < 0; n.Add(n, common.Big1) {
			t, err := nextSimTime(prevTime)
			if err != nil {
				return nil, err
			}
			prevTime = uint64(t)
			out = append(out, SimBlock{BlockOverrides: &BlockOverrides{Number: (*hexutil.Big)(new(big.Int).Set(n)), Time: &t}})
		}
		if o.Time == nil {
			t, err := nextSimTime(prevTime)
			if err != nil {
				return nil, err
			}
			o.Time = &t
		} else if uint64(*o.Time) <= prevTime {
			return nil, &simError{fmt.Sprintf("block timestamps must be in order: %d <= %d", uint64(*o.Time), prevTime), codeBlockTimestampInvalid}
		}
		prevNum, prevTime = num, uint64(*o.Time)
		out = append(out, b)
	}
	return out, nil
}

// nextSimTime is the default time of the block after one at prev.
func nextSimTime(prev uint64) (hexutil.Uint64, error) {
	if prev > math.MaxUint64-simBlockTime {
		return 0, &simError{fmt.Sprintf("block timestamps overflow after %d", prev), codeBlockTimestampInvalid}
	}
	return hexutil.Uint64(prev + simBlockTime), nil
}

// simHeaders makes each block's header before execution: what the overrides
// set, the rest carried from the block before (fee recipient, gas limit)
// or empty. Execution fills in the parent hash, base fee, gas used and
// roots.
func (api *API) simHeaders(base *types.Header, blocks []SimBlock) ([]*types.Header, error) {
	cfg := api.b.ChainConfig()
	out := make([]*types.Header, len(blocks))
	prev := base
	for i, b := range blocks {
		o := b.BlockOverrides
		number, time := o.Number.ToInt(), uint64(*o.Time)
		if o.Difficulty != nil {
			// Every Ember block is post-merge (difficulty 0).
			return nil, &simError{fmt.Sprintf("block %d: difficulty override is not allowed after the merge", number), codeInvalidParams}
		}
		h := &types.Header{
			UncleHash:   types.EmptyUncleHash,
			TxHash:      types.EmptyTxsHash,
			ReceiptHash: types.EmptyReceiptsHash,
			Coinbase:    prev.Coinbase,
			Difficulty:  new(big.Int),
			GasLimit:    prev.GasLimit,
		}
		if cfg.IsShanghai(number, time) {
			h.WithdrawalsHash = &types.EmptyWithdrawalsHash
		}
		if cfg.IsCancun(number, time) {
			root := common.Hash{}
			if o.BeaconRoot != nil {
				root = *o.BeaconRoot
			}
			h.ParentBeaconRoot = &root
		}
		h = o.applyHeader(h)
		out[i], prev = h, h
	}
	return out, nil
}

// gasBudget is what is left of the RPC gas cap across the whole request.
type gasBudget struct{ left uint64 }

func newGasBudget(gasCap uint64) *gasBudget {
	if gasCap == 0 {
		gasCap = math.MaxUint64
	}
	return &gasBudget{left: gasCap}
}

// clamp bounds gas to what is left.
func (b *gasBudget) clamp(gas uint64) uint64 { return min(gas, b.left) }

func (b *gasBudget) consume(gas uint64) error {
	if gas > b.left {
		return fmt.Errorf("RPC gas cap exhausted: need %d, remaining %d", gas, b.left)
	}
	b.left -= gas
	return nil
}

// simChain serves BLOCKHASH: the simulated blocks already built, then the
// real chain.
type simChain struct {
	b       Backend
	headers map[common.Hash]*types.Header
}

func (c *simChain) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h, ok := c.headers[hash]; ok {
		return h
	}
	return c.b.GetHeader(hash, number)
}
