package node

import (
	"sync"

	dbm "github.com/cometbft/cometbft-db"
	cmtcfg "github.com/cometbft/cometbft/config"
)

// dbProvider is how CometBFT opens its databases: synced as by default, or
// not (StoreConfig.Sync).
func (n *Node) dbProvider() cmtcfg.DBProvider {
	if n.cfg.Store.Sync {
		return cmtcfg.DefaultDBProvider
	}
	return unsyncedDBProvider
}

// unsyncedDBProvider opens CometBFT's databases (block store, state, tx
// index, evidence) as the default provider does, with their synced writes
// made plain writes: see StoreConfig.Sync.
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

// openedDBs keeps the databases a CometBFT node opened: its Stop closes
// the block store, state and evidence databases but not the tx index one
// (CometBFT v0.38), whose file lock would keep a new node in the same
// process (a dev chain's evm_revert) from opening it.
type openedDBs struct {
	mu  sync.Mutex
	dbs []dbm.DB
}

// provider wraps open, recording what it opens.
func (o *openedDBs) provider(open cmtcfg.DBProvider) cmtcfg.DBProvider {
	return func(ctx *cmtcfg.DBContext) (dbm.DB, error) {
		db, err := open(ctx)
		if err == nil {
			o.mu.Lock()
			o.dbs = append(o.dbs, db)
			o.mu.Unlock()
		}
		return db, err
	}
}

// closeAll closes every recorded database (closing one CometBFT closed
// already only returns an error, ignored).
func (o *openedDBs) closeAll() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, db := range o.dbs {
		_ = db.Close()
	}
	o.dbs = nil
}
