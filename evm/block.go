package evm

import (
	"context"
	"fmt"

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

// TxOutcome is what became of one transaction handed to ApplyBlock.
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

// BlockResult is the outcome of executing one block.
type BlockResult struct {
	Outcomes []TxOutcome        // one per input tx, in input order
	Txs      types.Transactions // the txs that made it into the EVM block
	Receipts types.Receipts     // their receipts, same order
	GasUsed  uint64
}

// ApplyBlock executes txs in order on statedb as the block described by
// header (whose Root, TxHash, ReceiptHash, Bloom and GasUsed it does not
// touch). A tx that cannot be executed is rejected and leaves the state, the
// gas pool and the block untouched; every other tx is included with a receipt.
// The receipts' block hash is left zero: it is only known once the header is
// complete, and readers derive it.
func ApplyBlock(ctx context.Context, cfg *params.ChainConfig, header *types.Header, headers HeaderReader, statedb *state.StateDB, txs types.Transactions, hooks *tracing.Hooks) *BlockResult {
	return ApplyBlockWith(ctx, cfg, header, headers, statedb, txs, hooks, nil)
}

// ApplyBlockWith is ApplyBlock for a block that also holds transactions of
// another kind (Ember's native ones): other(i), when set, runs txs[i] itself
// on the same state, in its place in the block, and reports true when it
// did. Such a tx is left out of the EVM block and its outcome stays zero.
func ApplyBlockWith(ctx context.Context, cfg *params.ChainConfig, header *types.Header, headers HeaderReader, statedb *state.StateDB, txs types.Transactions, hooks *tracing.Hooks, other func(i int) bool) *BlockResult {
	var (
		signer = Signer(cfg, header.Number, header.Time)
		gp     = core.NewGasPool(header.GasLimit)
		res    = &BlockResult{Outcomes: make([]TxOutcome, len(txs))}
	)
	var vmdb vm.StateDB = statedb
	if hooks != nil {
		// The state hooks (balance, nonce, code changes) fire only through
		// the hooked wrapper; the interpreter calls the others itself.
		vmdb = state.NewHookedState(statedb, hooks)
	}
	evm := vm.NewEVM(BlockContext(cfg, header, headers), vmdb, cfg, vm.Config{Tracer: hooks})
	defer evm.Release()

	for i, tx := range txs {
		out := &res.Outcomes[i]
		if other != nil && other(i) {
			continue
		}
		if tx.Type() == types.BlobTxType {
			out.Rejected = ErrBlobTxUnsupported
			continue
		}
		msg, err := core.TransactionToMessage(tx, signer, header.BaseFee)
		if err != nil {
			out.Rejected = err
			continue
		}
		out.Sender = msg.From

		// ApplyMessage can buy gas and then fail (e.g. intrinsic gas too low
		// after the purchase): undo the state and the gas pool in that case.
		snap, gpSnap := statedb.Snapshot(), gp.Snapshot()
		index := len(res.Txs)
		statedb.SetTxContext(tx.Hash(), index, uint32(index+1))
		receipt, result, err := applyTx(ctx, evm, msg, gp, statedb, header, tx)
		if err != nil {
			statedb.RevertToSnapshot(snap)
			gp.Set(gpSnap)
			out.Rejected = err
			continue
		}
		out.Receipt = receipt
		if result.Failed() {
			out.VMErr = result.Err
			out.Revert = result.Revert()
		}
		res.Txs = append(res.Txs, tx)
		res.Receipts = append(res.Receipts, receipt)
	}
	res.GasUsed = gp.Used()
	return res
}

// applyTx runs one message and builds its receipt. It mirrors
// core.ApplyTransactionWithEVM but keeps the ExecutionResult, whose revert
// data the events and the RPC report.
func applyTx(ctx context.Context, evm *vm.EVM, msg *core.Message, gp *core.GasPool, statedb *state.StateDB, header *types.Header, tx *types.Transaction) (*types.Receipt, *core.ExecutionResult, error) {
	if hooks := evm.Config.Tracer; hooks != nil && hooks.OnTxStart != nil {
		hooks.OnTxStart(evm.GetVMContext(), tx, msg.From)
	}
	result, err := core.ApplyMessage(evm, msg, gp)
	if err != nil {
		if hooks := evm.Config.Tracer; hooks != nil && hooks.OnTxEnd != nil {
			hooks.OnTxEnd(nil, err)
		}
		return nil, nil, err
	}
	statedb.Finalise(evm.GetRules())
	receipt := core.MakeReceipt(evm, result, statedb, header.Number, common.Hash{}, header.Time, tx, gp.CumulativeUsed(), nil)
	if hooks := evm.Config.Tracer; hooks != nil && hooks.OnTxEnd != nil {
		hooks.OnTxEnd(receipt, nil)
	}
	return receipt, result, nil
}
