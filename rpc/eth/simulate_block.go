package eth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/emberchain/ember/evm"
)

// simulation is one eth_simulateV1 request in progress: the state every
// block builds on, in turn.
type simulation struct {
	api    *API
	state  *state.StateDB
	opts   SimulateOptions
	budget *gasBudget
	chain  *simChain
}

// SimBlockResult is a simulated block as eth_getBlockByNumber shows a block,
// plus "calls": the outcome of each call, in order.
type SimBlockResult struct {
	block   *types.Block
	calls   []SimCallResult
	senders []common.Address // the calls' senders: the txs are unsigned
	fullTx  bool
	config  *params.ChainConfig
}

// SimCallResult is the outcome of one simulated call.
type SimCallResult struct {
	ReturnData hexutil.Bytes  `json:"returnData"`
	Logs       []*types.Log   `json:"logs"`
	GasUsed    hexutil.Uint64 `json:"gasUsed"`
	// MaxUsedGas is the most the call held at once, before refunds: the
	// gas limit it needs to succeed.
	MaxUsedGas hexutil.Uint64 `json:"maxUsedGas"`
	Status     hexutil.Uint64 `json:"status"`
	Error      *callError     `json:"error,omitempty"`
}

func (r *SimBlockResult) MarshalJSON() ([]byte, error) {
	fields := MarshalBlock(r.block, r.fullTx, r.config)
	if r.fullTx {
		// An unsigned tx names no sender: the call did.
		for i, tx := range fields["transactions"].([]any) {
			tx.(*RPCTransaction).From = r.senders[i]
		}
	}
	fields["calls"] = r.calls
	return json.Marshal(fields)
}

// runBlock executes one simulated block on the simulation's state, after
// its state overrides, and builds the block: header is the one simHeaders
// made, parent the block before.
func (s *simulation) runBlock(ctx context.Context, block *SimBlock, header, parent *types.Header) (*SimBlockResult, error) {
	cfg := s.api.b.ChainConfig()
	s.linkHeader(header, parent)
	precompiles := vm.ActivePrecompiledContracts(evm.Rules(cfg, header.Number, header.Time))
	if block.StateOverrides != nil {
		if err := block.StateOverrides.apply(s.state, precompiles); err != nil {
			return nil, err
		}
	}
	logs := &simLogs{transfers: s.opts.TraceTransfers, number: header.Number.Uint64(), time: header.Time}
	run := evm.NewMessageBlock(cfg, header, s.chain, s.state, evm.MessageBlockOptions{
		NoBaseFee:   !s.opts.Validation,
		Precompiles: precompiles,
		Hooks:       logs.hooks(),
		BlobBaseFee: block.BlockOverrides.blobBaseFee(),
		Timeout:     s.api.cfg.EVMTimeout,
	})
	defer run.Release()

	res := &SimBlockResult{fullTx: s.opts.ReturnFullTransactions, config: cfg,
		calls: make([]SimCallResult, len(block.Calls)), senders: make([]common.Address, len(block.Calls))}
	txs := make(types.Transactions, len(block.Calls))
	receipts := make(types.Receipts, len(block.Calls))
	for i := range block.Calls {
		call, gasCapped, err := s.prepareCall(&block.Calls[i], header, run.GasLeft())
		if err != nil {
			return nil, err
		}
		txs[i], res.senders[i] = call.tx, call.from
		logs.startCall(call.tx.Hash(), i)
		receipt, result, err := run.Apply(ctx, call.msg, call.tx)
		if err != nil {
			return nil, applyError(err, call.msg.GasLimit)
		}
		receipts[i] = receipt
		if err := s.budget.consume(result.UsedGas); err != nil {
			return nil, err
		}
		res.calls[i] = callResult(result, logs.callLogs(), gasCapped)
	}
	header.GasUsed = run.GasUsed()
	withdrawals := types.Withdrawals{}
	if o := block.BlockOverrides; o.Withdrawals != nil {
		withdrawals = *o.Withdrawals
	}
	run.Withdraw(withdrawals)
	res.block = s.seal(header, txs, receipts, withdrawals)
	hash := res.block.Hash()
	for _, c := range res.calls {
		for _, l := range c.Logs {
			l.BlockHash = hash // only known now
		}
	}
	return res, nil
}

// linkHeader sets what a simulated header takes from its parent: the hash,
// the base fee unless overridden, the blob gas excess.
func (s *simulation) linkHeader(header, parent *types.Header) {
	cfg := s.api.b.ChainConfig()
	header.ParentHash = parent.Hash()
	if header.BaseFee == nil {
		// Without validation the base fee is zero unless overridden, so a
		// call without fees is not below it.
		header.BaseFee = new(big.Int)
		if s.opts.Validation {
			header.BaseFee = s.api.b.BaseFeeAfter(parent)
		}
	}
	if cfg.IsCancun(header.Number, header.Time) {
		var excess uint64
		if cfg.IsCancun(parent.Number, parent.Time) && parent.ExcessBlobGas != nil {
			excess = eip4844.CalcExcessBlobGas(cfg, parent, header.Time)
		}
		header.ExcessBlobGas = &excess
	}
}

// seal completes the header after execution (blob gas, requests, state
// root) and assembles the block, which computes the transaction and
// receipt roots and the bloom.
func (s *simulation) seal(header *types.Header, txs types.Transactions, receipts types.Receipts, withdrawals types.Withdrawals) *types.Block {
	cfg := s.api.b.ChainConfig()
	if cfg.IsCancun(header.Number, header.Time) {
		var blobGas uint64 // this chain has no blob transactions
		header.BlobGasUsed = &blobGas
	}
	if cfg.IsPrague(header.Number, header.Time) {
		// Ember processes no EIP-7685 requests: its blocks hold none.
		header.RequestsHash = &types.EmptyRequestsHash
	}
	header.Root = s.state.IntermediateRoot(evm.Rules(cfg, header.Number, header.Time))
	return types.NewBlock(header, &types.Body{Transactions: txs, Withdrawals: withdrawals}, receipts, trie.NewStackTrie(nil))
}

// applyError is the answer to a call that could not be executed: geth's
// code for why, its message with the gas supplied; an expired request is
// said as such.
func applyError(err error, gas uint64) error {
	var timeout *evm.TimeoutError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return err
	case errors.As(err, &timeout):
		return txValidationError(err)
	}
	return txValidationError(fmt.Errorf("err: %w (supplied gas %d)", err, gas))
}

// prepareCall fills the call's defaults against the simulated state and the
// gas the block has left, and bounds its gas by the request's budget
// (gasCapped says it did).
func (s *simulation) prepareCall(args *TransactionArgs, header *types.Header, gasLeft uint64) (*simCall, bool, error) {
	var from common.Address
	if args.From != nil {
		from = *args.From
	}
	gas := gasLeft
	if args.Gas != nil {
		gas = uint64(*args.Gas)
	}
	if gas > gasLeft {
		return nil, false, &simError{fmt.Sprintf("block gas limit reached: remaining: %d, required: %d", gasLeft, gas), codeBlockGasLimitReached}
	}
	capped := s.budget.clamp(gas)
	call, err := newSimCall(args, s.state.GetNonce(from), capped, header.BaseFee, s.api.b.ChainConfig().ChainID, s.opts.Validation)
	if err != nil {
		return nil, false, err
	}
	// EIP-2681 bounds the nonce even when the nonce checks are off.
	if !s.opts.Validation && s.state.GetNonce(from) == math.MaxUint64 {
		return nil, false, txValidationError(fmt.Errorf("%w: address %v, nonce: %d", core.ErrNonceMax, from.Hex(), uint64(math.MaxUint64)))
	}
	return call, capped < gas, nil
}

// callResult reports a call that ran: its return data, kept logs and gas,
// and for a failure the revert (code 3, with its data and decoded reason)
// or the VM error (-32015).
func callResult(result *core.ExecutionResult, logs []*types.Log, gasCapped bool) SimCallResult {
	r := SimCallResult{ReturnData: result.Return(), Logs: logs, GasUsed: hexutil.Uint64(result.UsedGas),
		MaxUsedGas: hexutil.Uint64(result.MaxUsedGas), Status: hexutil.Uint64(types.ReceiptStatusSuccessful)}
	if r.Logs == nil {
		r.Logs = []*types.Log{}
	}
	if r.ReturnData == nil {
		r.ReturnData = hexutil.Bytes{}
	}
	if !result.Failed() {
		return r
	}
	r.Status = hexutil.Uint64(types.ReceiptStatusFailed)
	if errors.Is(result.Err, vm.ErrExecutionReverted) {
		rev := newRevertError(result.Revert())
		r.Error = &callError{Message: rev.Error(), Code: rev.ErrorCode(), Data: rev.data}
		return r
	}
	msg := result.Err.Error()
	if gasCapped {
		msg += " (gas limit was capped by the RPC server's global gas cap)"
	}
	r.Error = &callError{Message: msg, Code: codeVMError}
	return r
}
