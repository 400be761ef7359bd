package cometstore

import (
	"fmt"

	cmtcfg "github.com/cometbft/cometbft/config"
	cmtversion "github.com/cometbft/cometbft/proto/tendermint/version"
	sm "github.com/cometbft/cometbft/state"
	cmtstore "github.com/cometbft/cometbft/store"
)

// Rollback moves CometBFT's stores, stopped, back one height for
// `emberd rollback` (a node whose app state disagrees with the network's
// AppHash): CometBFT's own rollback makes the state the one after the
// previous height, keeping the last block in the block store (CometBFT
// replays it into the app at the next start) unless hard, which deletes
// it and its index entries (the node then fetches it from peers). Before
// CometBFT's stores change, app(h) brings the app back to h, the height
// CometBFT's state ends at; so a rollback interrupted between the two
// leaves the app behind CometBFT, which the next start's handshake
// replays, and running it again rolls CometBFT back to h. The consensus
// WAL and the validator's sign state are kept: the validator must not sign
// a height again differently. It returns h.
func Rollback(cfg *cmtcfg.Config, open cmtcfg.DBProvider, hard bool, app func(h int64) error) (int64, error) {
	bs, ss, closeAll, err := openStores(cfg, open)
	if err != nil {
		return 0, err
	}
	defer closeAll()
	st, err := ss.Load()
	if err != nil {
		return 0, err
	}
	if st.IsEmpty() || st.LastBlockHeight == 0 {
		return 0, fmt.Errorf("CometBFT has no block to roll back")
	}
	// sm.Rollback's own rule: a block store one height ahead of the state
	// store (a stop between saving the block and the state) loses only
	// that block; else the state goes back one height.
	target := st.LastBlockHeight - 1
	switch {
	case bs.Height() == st.LastBlockHeight+1:
		target = st.LastBlockHeight
	case bs.Height() != st.LastBlockHeight:
		return 0, fmt.Errorf("CometBFT's state is at height %d, its block store at %d", st.LastBlockHeight, bs.Height())
	case target < st.InitialHeight:
		return 0, fmt.Errorf("height %d is the chain's first block: there is nothing before it to roll back to", st.LastBlockHeight)
	case bs.LoadBlockMeta(target) == nil:
		return 0, fmt.Errorf("block %d, to roll back to, is not in CometBFT's block store", target)
	}
	if err := app(target); err != nil {
		return 0, fmt.Errorf("roll the app back to height %d: %w", target, err)
	}
	// CometBFT's rollback takes the state's app version from the consensus
	// params (0 unless set there), not from the app (Info's version, which
	// the blocks' headers carry): the replayed block would then be refused
	// for its header version. The version the block after target was made
	// with is the one the rolled-back state must have.
	version := st.Version.Consensus
	if meta := bs.LoadBlockMeta(target + 1); meta != nil {
		version = meta.Header.Version
	}
	h, _, err := sm.Rollback(bs, ss, hard)
	if err != nil {
		return 0, fmt.Errorf("roll CometBFT back from height %d: %w", st.LastBlockHeight, err)
	}
	if h != target {
		return 0, fmt.Errorf("CometBFT rolled back to height %d, the app to %d", h, target)
	}
	if err := restoreVersion(ss, version); err != nil {
		return 0, err
	}
	if !hard || cfg.TxIndex.Indexer != "kv" {
		return h, nil
	}
	idb, err := open(&cmtcfg.DBContext{ID: "tx_index", Config: cfg})
	if err != nil {
		return 0, err
	}
	defer idb.Close()
	return h, rewindIndex(idb, h)
}

// openStores opens CometBFT's block and state stores; closeAll closes
// their databases.
func openStores(cfg *cmtcfg.Config, open cmtcfg.DBProvider) (*cmtstore.BlockStore, sm.Store, func(), error) {
	bdb, err := open(&cmtcfg.DBContext{ID: "blockstore", Config: cfg})
	if err != nil {
		return nil, nil, nil, err
	}
	sdb, err := open(&cmtcfg.DBContext{ID: "state", Config: cfg})
	if err != nil {
		bdb.Close()
		return nil, nil, nil, err
	}
	bs := cmtstore.NewBlockStore(bdb)
	ss := sm.NewStore(sdb, sm.StoreOptions{DiscardABCIResponses: cfg.Storage.DiscardABCIResponses})
	return bs, ss, func() { bdb.Close(); sdb.Close() }, nil
}

// restoreVersion sets the consensus version of CometBFT's saved state.
func restoreVersion(ss sm.Store, v cmtversion.Consensus) error {
	st, err := ss.Load()
	if err != nil {
		return err
	}
	if st.Version.Consensus == v {
		return nil
	}
	st.Version.Consensus = v
	return ss.Save(st)
}
