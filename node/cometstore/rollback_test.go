package cometstore

import (
	"strings"
	"testing"
	"time"

	dbm "github.com/cometbft/cometbft-db"
	cmtcfg "github.com/cometbft/cometbft/config"
	sm "github.com/cometbft/cometbft/state"
	cmttypes "github.com/cometbft/cometbft/types"
)

// memDBs opens each CometBFT database as one in-memory database, the same
// on every open.
func memDBs() cmtcfg.DBProvider {
	dbs := map[string]dbm.DB{}
	return func(ctx *cmtcfg.DBContext) (dbm.DB, error) {
		if dbs[ctx.ID] == nil {
			dbs[ctx.ID] = dbm.NewMemDB()
		}
		return dbs[ctx.ID], nil
	}
}

// TestRollbackRefusesBeforeTheApp: with no state, or a state store at a
// height the block store is not at (neither equal nor one below), Rollback
// fails before asking the app to move: the app's head must never be taken
// back for a rollback CometBFT then refuses.
func TestRollbackRefusesBeforeTheApp(t *testing.T) {
	cfg := cmtcfg.TestConfig()
	open := memDBs()
	called := false
	app := func(int64) error { called = true; return nil }
	if _, err := Rollback(cfg, open, false, app); err == nil || !strings.Contains(err.Error(), "no block to roll back") || called {
		t.Fatalf("rollback of an empty store: %v (app called: %v)", err, called)
	}
	pv := cmttypes.NewMockPV()
	pub, _ := pv.GetPubKey()
	doc := &cmttypes.GenesisDoc{ChainID: "ember_9000-1", GenesisTime: time.Unix(1_700_000_000, 0), InitialHeight: 1,
		Validators: []cmttypes.GenesisValidator{{PubKey: pub, Power: 10}}}
	if err := doc.ValidateAndComplete(); err != nil {
		t.Fatal(err)
	}
	st, err := sm.MakeGenesisState(doc)
	if err != nil {
		t.Fatal(err)
	}
	st.LastBlockHeight = 5
	st.LastValidators = st.Validators.Copy()
	sdb, _ := open(&cmtcfg.DBContext{ID: "state", Config: cfg})
	if err := sm.NewStore(sdb, sm.StoreOptions{}).Save(st); err != nil {
		t.Fatal(err)
	}
	if _, err := Rollback(cfg, open, false, app); err == nil || !strings.Contains(err.Error(), "state is at height 5, its block store at 0") || called {
		t.Fatalf("rollback with the stores out of step: %v (app called: %v)", err, called)
	}
}
