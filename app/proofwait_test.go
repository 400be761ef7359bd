package app

import (
	"bytes"
	"context"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/devchain"
	"github.com/emberchain/ember/internal/wait"
)

// TestEmptyDevProposalTakesArrival: on a dev chain, an empty proposal (a
// proof block) waits for a transaction admitted meanwhile and carries it,
// though CometBFT's mempool offered none; with none admitted it stays empty.
func TestEmptyDevProposalTakesArrival(t *testing.T) {
	a, key := newDevTestApp(t)
	empty := &abci.RequestPrepareProposal{MaxTxBytes: 1 << 20}
	a.arrived.wait = time.Second // a scheduling delay must not make the test miss the wait

	res, err := a.PrepareProposal(context.Background(), empty)
	if err != nil || len(res.Txs) != 0 {
		t.Fatalf("nothing admitted: proposal %x, %v", res.Txs, err)
	}

	raw := signedTransfer(t, key, 0)
	proposed := make(chan [][]byte)
	go func() {
		res, err := a.PrepareProposal(context.Background(), empty)
		if err != nil {
			t.Error(err)
		}
		proposed <- res.Txs
	}()
	if res, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw}); err != nil || res.Code != CodeOK {
		t.Fatalf("CheckTx: %v %v", res, err)
	}
	// The proposal either was waiting and woke on the arrival, or had not
	// yet looked and found the tx pending: it carries the tx either way.
	if txs := <-proposed; len(txs) != 1 || !bytes.Equal(txs[0], raw) {
		t.Fatalf("proposal %x, want the admitted tx", txs)
	}
}

// TestProofBlockLeavesQueuedEdits: a clock edit queued (evm_setNextBlockTimestamp)
// while CometBFT's proof block is due rides on the block after it, the one
// a client asks for, unless the proof block takes transactions; on any
// other empty block it rides at once.
func TestProofBlockLeavesQueuedEdits(t *testing.T) {
	a, _ := newDevTestApp(t)
	a.arrived.wait = time.Millisecond
	ts := hexutil.Uint64(1_800_000_000)
	a.QueueDevOps(devchain.Op{Kind: devchain.SetTimestamp, Timestamp: &ts})
	empty := &abci.RequestPrepareProposal{MaxTxBytes: 1 << 20}
	carries := func(txs [][]byte) bool {
		for _, raw := range txs {
			if tx, err := devchain.Decode(raw); err == nil && len(tx.Ops) == 1 && *tx.Ops[0].Timestamp == ts {
				return true
			}
		}
		return false
	}

	a.dev.committed(nil, nil, true) // a block that changed the state: the next is its proof block
	res, err := a.PrepareProposal(context.Background(), empty)
	if err != nil || len(res.Txs) != 0 {
		t.Fatalf("proof block with nothing to take: proposal %x, %v; want it empty", res.Txs, err)
	}
	mine := devchain.Encode(&devchain.Tx{ID: 7})
	res, err = a.PrepareProposal(context.Background(), &abci.RequestPrepareProposal{MaxTxBytes: 1 << 20, Txs: [][]byte{mine}})
	if err != nil || len(res.Txs) != 2 || !carries(res.Txs) || !bytes.Equal(res.Txs[1], mine) {
		t.Fatalf("proof block taking an evm_mine: proposal %q, %v; want the edit, then the mine", res.Txs, err)
	}

	a.dev.committed(nil, nil, false) // an empty block: the next is an ordinary one
	if res, err = a.PrepareProposal(context.Background(), empty); err != nil || !carries(res.Txs) {
		t.Fatalf("empty block after an unchanged state: proposal %q, %v; want the edit", res.Txs, err)
	}
}

// TestEmptyDevProposalLeavesHeldTxs: automine turned off while an empty
// proposal waits for an arrival; a transaction sent then is held for
// evm_mine, and the proposal stays empty.
func TestEmptyDevProposalLeavesHeldTxs(t *testing.T) {
	a, key := newDevTestApp(t)
	a.arrived.wait = 10 * time.Second // longer than any scheduling delay: the test ends the wait
	// A stale arrival signal, which the proposal drains first thing: once
	// it is gone, the proposal is past its automine check and waiting.
	a.arrived.signal()
	proposed := make(chan [][]byte)
	go func() {
		res, err := a.PrepareProposal(context.Background(), &abci.RequestPrepareProposal{MaxTxBytes: 1 << 20})
		if err != nil {
			t.Error(err)
		}
		proposed <- res.Txs
	}()
	wait.Eventually(t, 10*time.Second, "the proposal to wait for an arrival", func() error {
		return wait.Check(len(a.arrived.ch) == 0, "the stale signal still queued")
	})
	a.SetAutomine(false)
	raw := signedTransfer(t, key, 0)
	if res, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw}); err != nil || res.Code != CodeHeld {
		t.Fatalf("CheckTx with automine off: %v %v, want held", res, err)
	}
	a.arrived.signal() // end the wait now, as an admitted tx would, not after 10 s
	if txs := <-proposed; len(txs) != 0 {
		t.Fatalf("proposal %x, want it empty: the tx is held for evm_mine", txs)
	}
}
