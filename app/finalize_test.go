package app

import (
	"context"
	"io"
	"log/slog"
	"math/big"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
)

// TestFinalizeWithoutHead: a block to execute before the store has any
// block (InitChain never ran, or a state sync is under way) is an error
// naming the height, not a panic.
func TestFinalizeWithoutHead(t *testing.T) {
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000)})
	st, err := store.Open(t.TempDir(), gs.EVM.Config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := New(st, txpool.New(txpool.Config{}), gs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	res, err := a.FinalizeBlock(context.Background(), &abci.RequestFinalizeBlock{Height: 1, Time: time.Unix(1_700_000_000, 0)})
	if res != nil || err == nil || err.Error() != "finalize block 1: no durable head" {
		t.Fatalf("FinalizeBlock without a head = %v, %v; want the error \"finalize block 1: no durable head\"", res, err)
	}
}
