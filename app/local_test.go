package app

import (
	"bytes"
	"context"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
)

// TestLocalAdmission walks a dev chain with local admission through the
// ABCI calls: a transaction sent while CometBFT waits for one goes through
// its mempool; one sent while a block is made is admitted locally and the
// next block takes it from the pool (its pending status kept across a
// block CometBFT never rechecked it in); one sent while an empty block is
// made is resubmitted at its Commit to wake CometBFT, and CheckTx accepts
// that resubmission once.
func TestLocalAdmission(t *testing.T) {
	a, key := newDevTestApp(t)
	a.arrived.wait = time.Millisecond
	var woke [][]byte
	a.SetMempoolHooks(MempoolHooks{Wake: func(raw []byte) { woke = append(woke, raw) }})
	a.AdmitLocally()

	txs := make([][]byte, 5)
	for i := range txs {
		txs[i] = signedTransfer(t, key, uint64(i))
	}
	admit := func(raw []byte, wantLocal bool) {
		t.Helper()
		key, err := a.Precheck(raw, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Forget(key)
		res, local, err := a.AdmitLocal(raw, key)
		if err != nil || local != wantLocal || local && res.Code != CodeOK {
			t.Fatalf("AdmitLocal: %v, local %v, %v; want local %v, code 0", res, local, err, wantLocal)
		}
	}
	check := func(raw []byte, want uint32) {
		t.Helper()
		res, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw, Type: abci.CheckTxType_New})
		if err != nil || res.Code != want {
			t.Fatalf("CheckTx: %v, %v; want code %d", res, err, want)
		}
	}
	propose := func(mempool [][]byte, want ...[]byte) [][]byte {
		t.Helper()
		res, err := a.PrepareProposal(context.Background(), &abci.RequestPrepareProposal{Txs: mempool, MaxTxBytes: 1 << 20})
		if err != nil || len(res.Txs) != len(want) {
			t.Fatalf("proposal of %d txs, %v; want %d", len(res.Txs), err, len(want))
		}
		for i := range want {
			if !bytes.Equal(res.Txs[i], want[i]) {
				t.Fatalf("proposal tx %d is not the one wanted", i)
			}
		}
		return res.Txs
	}
	height := int64(0)
	commit := func(block [][]byte) {
		t.Helper()
		height++
		_, err := a.FinalizeBlock(context.Background(), &abci.RequestFinalizeBlock{Height: height, Txs: block,
			Time: time.Unix(1_700_000_000+height, 0), ProposerAddress: make([]byte, 20), Hash: make([]byte, 32)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Commit(context.Background(), &abci.RequestCommit{}); err != nil {
			t.Fatal(err)
		}
	}

	admit(txs[0], false) // CometBFT waits for a transaction: its mempool gets it
	check(txs[0], CodeOK)
	block := propose([][]byte{txs[0]}, txs[0])
	admit(txs[1], true) // while the block is made
	commit(block)       // it changed the state: CometBFT's proof block comes next
	block = propose(nil, txs[1])
	commit(block)
	if len(woke) != 0 {
		t.Fatalf("%d wake requests after blocks that changed the state", len(woke))
	}

	block = propose(nil) // nothing pending: an empty block
	admit(txs[2], true)
	commit(block) // the state is unchanged: CometBFT waits, and txs[2] would wait for it
	if len(woke) != 1 || !bytes.Equal(woke[0], txs[2]) {
		t.Fatalf("wake requests %d, want one, for the tx admitted during the empty block", len(woke))
	}
	admit(txs[3], false) // CometBFT waits: through its mempool
	check(txs[3], CodeOK)
	check(txs[2], CodeOK)    // the wake's resubmission
	check(txs[2], CodeNonce) // accepted once: already known
	commit(propose([][]byte{txs[2], txs[3]}, txs[2], txs[3]))

	a.SetAutomine(false)
	admit(txs[4], false) // automine off: CheckTx holds it, through CometBFT's mempool
	check(txs[4], CodeHeld)
	propose(nil) // held: not proposed until evm_mine
}
