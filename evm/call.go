package evm

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/gasestimator"
	"github.com/ethereum/go-ethereum/params"
)

// CallOptions are the limits and adjustments of one eth_call.
type CallOptions struct {
	// Timeout aborts the run when it passes (0: only ctx does).
	Timeout time.Duration
	// Precompiles replaces the fork's precompile set (state overrides can
	// move or remove precompiles); nil keeps the fork's.
	Precompiles vm.PrecompiledContracts
}

// Call executes msg on statedb in blockCtx without committing anything, as
// eth_call does. The base fee is not enforced (NoBaseFee), and a call with a
// zero gas price sees a zero BASEFEE, as on geth, so fee-less calls run. The
// run is aborted when opts.Timeout (if > 0) or ctx expires; the returned
// error then says so.
func Call(ctx context.Context, cfg *params.ChainConfig, blockCtx vm.BlockContext, statedb *state.StateDB, msg *core.Message, opts CallOptions) (*core.ExecutionResult, error) {
	if msg.GasPrice.IsZero() {
		blockCtx.BaseFee = new(big.Int)
	}
	evm := vm.NewEVM(blockCtx, &warmPrecompiles{StateDB: statedb}, cfg, vm.Config{NoBaseFee: true})
	defer evm.Release()
	if opts.Precompiles != nil {
		evm.SetPrecompiles(opts.Precompiles)
	}

	// Stop the interpreter when the time budget or ctx's deadline passes,
	// with one plain timer (no goroutine waiting meanwhile, no child
	// context: registering one with ctx costs a light eth_call more than
	// the timer), and when ctx is canceled otherwise. A ctx whose Done is nil is never
	// canceled: its deadline, if any, is only the timer's (the JSON-RPC fast
	// path bounds eth_call so, rpc.deadlineOnly).
	if timeout := budget(ctx, opts.Timeout); timeout >= 0 {
		defer time.AfterFunc(timeout, evm.Cancel).Stop()
	}
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, evm.Cancel)()
	}
	gp := core.NewGasPool(msg.GasLimit)
	result, err := core.ApplyMessage(evm, msg, gp)
	if err := statedb.Error(); err != nil {
		return nil, err
	}
	if evm.Cancelled() {
		return nil, &TimeoutError{Timeout: opts.Timeout}
	}
	return result, err
}

// budget is how long a run may take: timeout (0: unbounded), or less if
// ctx's deadline comes first; -1 when neither bounds it.
func budget(ctx context.Context, timeout time.Duration) time.Duration {
	if timeout <= 0 {
		timeout = -1
	}
	if dl, ok := ctx.Deadline(); ok {
		if left := max(time.Until(dl), 0); timeout < 0 || left < timeout {
			timeout = left
		}
	}
	return timeout
}

// TimeoutError is returned when a call runs past its time budget.
type TimeoutError struct{ Timeout time.Duration }

func (e *TimeoutError) Error() string {
	return "execution aborted (timeout = " + e.Timeout.String() + ")"
}

// Estimate finds the lowest gas limit with which msg succeeds on statedb,
// with go-ethereum's binary search (and its edge cases), capped at gasCap.
// blobBaseFee, if set, replaces the header's. On failure it returns the
// revert data, if any.
func Estimate(ctx context.Context, cfg *params.ChainConfig, header *types.Header, headers HeaderReader, statedb *state.StateDB, msg *core.Message, gasCap uint64, blobBaseFee *big.Int) (uint64, []byte, error) {
	opts := &gasestimator.Options{
		Config:      cfg,
		Chain:       ChainContext(cfg, headers),
		Header:      header,
		State:       statedb,
		BlobBaseFee: blobBaseFee,
		ErrorRatio:  0.015,
	}
	return gasestimator.Estimate(ctx, msg, opts, gasCap)
}
