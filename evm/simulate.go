package evm

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// MessageBlock executes messages, not signed transactions, one after another
// in one block on one state and one gas pool: what eth_simulateV1 does with
// each block it simulates. Unlike ApplyBlock it refuses nothing silently: the
// first message that cannot be executed ends the block with its error, since
// a simulation answers for all its calls or none.
type MessageBlock struct {
	evm     *vm.EVM
	statedb *state.StateDB
	header  *types.Header
	gp      *core.GasPool
	timeout time.Duration // only to word the error of an aborted run
}

// MessageBlockOptions adjust the EVM of a MessageBlock.
type MessageBlockOptions struct {
	// NoBaseFee lets gas prices below the base fee run (calls without
	// validation).
	NoBaseFee bool
	// Precompiles replaces the fork's precompile set; nil keeps it.
	Precompiles vm.PrecompiledContracts
	// Hooks, if set, see every frame, log and state change.
	Hooks *tracing.Hooks
	// BlobBaseFee, if set, replaces the one derived from the header.
	BlobBaseFee *big.Int
	// Timeout is reported in the error of a run ctx aborted.
	Timeout time.Duration
}

// NewMessageBlock prepares header's block on statedb; headers serves
// BLOCKHASH. Release it when done.
func NewMessageBlock(cfg *params.ChainConfig, header *types.Header, headers HeaderReader, statedb *state.StateDB, opts MessageBlockOptions) *MessageBlock {
	blockCtx := BlockContext(cfg, header, headers)
	if opts.BlobBaseFee != nil {
		blockCtx.BlobBaseFee = new(big.Int).Set(opts.BlobBaseFee)
	}
	var vmdb vm.StateDB = statedb
	if opts.Hooks != nil {
		vmdb = state.NewHookedState(statedb, opts.Hooks)
	}
	evm := vm.NewEVM(blockCtx, vmdb, cfg, vm.Config{NoBaseFee: opts.NoBaseFee, Tracer: opts.Hooks})
	if opts.Precompiles != nil {
		evm.SetPrecompiles(opts.Precompiles)
	}
	return &MessageBlock{evm: evm, statedb: statedb, header: header, gp: core.NewGasPool(header.GasLimit), timeout: opts.Timeout}
}

// Release returns the EVM to go-ethereum's pool.
func (b *MessageBlock) Release() { b.evm.Release() }

// GasLeft is the gas the block can still give a message.
func (b *MessageBlock) GasLeft() uint64 {
	return b.gp.Available(b.evm.ChainConfig().IsAmsterdam(b.header.Number, b.header.Time))
}

// GasUsed is the gas the block's messages used so far.
func (b *MessageBlock) GasUsed() uint64 { return b.gp.Used() }

// Apply runs msg, which tx (unsigned: its hash names the message) stands for
// in the block, as the index-th of the block, and returns its receipt and
// result. An error means it could not be executed (nonce, funds, gas, ...:
// go-ethereum's core errors), or ctx aborted it (ctx's error before the
// run, a *TimeoutError during it); the block must not go on then.
func (b *MessageBlock) Apply(ctx context.Context, msg *core.Message, tx *types.Transaction, index int) (*types.Receipt, *core.ExecutionResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			b.evm.Cancel()
		case <-done:
		}
	}()
	b.statedb.SetTxContext(tx.Hash(), index, uint32(index+1))
	result, err := core.ApplyMessage(b.evm, msg, b.gp)
	if b.evm.Cancelled() {
		return nil, nil, &TimeoutError{Timeout: b.timeout}
	}
	if err != nil {
		return nil, nil, err
	}
	if err := b.statedb.Error(); err != nil {
		return nil, nil, err
	}
	b.statedb.Finalise(b.evm.GetRules())
	receipt := core.MakeReceipt(b.evm, result, b.statedb, b.header.Number, common.Hash{}, b.header.Time, tx, b.gp.CumulativeUsed(), nil)
	return receipt, result, nil
}

// Withdraw credits the block's withdrawals (amounts in gwei) to their
// recipients, as the end of a post-Shanghai block does.
func (b *MessageBlock) Withdraw(withdrawals types.Withdrawals) {
	if len(withdrawals) > 0 {
		core.ProcessWithdrawals(withdrawals, b.evm, 0, nil) // finalises the state
	}
}
