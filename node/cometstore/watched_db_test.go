package cometstore

import (
	"errors"
	"strings"
	"testing"

	dbm "github.com/cometbft/cometbft-db"
	cmtcfg "github.com/cometbft/cometbft/config"
)

// fullDB is a database whose every write fails as on a full disk.
type fullDB struct{ dbm.DB }

var errFull = errors.New("write blockstore.db/000001.log: no space left on device")

func (fullDB) Set(_, _ []byte) error     { return errFull }
func (fullDB) SetSync(_, _ []byte) error { return errFull }
func (d fullDB) NewBatch() dbm.Batch     { return fullBatch{d.DB.NewBatch()} }

type fullBatch struct{ dbm.Batch }

func (fullBatch) WriteSync() error { return errFull }

func TestWatchWritesReportsFailedWrites(t *testing.T) {
	var reported []error
	open := WatchWrites(func(*cmtcfg.DBContext) (dbm.DB, error) { return fullDB{dbm.NewMemDB()}, nil },
		func(err error) { reported = append(reported, err) })
	db, err := open(&cmtcfg.DBContext{ID: "blockstore"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("k"), []byte("v")); !errors.Is(err, errFull) {
		t.Fatalf("Set = %v, want the database's own error", err)
	}
	b := db.NewBatch()
	if err := b.Set([]byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteSync(); !errors.Is(err, errFull) {
		t.Fatalf("batch WriteSync = %v, want the database's own error", err)
	}
	if err := db.Delete([]byte("k")); err != nil { // succeeds: nothing reported
		t.Fatal(err)
	}
	if len(reported) != 2 {
		t.Fatalf("reported %d failures, want 2: %v", len(reported), reported)
	}
	want := "write CometBFT's blockstore database: " + errFull.Error()
	if got := reported[0].Error(); got != want || !strings.Contains(reported[1].Error(), "blockstore") {
		t.Fatalf("reported %q and %q, want %q", got, reported[1], want)
	}
}
