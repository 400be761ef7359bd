package app

import (
	"context"
	"io"
	"log/slog"
	"math/big"
	"path/filepath"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/snapshot"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
)

// The ABCI state-sync answers, between an app that serves a snapshot and
// one with an empty store that restores it.
func TestSnapshotABCI(t *testing.T) {
	bg := context.Background()
	funded := common.HexToAddress("0x00000000000000000000000000000000000f00d5")
	src := newTestApp(t, funded)
	for h := int64(1); h <= 3; h++ {
		req := &abci.RequestFinalizeBlock{Height: h, Time: time.Unix(1_700_000_000+h, 0), Hash: common.BigToHash(big.NewInt(h)).Bytes()}
		if _, err := src.FinalizeBlock(bg, req); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Commit(bg, &abci.RequestCommit{}); err != nil {
			t.Fatal(err)
		}
	}
	m, err := snapshot.Open(filepath.Join(t.TempDir(), "snapshots"), 2, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(bg, src.store, 3); err != nil {
		t.Fatal(err)
	}
	src.SetSnapshots(m)
	list, err := src.ListSnapshots(bg, &abci.RequestListSnapshots{})
	if err != nil || len(list.Snapshots) != 1 || list.Snapshots[0].Height != 3 {
		t.Fatalf("ListSnapshots %+v %v", list, err)
	}
	snap := list.Snapshots[0]
	appHash := src.store.Head().Root.Bytes()

	st, err := store.Open(t.TempDir(), src.config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dst := New(st, txpool.New(txpool.Config{}), src.genesis, src.log)
	if res, _ := dst.CheckTx(bg, &abci.RequestCheckTx{Tx: []byte{1}}); res.Code == CodeOK || res.Log != errNoState.Error() {
		t.Fatalf("CheckTx before the restore: %+v", res)
	}
	offer := func(s *abci.Snapshot, hash []byte) abci.ResponseOfferSnapshot_Result {
		res, err := dst.OfferSnapshot(bg, &abci.RequestOfferSnapshot{Snapshot: s, AppHash: hash})
		if err != nil {
			t.Fatal(err)
		}
		return res.Result
	}
	other := *snap
	other.Format = 9
	if r := offer(&other, appHash); r != abci.ResponseOfferSnapshot_REJECT_FORMAT {
		t.Fatalf("format 9: %v", r)
	}
	if r := offer(snap, common.Hash{1}.Bytes()); r != abci.ResponseOfferSnapshot_REJECT {
		t.Fatalf("another app hash: %v", r)
	}
	other = *snap
	other.Hash = common.Hash{2}.Bytes()
	if r := offer(&other, appHash); r != abci.ResponseOfferSnapshot_REJECT {
		t.Fatalf("metadata not matching the hash: %v", r)
	}
	if r := offer(snap, appHash); r != abci.ResponseOfferSnapshot_ACCEPT {
		t.Fatalf("the snapshot: %v", r)
	}
	for i := uint32(0); i < snap.Chunks; i++ {
		chunk, err := src.LoadSnapshotChunk(bg, &abci.RequestLoadSnapshotChunk{Height: 3, Format: snap.Format, Chunk: i})
		if err != nil || len(chunk.Chunk) == 0 {
			t.Fatalf("chunk %d: %v", i, err)
		}
		bad := append([]byte{}, chunk.Chunk...)
		bad[0] ^= 0xff
		res, err := dst.ApplySnapshotChunk(bg, &abci.RequestApplySnapshotChunk{Index: i, Chunk: bad, Sender: "peer1"})
		if err != nil || res.Result != abci.ResponseApplySnapshotChunk_RETRY || len(res.RefetchChunks) != 1 || res.RefetchChunks[0] != i || res.RejectSenders[0] != "peer1" {
			t.Fatalf("corrupt chunk %d: %+v %v", i, res, err)
		}
		res, err = dst.ApplySnapshotChunk(bg, &abci.RequestApplySnapshotChunk{Index: i, Chunk: chunk.Chunk, Sender: "peer2"})
		if err != nil || res.Result != abci.ResponseApplySnapshotChunk_ACCEPT {
			t.Fatalf("chunk %d: %+v %v", i, res, err)
		}
	}
	info, err := dst.Info(bg, &abci.RequestInfo{})
	if err != nil || info.LastBlockHeight != 3 || common.BytesToHash(info.LastBlockAppHash) != common.BytesToHash(appHash) {
		t.Fatalf("Info after the restore: %+v %v", info, err)
	}
	if got, want := st.Head().Hash(), src.store.Head().Hash(); got != want {
		t.Fatalf("head %x, want %x", got, want)
	}
	if acct, err := st.AccountAt(st.Head().Root, funded); err != nil || acct == nil || acct.Balance.ToBig().Cmp(new(big.Int).Lsh(big.NewInt(1), 100)) != 0 {
		t.Fatalf("funded account after the restore: %+v %v", acct, err)
	}
	// The next block executes on the restored state.
	req := &abci.RequestFinalizeBlock{Height: 4, Time: time.Unix(1_700_000_004, 0), Hash: common.BigToHash(big.NewInt(4)).Bytes()}
	want, err := src.FinalizeBlock(bg, req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dst.FinalizeBlock(bg, req)
	if err != nil || common.BytesToHash(got.AppHash) != common.BytesToHash(want.AppHash) {
		t.Fatalf("block 4 after the restore: %x %v, source %x", got.AppHash, err, want.AppHash)
	}
	if _, err := dst.Commit(bg, &abci.RequestCommit{}); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Commit(bg, &abci.RequestCommit{}); err != nil {
		t.Fatal(err)
	}
	if st.Head().Hash() != src.store.Head().Hash() || st.Head().Root == (types.EmptyRootHash) {
		t.Fatal("block 4 differs")
	}
}
