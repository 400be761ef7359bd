package node

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
)

// Fail-stop: when a write the node cannot do without losing consistency
// fails (a full disk, an I/O error in CometBFT's stores or WAL, in Ember's
// store or the transaction journal), carrying on would serve a chain that
// no longer advances and hand out hashes of transactions nothing will
// include. CometBFT's consensus routine recovers the panic such a failure
// raises, logs "CONSENSUS FAILURE!!!" and stops, leaving the process up;
// the node learns of it through that log line (logger.go) and of its own
// failed writes directly. From then on it refuses transactions, reads as
// not ready, stops CometBFT (whose /health then answers nothing, as its
// documentation says a failed node does) and, after haltLinger, exits
// non-zero naming the cause (emberd start), as CometBFT expects of a
// failed application. A restart once the cause is fixed replays what the
// stores lack.

// haltLinger is how long a halted node keeps refusing transactions with
// the cause and answering not ready before it exits, so that clients and
// the load balancer in front of it see why rather than a closed port.
const haltLinger = 2 * time.Second

// consensusFailure is the message CometBFT's consensus routine logs when it
// recovers a panic (consensus/state.go receiveRoutine) and stops.
const consensusFailure = "CONSENSUS FAILURE!!!"

// HaltError is the answer to a transaction sent to a halted node.
type HaltError struct{ Cause error }

func (e *HaltError) Error() string {
	return "node halted, it accepts no transactions: " + e.Cause.Error()
}

func (e *HaltError) Unwrap() error { return e.Cause }

// failStop is a node's halt state.
type failStop struct {
	once   sync.Once
	err    atomic.Pointer[HaltError]
	halted chan struct{} // closed at the halt
	done   chan struct{} // closed haltLinger after it: time to exit
	comet  chan struct{} // closed once haltComet has stopped CometBFT
}

func newFailStop() *failStop {
	return &failStop{halted: make(chan struct{}), done: make(chan struct{}), comet: make(chan struct{})}
}

// fail halts the node for cause; only the first call does anything. It
// returns at once: it may run on CometBFT's consensus goroutine.
func (n *Node) fail(cause error) {
	n.halt.once.Do(func() {
		n.halt.err.Store(&HaltError{Cause: cause})
		close(n.halt.halted)
		n.log.Error("FAIL-STOP: a write the node needs failed; it refuses transactions and exits", "cause", cause)
		go n.haltComet()
		time.AfterFunc(haltLinger, func() { close(n.halt.done) })
	})
}

// haltComet stops CometBFT: its consensus routine has stopped, or the node
// cannot record what it accepts, and neither its peers nor a monitor
// calling its /health should take it for a working node.
func (n *Node) haltComet() {
	defer close(n.halt.comet)
	n.revertMu.Lock() // not while a dev chain's evm_revert swaps it (revert.go)
	defer n.revertMu.Unlock()
	if cmt := n.comet(); cmt != nil && cmt.IsRunning() {
		if err := cmt.Stop(); err != nil {
			n.log.Error("stop CometBFT after the halt", "err", err)
		}
	}
}

// awaitHaltComet waits, on a halted node, until haltComet has stopped
// CometBFT (Stop then finds it stopped and closes its databases after it),
// at most haltCometWait: a stop on a failing disk must not hang the exit.
func (n *Node) awaitHaltComet() {
	select {
	case <-n.halt.halted:
	default:
		return
	}
	select {
	case <-n.halt.comet:
	case <-time.After(haltCometWait):
		n.log.Error("CometBFT still stopping after the halt; closing the stores anyway", "waited", haltCometWait)
	}
}

const haltCometWait = 10 * time.Second

// halted is why the node accepts no transaction, or nil.
func (n *Node) halted() error {
	if e := n.halt.err.Load(); e != nil {
		return e
	}
	return nil
}

// Failed is closed when the node has halted (fail-stop) and should exit:
// the caller then calls Stop and exits non-zero with HaltCause.
func (n *Node) Failed() <-chan struct{} { return n.halt.done }

// HaltCause is why the node halted, or nil while it has not.
func (n *Node) HaltCause() error { return n.halted() }

// failedCometLog turns CometBFT's consensus failure log line into a halt.
func (n *Node) failedCometLog(msg string, kv []any) {
	if msg != consensusFailure {
		return
	}
	cause := "unknown"
	for i := 0; i+1 < len(kv); i += 2 {
		if k, _ := kv[i].(string); k == "err" {
			cause = fmt.Sprint(kv[i+1])
		}
	}
	n.fail(fmt.Errorf("CometBFT consensus failure: %s", cause))
}

// haltCodespace and haltCode are CheckTx's answer on a halted node, to a
// transaction that came in through CometBFT (broadcast_tx_*, the REST and
// gRPC broadcasts) rather than the JSON-RPC.
const (
	haltCodespace = "node"
	haltCode      = 1
)

// haltGate is the app as CometBFT calls it: CheckTx refuses every
// transaction once the node halted.
type haltGate struct {
	abci.Application
	halted func() error
}

func (g haltGate) CheckTx(ctx context.Context, req *abci.RequestCheckTx) (*abci.ResponseCheckTx, error) {
	if err := g.halted(); err != nil {
		return &abci.ResponseCheckTx{Code: haltCode, Codespace: haltCodespace, Log: err.Error()}, nil
	}
	return g.Application.CheckTx(ctx, req)
}
