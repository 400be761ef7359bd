package cometstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	dbm "github.com/cometbft/cometbft-db"
	abci "github.com/cometbft/cometbft/abci/types"
	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/privval"
	sm "github.com/cometbft/cometbft/state"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/cosmos/gogoproto/proto"
	"github.com/google/orderedcode"
)

// Rewind brings everything CometBFT keeps back to height h, CometBFT
// stopped: its stores (rewindComet, through open), its consensus WAL and
// pv's sign state.
func Rewind(cfg *cmtcfg.Config, open cmtcfg.DBProvider, pv cmttypes.PrivValidator, h int64) error {
	if err := rewindComet(cfg, open, h); err != nil {
		return fmt.Errorf("rewind CometBFT: %w", err)
	}
	if err := resetWAL(cfg.Consensus.WalFile(), h); err != nil {
		return fmt.Errorf("reset the consensus WAL: %w", err)
	}
	return resetSignState(pv)
}

// rewindComet brings CometBFT's stores, stopped, back to height h: the
// state store one height at a time with CometBFT's own rollback (which
// rebuilds the state at h-1 from the saved validators, consensus params and
// the next block's header) deleting each block above h from the block
// store, then the tx and block indexes' entries above h.
func rewindComet(cfg *cmtcfg.Config, open cmtcfg.DBProvider, h int64) error {
	bs, ss, closeAll, err := openStores(cfg, open) // rollback.go
	if err != nil {
		return err
	}
	defer closeAll()
	for {
		st, err := ss.Load()
		if err != nil {
			return err
		}
		if st.LastBlockHeight <= h && bs.Height() <= h {
			break
		}
		if _, _, err := sm.Rollback(bs, ss, true); err != nil {
			return fmt.Errorf("roll CometBFT back from height %d: %w", st.LastBlockHeight, err)
		}
	}
	if cfg.TxIndex.Indexer != "kv" {
		return nil
	}
	idb, err := open(&cmtcfg.DBContext{ID: "tx_index", Config: cfg})
	if err != nil {
		return err
	}
	defer idb.Close()
	return rewindIndex(idb, h)
}

// blockEventsPrefix is where CometBFT's kv block indexer keeps its keys
// inside the tx index database (node/setup.go).
var blockEventsPrefix = []byte("block_events")

// rewindIndex deletes the kv tx and block indexes' entries of heights above
// h (CometBFT has no API for it): one pass over the database, each key's
// height read as the indexer wrote it.
func rewindIndex(db dbm.DB, h int64) error {
	it, err := db.Iterator(nil, nil)
	if err != nil {
		return err
	}
	var doomed [][]byte
	for ; it.Valid(); it.Next() {
		if height, ok := indexKeyHeight(it.Key(), it.Value()); ok && height > h {
			doomed = append(doomed, bytes.Clone(it.Key()))
		}
	}
	err = errors.Join(it.Error(), it.Close())
	if err != nil || len(doomed) == 0 {
		return err
	}
	batch := db.NewBatch()
	defer batch.Close()
	for _, k := range doomed {
		if err := batch.Delete(k); err != nil {
			return err
		}
	}
	return batch.WriteSync()
}

// indexKeyHeight is the height an index entry belongs to: a tx's primary
// entry (its 32-byte hash → TxResult), a tx event entry
// ("key/value/height/index$es$seq"), or a block indexer entry
// (orderedcode (key, height) or (key, value, height, seq)).
func indexKeyHeight(key, value []byte) (int64, bool) {
	if rest, ok := bytes.CutPrefix(key, blockEventsPrefix); ok {
		var name, val string
		var height int64
		if r, err := orderedcode.Parse(string(rest), &name, &height); err == nil && r == "" {
			return height, true
		}
		if _, err := orderedcode.Parse(string(rest), &name, &val, &height); err == nil {
			return height, true
		}
		return 0, false
	}
	// A primary entry is keyed by its tx's hash (an event key can be 32
	// bytes long too).
	if len(key) == 32 {
		var res abci.TxResult
		if proto.Unmarshal(value, &res) == nil && bytes.Equal(cmttypes.Tx(res.Tx).Hash(), key) {
			return res.Height, true
		}
	}
	parts := bytes.Split(key, []byte("/"))
	if len(parts) < 4 {
		return 0, false
	}
	height, err := strconv.ParseInt(string(parts[len(parts)-2]), 10, 64)
	return height, err == nil
}

// resetWAL replaces the consensus WAL with one that begins after height h:
// the old one holds the messages of heights that are gone.
func resetWAL(walFile string, h int64) error {
	dir := filepath.Dir(walFile)
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && e.Name() != "home" {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return seedWAL(walFile, h)
}

// resetSignState forgets what the validator signed: it signs the heights
// above the rewound head again (only a dev chain, alone on its machine,
// ever does this).
func resetSignState(pv cmttypes.PrivValidator) error {
	switch v := pv.(type) {
	case *unsyncedPV:
		v.FilePV.Reset()
		return v.writeState()
	case *privval.FilePV:
		v.Reset()
		return nil
	}
	return fmt.Errorf("cannot reset the sign state of a %T", pv)
}
