package evm

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// MessageBlock executes messages, not signed transactions, one after another
// in one block on one state and one gas pool: what eth_simulateV1 does with
// each block it simulates. It is the Executor's block (begin, apply, finish)
// with a simulation's EVM options, and unlike Executor.ApplyTx it refuses
// nothing silently: the first message that cannot be executed ends the
// block with its error, since a simulation answers for all its calls or
// none.
type MessageBlock struct {
	x       *Executor
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
	x := begin(context.Background(), cfg, header, headers, statedb, opts.Hooks,
		evmOptions{noBaseFee: opts.NoBaseFee, precompiles: opts.Precompiles, blobBaseFee: opts.BlobBaseFee})
	return &MessageBlock{x: x, timeout: opts.Timeout}
}

// Release ends the block and returns its EVM to go-ethereum's pool.
func (b *MessageBlock) Release() { b.x.Finish() }

// GasLeft is the gas the block can still give a message.
func (b *MessageBlock) GasLeft() uint64 {
	return b.x.gp.Available(b.x.cfg.IsAmsterdam(b.x.header.Number, b.x.header.Time))
}

// GasUsed is the gas the block's messages used so far.
func (b *MessageBlock) GasUsed() uint64 { return b.x.gp.Used() }

// Apply runs msg, which tx (unsigned: its hash names the message) stands for
// in the block, as the block's next transaction, and returns its receipt
// and result. An error means it could not be executed (nonce, funds, gas,
// ...: go-ethereum's core errors), or ctx aborted it (ctx's error before
// the run, a *TimeoutError during it); the block must not go on then.
func (b *MessageBlock) Apply(ctx context.Context, msg *core.Message, tx *types.Transaction) (*types.Receipt, *core.ExecutionResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	evm := b.x.evm
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			evm.Cancel()
		case <-done:
		}
	}()
	receipt, result, err := b.x.include(evm, msg, tx)
	if evm.Cancelled() {
		return nil, nil, &TimeoutError{Timeout: b.timeout}
	}
	if err != nil {
		return nil, nil, err
	}
	if err := b.x.statedb.Error(); err != nil {
		return nil, nil, err
	}
	return receipt, result, nil
}

// Withdraw credits the block's withdrawals (amounts in gwei) to their
// recipients, as the end of a post-Shanghai block does.
func (b *MessageBlock) Withdraw(withdrawals types.Withdrawals) {
	if len(withdrawals) > 0 {
		core.ProcessWithdrawals(withdrawals, b.x.evm, 0, nil) // finalises the state
	}
}
