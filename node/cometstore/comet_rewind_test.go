package cometstore

import (
	"context"
	"fmt"
	"testing"

	dbm "github.com/cometbft/cometbft-db"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/pubsub/query"
	blockidx "github.com/cometbft/cometbft/state/indexer/block/kv"
	"github.com/cometbft/cometbft/state/txindex/kv"
	cmttypes "github.com/cometbft/cometbft/types"
)

// TestRewindIndex fills CometBFT's own kv tx and block indexers with
// heights 1–6 (a tx with an ethereum_tx event, and a block event, each)
// and rewinds them to 3: lookups and searches find heights 1–3 only. (An
// event key of 32 bytes, as "ethereum_tx.hash/0x04/4/4/0$es$4", is not
// taken for a tx hash.)
func TestRewindIndex(t *testing.T) {
	db := dbm.NewMemDB()
	txs := kv.NewTxIndex(db)
	blocks := blockidx.New(dbm.NewPrefixDB(db, blockEventsPrefix))
	ev := func(typ string, h int64) []abci.Event {
		return []abci.Event{{Type: typ, Attributes: []abci.EventAttribute{{Key: "hash", Value: fmt.Sprintf("0x%02x/%d", h, h), Index: true}}}}
	}
	var hashes [][]byte
	for h := int64(1); h <= 6; h++ {
		tx := cmttypes.Tx(fmt.Sprintf("tx-%d", h))
		res := &abci.TxResult{Height: h, Tx: tx, Result: abci.ExecTxResult{Events: ev("ethereum_tx", h)}}
		if err := txs.Index(res); err != nil {
			t.Fatal(err)
		}
		if err := blocks.Index(cmttypes.EventDataNewBlockEvents{Height: h, Events: ev("block_ev", h)}); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, tx.Hash())
	}
	if err := rewindIndex(db, 3); err != nil {
		t.Fatal(err)
	}
	for i, hash := range hashes {
		got, err := txs.Get(hash)
		if err != nil || (got != nil) != (i < 3) {
			t.Fatalf("tx of height %d after rewinding to 3: %v %v", i+1, got, err)
		}
	}
	ctx := context.Background()
	found, err := txs.Search(ctx, query.MustCompile("ethereum_tx.hash EXISTS"))
	if err != nil || len(found) != 3 {
		t.Fatalf("tx_search after rewinding to 3: %d results, %v", len(found), err)
	}
	heights, err := blocks.Search(ctx, query.MustCompile("block_ev.hash EXISTS"))
	if err != nil || len(heights) != 3 {
		t.Fatalf("block_search after rewinding to 3: %v, %v", heights, err)
	}
	for h := int64(4); h <= 6; h++ {
		if ok, _ := blocks.Has(h); ok {
			t.Fatalf("block index still has height %d", h)
		}
	}
}
