package evm

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// ErrBlobTxUnsupported rejects EIP-4844 transactions: this chain has no blob
// data-availability layer.
var ErrBlobTxUnsupported = fmt.Errorf("%w: blob transactions (type 3) are not supported on this chain", core.ErrTxTypeNotSupported)

// TxOutcome is what became of one transaction handed to Executor.ApplyTx.
type TxOutcome struct {
	// Receipt is set when the tx was executed and is part of the EVM block,
	// whether it succeeded (status 1) or failed (status 0).
	Receipt *types.Receipt
	// VMErr is the execution error of an included tx that failed (revert,
	// out of gas, ...); nil when it succeeded.
	VMErr error
	// Revert is the revert data of a failed tx, if any.
	Revert []byte
	// Rejected is why the tx was not executed at all (bad nonce, unaffordable,
	// over the block gas limit, ...). A rejected tx has no receipt and is not
	// in the EVM block.
	Rejected error
	// Sender is the recovered sender; zero when recovery failed.
	Sender common.Address
}

// BlockResult is the EVM part of an executed block.
type BlockResult struct {
	Txs      types.Transactions // the txs that made it into the EVM block
	Receipts types.Receipts     // their receipts, same order
	Senders  []common.Address   // their senders, same order
	GasUsed  uint64
}

// Executor executes one block, one transaction at a time, on a state: the
// single place where Ember's execution rules live. NewExecutor begins the
// block (block context from the header, one EVM, the gas pool), ApplyTx
// runs one EVM transaction in its place, Finish ends the block.
// FinalizeBlock, debug replay and the explorer's tracer all go through it;
// transactions of another kind (native ones) are run by the caller on
// State, between ApplyTx calls, so their changes pass the same hooks.
//
// The receipts' block hash is left zero: it is only known once the header
// is complete, and readers derive it.
type Executor struct {
	ctx      context.Context
	cfg      *params.ChainConfig
	header   *types.Header
	statedb  *state.StateDB
	vmdb     vm.StateDB // statedb behind the block's hooks
	hooks    *tracing.Hooks
	blockCtx vm.BlockContext
	evm      *vm.EVM
	signer   types.Signer
	gp       *core.GasPool
	res      BlockResult
	opts     evmOptions
}

// evmOptions depart from the chain's rules, for simulations only (see
// MessageBlock); the zero value is the chain's rules.
type evmOptions struct {
	noBaseFee   bool                    // gas prices below the base fee run
	precompiles vm.PrecompiledContracts // nil: the fork's
	blobBaseFee *big.Int                // nil: derived from the header
}

// NewExecutor begins the block described by header (whose Root, TxHash,
// ReceiptHash, Bloom and GasUsed it does not touch) on statedb, the parent's
// state. hooks, when set, see every state change and EVM step of the block.
func NewExecutor(ctx context.Context, cfg *params.ChainConfig, header *types.Header, headers HeaderReader, statedb *state.StateDB, hooks *tracing.Hooks) *Executor {
	return begin(ctx, cfg, header, headers, statedb, hooks, evmOptions{})
}

func begin(ctx context.Context, cfg *params.ChainConfig, header *types.Header, headers HeaderReader, statedb *state.StateDB, hooks *tracing.Hooks, opts evmOptions) *Executor {
	x := &Executor{
		ctx: ctx, cfg: cfg, header: header, statedb: statedb, hooks: hooks,
		blockCtx: BlockContext(cfg, header, headers),
		signer:   Signer(cfg, header.Number, header.Time),
		gp:       core.NewGasPool(header.GasLimit),
		opts:     opts,
	}
	if opts.blobBaseFee != nil {
		x.blockCtx.BlobBaseFee = new(big.Int).Set(opts.blobBaseFee)
	}
	x.vmdb = hooked(statedb, hooks)
	x.evm = x.newEVM(x.vmdb, hooks)
	return x
}

// newEVM is an EVM of the block on vmdb, whose steps hooks see.
func (x *Executor) newEVM(vmdb vm.StateDB, hooks *tracing.Hooks) *vm.EVM {
	evm := vm.NewEVM(x.blockCtx, vmdb, x.cfg, vm.Config{Tracer: hooks, NoBaseFee: x.opts.noBaseFee})
	if x.opts.precompiles != nil {
		evm.SetPrecompiles(x.opts.precompiles)
	}
	return evm
}

// hooked is statedb behind hooks: the state hooks (balance, nonce, code
// changes) fire only through the hooked wrapper; the interpreter calls the
// others itself.
func hooked(statedb *state.StateDB, hooks *tracing.Hooks) vm.StateDB {
	if hooks == nil {
		return statedb
	}
	return state.NewHookedState(statedb, hooks)
}

// State is the block's state behind its hooks, for transactions the caller
// runs itself; call Settle after each.
func (x *Executor) State() vm.StateDB { return x.vmdb }

// Settle ends a transaction the caller ran on State, as ApplyTx ends its own.
func (x *Executor) Settle() { x.statedb.Finalise(x.evm.GetRules()) }

// Context is the context the executor was begun with.
func (x *Executor) Context() context.Context { return x.ctx }

// BlockContext is the EVM block context of the block.
func (x *Executor) BlockContext() vm.BlockContext { return x.blockCtx }

// Included is the number of transactions in the EVM block so far.
func (x *Executor) Included() int { return len(x.res.Txs) }

// ApplyTx executes tx in its place in the block. A tx that cannot be
// executed is rejected and leaves the state, the gas pool and the block
// untouched; every other tx is included with a receipt.
func (x *Executor) ApplyTx(tx *types.Transaction) TxOutcome {
	return x.apply(tx, x.evm)
}

// ApplyTxWith is ApplyTx with hooks of its own for this transaction (a
// tracer) instead of the block's.
func (x *Executor) ApplyTxWith(tx *types.Transaction, hooks *tracing.Hooks) TxOutcome {
	evm := x.newEVM(hooked(x.statedb, hooks), hooks)
	defer evm.Release()
	return x.apply(tx, evm)
}

func (x *Executor) apply(tx *types.Transaction, evm *vm.EVM) (out TxOutcome) {
	if tx.Type() == types.BlobTxType {
		out.Rejected = ErrBlobTxUnsupported
		return out
	}
	msg, err := core.TransactionToMessage(tx, x.signer, x.header.BaseFee)
	if err != nil {
		out.Rejected = err
		return out
	}
	out.Sender = msg.From
	receipt, result, err := x.include(evm, msg, tx)
	if err != nil {
		out.Rejected = err
		return out
	}
	out.Receipt = receipt
	if result.Failed() {
		out.VMErr = result.Err
		out.Revert = result.Revert()
	}
	return out
}

// include runs msg, for which tx stands, in its place in the block: a
// message that cannot be executed leaves the state, the gas pool and the
// block untouched; any other is included with its receipt.
func (x *Executor) include(evm *vm.EVM, msg *core.Message, tx *types.Transaction) (*types.Receipt, *core.ExecutionResult, error) {
	// ApplyMessage can buy gas and then fail (e.g. intrinsic gas too low
	// after the purchase): undo the state and the gas pool in that case.
	snap, gpSnap := x.statedb.Snapshot(), x.gp.Snapshot()
	index := len(x.res.Txs)
	x.statedb.SetTxContext(tx.Hash(), index, uint32(index+1))
	receipt, result, err := x.applyMessage(evm, msg, tx)
	if err != nil {
		x.statedb.RevertToSnapshot(snap)
		x.gp.Set(gpSnap)
		return nil, nil, err
	}
	x.res.Txs = append(x.res.Txs, tx)
	x.res.Receipts = append(x.res.Receipts, receipt)
	x.res.Senders = append(x.res.Senders, msg.From)
	return receipt, result, nil
}

// applyMessage runs one message and builds its receipt. It mirrors
// core.ApplyTransactionWithEVM but keeps the ExecutionResult, whose revert
// data the events and the RPC report.
func (x *Executor) applyMessage(evm *vm.EVM, msg *core.Message, tx *types.Transaction) (*types.Receipt, *core.ExecutionResult, error) {
	hooks := evm.Config.Tracer
	if hooks != nil && hooks.OnTxStart != nil {
		hooks.OnTxStart(evm.GetVMContext(), tx, msg.From)
	}
	result, err := core.ApplyMessage(evm, msg, x.gp)
	if err != nil {
		if hooks != nil && hooks.OnTxEnd != nil {
			hooks.OnTxEnd(nil, err)
		}
		return nil, nil, err
	}
	x.statedb.Finalise(evm.GetRules())
	receipt := core.MakeReceipt(evm, result, x.statedb, x.header.Number, common.Hash{}, x.header.Time, tx, x.gp.CumulativeUsed(), nil)
	if hooks != nil && hooks.OnTxEnd != nil {
		hooks.OnTxEnd(receipt, nil)
	}
	return receipt, result, nil
}

// Finish ends the block: the included transactions, their receipts and
// senders, and the gas they used. The executor must not be used after.
func (x *Executor) Finish() *BlockResult {
	x.res.GasUsed = x.gp.Used()
	x.evm.Release()
	return &x.res
}

// BalanceRecorder notes, through a block's hooks, every account whose
// balance changes and its balance before the first change, so that
// Changed can list the accounts whose balance the block changed.
type BalanceRecorder struct {
	before map[common.Address]*big.Int
}

// NewBalanceRecorder returns a recorder to Hook into a block's hooks.
func NewBalanceRecorder() *BalanceRecorder {
	return &BalanceRecorder{before: make(map[common.Address]*big.Int)}
}

// Hook chains the recorder in front of h's OnBalanceChange.
func (r *BalanceRecorder) Hook(h *tracing.Hooks) {
	next := h.OnBalanceChange
	h.OnBalanceChange = func(addr common.Address, prev, cur *big.Int, reason tracing.BalanceChangeReason) {
		if _, ok := r.before[addr]; !ok {
			r.before[addr] = new(big.Int).Set(prev)
		}
		if next != nil {
			next(addr, prev, cur, reason)
		}
	}
}

// Changed is the balance in st of every account whose balance differs from
// its balance before the block (a change undone by a revert or a later
// change is not one).
func (r *BalanceRecorder) Changed(st *state.StateDB) map[common.Address]*big.Int {
	out := make(map[common.Address]*big.Int, len(r.before))
	for addr, before := range r.before {
		if after := st.GetBalance(addr).ToBig(); after.Cmp(before) != 0 {
			out[addr] = after
		}
	}
	return out
}
