package node

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cometbft/cometbft/consensus"
)

// unsyncedWAL moves CometBFT's consensus write-ahead log to tmpfs when the
// store is not synced (config.Store.Sync): the WAL syncs every message the
// validator signs itself, eight disk syncs a block, which no setting turns
// off. On tmpfs they cost nothing and the log survives a killed process,
// so a restart replays the height in progress as before. A clean stop
// copies it back into the home (data/cs.wal), where the next start takes
// it from: the validator may have signed votes of a height it had not
// committed, and without them a lone validator cannot sign that height
// again (CometBFT's sign state refuses to step back), so the chain would
// stall. A home with no WAL at all gets one that begins after the last
// committed height. (After a reboot a killed node's log is gone; it starts
// from the home's copy of its last clean stop.) It returns what copies the
// log back and frees the directory, for after CometBFT has stopped.
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
	homeDir := filepath.Dir(n.cmtCfg.Consensus.WalFile())
	shmDir := filepath.Join(dir, "cs.wal")
	wal := filepath.Join(shmDir, "wal")
	if err := n.prepareWAL(homeDir, shmDir, wal); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("consensus WAL in %s: %w", dir, err)
	}
	n.cmtCfg.Consensus.SetWalFile(wal)
	return func() {
		if err := copyDir(shmDir, homeDir); err != nil {
			n.log.Error("copy the consensus WAL into the home", "err", err)
			return // keep the tmpfs copy: the next start finds it
		}
		os.RemoveAll(dir)
	}, nil
}

// prepareWAL leaves the WAL to use at wal: the tmpfs one a killed node
// left, else the home's copy, else a new one.
func (n *Node) prepareWAL(homeDir, shmDir, wal string) error {
	if _, err := os.Stat(wal); err == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(homeDir, "wal")); err == nil {
		return copyDir(homeDir, shmDir)
	}
	height := int64(0)
	if h := n.store.Head(); h != nil {
		height = h.Number.Int64()
	}
	return seedWAL(wal, height)
}

// copyDir replaces dst's files with src's (a WAL group: flat files).
func copyDir(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o600); err != nil {
			return err
		}
	}
	return nil
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
