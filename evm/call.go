package evm

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/gasestimator"
	"github.com/ethereum/go-ethereum/params"
)

// Call executes msg on statedb in the context of header without committing
// anything, as eth_call and eth_estimateGas do. The base fee is not enforced
// (NoBaseFee), so a call with a zero gas price runs, as it does on geth. The
// run is aborted when timeout (if > 0) or ctx expires; the returned error then
// says so.
func Call(ctx context.Context, cfg *params.ChainConfig, header *types.Header, headers HeaderReader, statedb *state.StateDB, msg *core.Message, timeout time.Duration) (*core.ExecutionResult, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	blockCtx := BlockContext(cfg, header, headers)
	evm := vm.NewEVM(blockCtx, statedb, cfg, vm.Config{NoBaseFee: true})
	defer evm.Release()

	// Stop the interpreter when the deadline passes.
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			evm.Cancel()
		case <-done:
		}
	}()
	gp := core.NewGasPool(msg.GasLimit)
	result, err := core.ApplyMessage(evm, msg, gp)
	if err := statedb.Error(); err != nil {
		return nil, err
	}
	if evm.Cancelled() {
		return nil, &TimeoutError{Timeout: timeout}
	}
	return result, err
}

// TimeoutError is returned when a call runs past its time budget.
type TimeoutError struct{ Timeout time.Duration }

func (e *TimeoutError) Error() string {
	return "execution aborted (timeout = " + e.Timeout.String() + ")"
}

// Estimate finds the lowest gas limit with which msg succeeds on statedb,
// with go-ethereum's binary search (and its edge cases), capped at gasCap.
// On failure it returns the revert data, if any.
func Estimate(ctx context.Context, cfg *params.ChainConfig, header *types.Header, headers HeaderReader, statedb *state.StateDB, msg *core.Message, gasCap uint64) (uint64, []byte, error) {
	opts := &gasestimator.Options{
		Config:     cfg,
		Chain:      ChainContext(cfg, headers),
		Header:     header,
		State:      statedb,
		ErrorRatio: 0.015,
	}
	return gasestimator.Estimate(ctx, msg, opts, gasCap)
}
