package app

import (
	"github.com/ethereum/go-ethereum/core/tracing"

	"github.com/emberchain/ember/evm"
)

// CaptureInternalCalls makes every block from now on record its internal
// transactions (call frames below each transaction's top-level call) with
// the block in the store, for a reader such as the explorer. Off by
// default: a node without a reader executes blocks exactly as before. Call
// it before the node starts.
func (a *App) CaptureInternalCalls(on bool) { a.captureCalls.Store(on) }

// callRecorder adds a recorder to hooks when capture is on; nil otherwise.
func (a *App) callRecorder(hooks *tracing.Hooks) *evm.CallRecorder {
	if !a.captureCalls.Load() {
		return nil
	}
	rec := evm.NewCallRecorder()
	rec.Hook(hooks)
	return rec
}
