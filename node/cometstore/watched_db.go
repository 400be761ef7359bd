package cometstore

import (
	"fmt"

	dbm "github.com/cometbft/cometbft-db"
	cmtcfg "github.com/cometbft/cometbft/config"
)

// WatchWrites wraps open so that a failed write to any of CometBFT's
// databases (a full disk, an I/O error) is reported to failed, naming the
// database, before the error returns to CometBFT. CometBFT's answer to
// such an error is a panic: its consensus routine recovers it ("CONSENSUS
// FAILURE!!!") and the node halts cleanly, but block sync's routine does
// not, and the process dies with a stack trace. Reported first, the cause
// is in the node's fail-stop line in either case, and the node refuses
// transactions from that moment.
func WatchWrites(open cmtcfg.DBProvider, failed func(error)) cmtcfg.DBProvider {
	return func(ctx *cmtcfg.DBContext) (dbm.DB, error) {
		db, err := open(ctx)
		if err != nil {
			return nil, err
		}
		return watchedDB{DB: db, w: writeWatch{name: ctx.ID, failed: failed}}, nil
	}
}

// writeWatch reports a database's failed writes.
type writeWatch struct {
	name   string
	failed func(error)
}

func (w writeWatch) check(err error) error {
	if err != nil {
		w.failed(fmt.Errorf("write CometBFT's %s database: %w", w.name, err))
	}
	return err
}

type watchedDB struct {
	dbm.DB
	w writeWatch
}

func (d watchedDB) Set(k, v []byte) error     { return d.w.check(d.DB.Set(k, v)) }
func (d watchedDB) SetSync(k, v []byte) error { return d.w.check(d.DB.SetSync(k, v)) }
func (d watchedDB) Delete(k []byte) error     { return d.w.check(d.DB.Delete(k)) }
func (d watchedDB) DeleteSync(k []byte) error { return d.w.check(d.DB.DeleteSync(k)) }
func (d watchedDB) NewBatch() dbm.Batch       { return watchedBatch{Batch: d.DB.NewBatch(), w: d.w} }

type watchedBatch struct {
	dbm.Batch
	w writeWatch
}

func (b watchedBatch) Write() error     { return b.w.check(b.Batch.Write()) }
func (b watchedBatch) WriteSync() error { return b.w.check(b.Batch.WriteSync()) }
