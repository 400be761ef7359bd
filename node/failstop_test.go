package node

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
)

// TestConsensusFailureHalts logs CometBFT's consensus failure line through
// the CometBFT logger (as the consensus routine's recover does, at a level
// the logger filters out) and checks the node halted with the panic's
// text as the cause, closes Failed haltLinger later, and answers only the
// first failure. Other error lines halt nothing.
func TestConsensusFailureHalts(t *testing.T) {
	n := &Node{log: slog.New(slog.NewTextHandler(io.Discard, nil)), halt: newFailStop()}
	l, err := newCometLogger(n.log, "error", n.failedCometLog)
	if err != nil {
		t.Fatal(err)
	}
	cons := l.With("module", "consensus")
	cons.Error("failed writing to WAL", "err", "write wal: no space left on device")
	if err := n.halted(); err != nil {
		t.Fatalf("halted by another error line: %v", err)
	}
	start := time.Now()
	cons.Error(consensusFailure, "err", `failed to save block: write blockstore.db/000001.log: no space left on device`, "stack", "goroutine 1 [running]")
	const want = "node halted, it accepts no transactions: CometBFT consensus failure: failed to save block: write blockstore.db/000001.log: no space left on device"
	var he *HaltError
	if err := n.HaltCause(); err == nil || err.Error() != want || !errors.As(err, &he) {
		t.Fatalf("halt cause %v, want %q", err, want)
	}
	n.fail(errors.New("a second failure"))
	if got := n.HaltCause().Error(); got != want {
		t.Errorf("cause after a second failure: %q", got)
	}
	select {
	case <-n.Failed():
		if d := time.Since(start); d < haltLinger {
			t.Errorf("Failed closed %v after the halt, before haltLinger %v", d, haltLinger)
		}
	case <-time.After(haltLinger + 5*time.Second):
		t.Fatal("Failed not closed")
	}
}

// TestHaltGateCheckTx checks CheckTx through the gate: passed to the app
// before the halt, refused with the node codespace and the cause after.
func TestHaltGateCheckTx(t *testing.T) {
	var halt error
	g := haltGate{Application: checkTxApp{}, halted: func() error { return halt }}
	res, err := g.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: []byte{1}})
	if err != nil || res.Code != 0 || res.Log != "app" {
		t.Fatalf("before the halt: %+v %v", res, err)
	}
	halt = &HaltError{Cause: errors.New("write the transaction journal: no space left on device")}
	res, err = g.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: []byte{1}})
	if err != nil || res.Code != haltCode || res.Codespace != "node" ||
		res.Log != "node halted, it accepts no transactions: write the transaction journal: no space left on device" {
		t.Fatalf("after the halt: %+v %v", res, err)
	}
}

type checkTxApp struct{ abci.BaseApplication }

func (checkTxApp) CheckTx(context.Context, *abci.RequestCheckTx) (*abci.ResponseCheckTx, error) {
	return &abci.ResponseCheckTx{Log: "app"}, nil
}
