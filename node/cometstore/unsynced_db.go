package cometstore

import (
	"sync"

	dbm "github.com/cometbft/cometbft-db"
	cmtcfg "github.com/cometbft/cometbft/config"
)

// DBProvider is how CometBFT opens its databases: synced as by default, or
// not (app.toml's [store] sync), its state database answering validator-set
// reads without replaying proposer priorities (valsetsDB).
func DBProvider(sync bool) cmtcfg.DBProvider {
	if sync {
		return withValsets(cmtcfg.DefaultDBProvider)
	}
	return withValsets(unsyncedDBProvider)
}

// unsyncedDBProvider opens CometBFT's databases (block store, state, tx
// index, evidence) as the default provider does, with their synced writes
// made plain writes (app.toml's [store] sync).
func unsyncedDBProvider(ctx *cmtcfg.DBContext) (dbm.DB, error) {
	db, err := cmtcfg.DefaultDBProvider(ctx)
	if err != nil {
		return nil, err
	}
	return unsyncedDB{db}, nil
}

// unsyncedDB writes without waiting for the disk. goleveldb still writes
// each record to its journal file before returning, so a killed process
// loses nothing; only a power loss could.
type unsyncedDB struct{ dbm.DB }

func (d unsyncedDB) SetSync(key, value []byte) error { return d.Set(key, value) }
func (d unsyncedDB) DeleteSync(key []byte) error     { return d.Delete(key) }
func (d unsyncedDB) NewBatch() dbm.Batch             { return unsyncedBatch{d.DB.NewBatch()} }

type unsyncedBatch struct{ dbm.Batch }

func (b unsyncedBatch) WriteSync() error { return b.Write() }

// DBs keeps CometBFT's databases open for the process's lifetime: a dev
// chain's evm_revert stops its node and starts a new one on the same
// stores, and opening them again (goleveldb replays its journal) would be
// most of a revert's time. The node gets them with Close made a no-op (its
// Stop closes three of them; in v0.38 not the tx index one); CloseAll
// closes them when the node stops for good. The zero DBs is ready.
type DBs struct {
	mu  sync.Mutex
	dbs map[string]dbm.DB
}

// Provider wraps open: a database already open is handed out again.
func (c *DBs) Provider(open cmtcfg.DBProvider) cmtcfg.DBProvider {
	return func(ctx *cmtcfg.DBContext) (dbm.DB, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if db, ok := c.dbs[ctx.ID]; ok {
			return keptDB{db}, nil
		}
		db, err := open(ctx)
		if err != nil {
			return nil, err
		}
		if c.dbs == nil {
			c.dbs = make(map[string]dbm.DB)
		}
		c.dbs[ctx.ID] = db
		return keptDB{db}, nil
	}
}

// CloseAll closes every database.
func (c *DBs) CloseAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, db := range c.dbs {
		_ = db.Close()
	}
	c.dbs = nil
}

// keptDB is a database whose Close leaves it open (see DBs).
type keptDB struct{ dbm.DB }

func (keptDB) Close() error { return nil }
