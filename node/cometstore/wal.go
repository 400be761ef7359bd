package cometstore

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/consensus"
)

// TmpfsWAL moves CometBFT's consensus write-ahead log of cc to tmpfs, for
// a home whose store is not synced (app.toml's [store] sync): the WAL syncs every message the
// validator signs itself, eight disk syncs a block, which no setting turns
// off. On tmpfs they cost nothing and the log survives a killed process,
// so a restart replays the height in progress as before. A clean stop
// copies it back into the home (data/cs.wal), where the next start takes
// it from: the validator may have signed votes of a height it had not
// committed, and without them a lone validator cannot sign that height
// again (CometBFT's sign state refuses to step back), so the chain would
// stall. A home with no WAL at all gets one that begins after the last
// committed height. (After a reboot a killed node's log is gone; it starts
// from the home's copy of its last clean stop.) head is the last height
// the store committed (0 for none), where a new WAL begins. It returns what
// copies the log back and frees the directory, for after CometBFT has
// stopped; a failure to copy is logged to log.
func TmpfsWAL(cc *cmtcfg.Config, head int64, log *slog.Logger) (func(), error) {
	// Owned by the home's data directory: the WAL's own path there does
	// not exist while it lives in tmpfs.
	dir, ok, err := tmpfsDir(walDirPrefix, cc.DBDir())
	if err != nil || !ok {
		return func() {}, err // no tmpfs: the synced WAL in the home
	}
	homeDir := filepath.Dir(cc.Consensus.WalFile())
	shmDir := filepath.Join(dir, "cs.wal")
	wal := filepath.Join(shmDir, "wal")
	if err := prepareWAL(homeDir, shmDir, wal, head); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("consensus WAL in %s: %w", dir, err)
	}
	cc.Consensus.SetWalFile(wal)
	return func() {
		if err := copyDir(shmDir, homeDir); err != nil {
			log.Error("copy the consensus WAL into the home", "err", err)
			return // keep the tmpfs copy: the next start finds it
		}
		os.RemoveAll(dir)
	}, nil
}

// prepareWAL leaves the WAL to use at wal: the tmpfs one a killed node
// left, else the home's copy, else a new one beginning after head.
func prepareWAL(homeDir, shmDir, wal string, head int64) error {
	if _, err := os.Stat(wal); err == nil {
		return nil
	}
	if _, err := os.Stat(filepath.Join(homeDir, "wal")); err == nil {
		return copyDir(homeDir, shmDir)
	}
	return seedWAL(wal, head)
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
