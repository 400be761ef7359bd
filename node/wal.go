package node

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cometbft/cometbft/consensus"
)

// unsyncedWAL moves CometBFT's consensus write-ahead log to tmpfs when the
// store is not synced (StoreConfig.Sync): the WAL syncs every message the
// validator signs itself, eight disk syncs a block, which no setting turns
// off. On tmpfs they cost nothing and the log survives a killed process,
// so a restart replays the height in progress as before. A clean stop
// drops it: the next start seeds a new one that begins after the last
// committed height, which is all a WAL holds between heights. (After a
// reboot a killed node's log is gone too; CometBFT then logs that it found
// nothing to replay and goes on.) It returns what frees the directory.
func (n *Node) unsyncedWAL() (func(), error) {
	if n.cfg.Store.Sync {
		return func() {}, nil
	}
	// Owned by the home's data directory: the WAL's own path there does
	// not exist while it lives in tmpfs.
	dir, ok, err := tmpfsDir(walDirPrefix, n.cmtCfg.DBDir())
	if err != nil || !ok {
		return func() {}, err // no tmpfs: the synced WAL in the home
	}
	wal := filepath.Join(dir, "cs.wal", "wal")
	if _, err := os.Stat(wal); errors.Is(err, fs.ErrNotExist) {
		height := int64(0)
		if h := n.store.Head(); h != nil {
			height = h.Number.Int64()
		}
		if err := seedWAL(wal, height); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("consensus WAL in %s: %w", dir, err)
		}
	}
	n.cmtCfg.Consensus.SetWalFile(wal)
	return func() { os.RemoveAll(dir) }, nil
}

// seedWAL writes a WAL whose last message marks height as ended, as a WAL
// reads after that height was committed.
func seedWAL(path string, height int64) error {
	w, err := consensus.NewWAL(path)
	if err != nil {
		return err
	}
	if err := w.Start(); err != nil { // a new WAL starts with #ENDHEIGHT 0
		return err
	}
	werr := error(nil)
	if height > 0 {
		werr = w.WriteSync(consensus.EndHeightMessage{Height: height})
	}
	serr := w.Stop()
	w.Wait()
	return errors.Join(werr, serr)
}
