package cometstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cometbft/cometbft/privval"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
)

// TestUnsyncedPVStateReloads: the state the unsynced validator writes (in
// place, padded) is what CometBFT's FilePV loads after a restart, and it
// still refuses to sign a lower height.
func TestUnsyncedPVStateReloads(t *testing.T) {
	dir := t.TempDir()
	keyFile, stateFile := filepath.Join(dir, "key.json"), filepath.Join(dir, "state.json")
	privval.GenFilePV(keyFile, stateFile).Save()
	pv, done, err := newUnsyncedPV(keyFile, stateFile)
	if err != nil {
		t.Fatal(err)
	}
	for h := int64(1); h <= 3; h++ {
		vote := &cmtproto.Vote{Type: cmtproto.PrevoteType, Height: h, BlockID: cmtproto.BlockID{}}
		if err := pv.SignVote("c", vote); err != nil {
			t.Fatal(err)
		}
	}
	done()
	if raw, _ := os.ReadFile(stateFile); len(raw)%4096 != 0 {
		t.Fatalf("state file of %d bytes, want whole 4 KiB pages", len(raw))
	}
	again := privval.LoadFilePV(keyFile, stateFile)
	if again.LastSignState.Height != 3 || again.LastSignState.Step != 2 {
		t.Fatalf("reloaded state height %d step %d, want 3 and 2 (prevote)", again.LastSignState.Height, again.LastSignState.Step)
	}
	if err := again.SignVote("c", &cmtproto.Vote{Type: cmtproto.PrevoteType, Height: 2}); err == nil {
		t.Fatal("signed a vote below the reloaded height")
	}
}
