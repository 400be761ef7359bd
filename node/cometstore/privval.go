package cometstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	cmtcfg "github.com/cometbft/cometbft/config"
	cmtjson "github.com/cometbft/cometbft/libs/json"
	"github.com/cometbft/cometbft/privval"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	cmttypes "github.com/cometbft/cometbft/types"
)

// LoadValidator loads the node's validator key and sign state: CometBFT's
// FilePV when syncState (app.toml's [validator] sync-state), else one whose
// sign state lives on tmpfs (unsyncedPV). The function returned frees what
// it holds, once CometBFT has stopped.
func LoadValidator(cc *cmtcfg.Config, syncState bool) (cmttypes.PrivValidator, func(), error) {
	keyFile, stateFile := cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile()
	if syncState {
		return privval.LoadFilePV(keyFile, stateFile), func() {}, nil
	}
	return newUnsyncedPV(keyFile, stateFile)
}

// unsyncedPV is CometBFT's FilePV with its sign state in a tmpfs copy
// (whose O_SYNC writes cost nothing), written through to the home's state
// file, without a sync, after each signature.
type unsyncedPV struct {
	*privval.FilePV
	state *os.File // the home's copy, open for the node's lifetime
	size  int64    // its size: every write covers it whole
}

func newUnsyncedPV(keyFile, stateFile string) (cmttypes.PrivValidator, func(), error) {
	state, err := os.ReadFile(stateFile)
	if err != nil {
		return nil, nil, err
	}
	dir, ok, err := tmpfsDir(signerDirPrefix, stateFile)
	if err != nil {
		return nil, nil, err
	}
	if !ok { // no tmpfs: the synced FilePV
		return privval.LoadFilePV(keyFile, stateFile), func() {}, nil
	}
	shmState := filepath.Join(dir, "priv_validator_state.json")
	if err := os.WriteFile(shmState, state, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	f, err := os.OpenFile(stateFile, os.O_RDWR, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	pv := &unsyncedPV{FilePV: privval.LoadFilePV(keyFile, shmState), state: f, size: int64(len(state))}
	return pv, func() { f.Close(); os.RemoveAll(dir) }, nil
}

// Where the tmpfs copies of sign states and consensus WALs live.
const (
	tmpfsRoot       = "/dev/shm"
	signerDirPrefix = "emberd-signer-"
	walDirPrefix    = "emberd-wal-"
)

// tmpfsDir is the tmpfs directory of owner (a file or directory of a
// home) for one use (prefix): one per owner, so a killed node's is found
// again by its next start. ok is false where there is no tmpfs.
func tmpfsDir(prefix, owner string) (dir string, ok bool, err error) {
	sweepTmpfsDirs(prefix)
	sum := sha256.Sum256([]byte(owner))
	dir = filepath.Join(tmpfsRoot, prefix+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, nil
	}
	if err := os.WriteFile(filepath.Join(dir, "home"), []byte(owner), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", false, err
	}
	return dir, true, nil
}

// sweepTmpfsDirs removes the tmpfs directories of prefix whose owner is
// gone (killed temporary dev homes).
func sweepTmpfsDirs(prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(tmpfsRoot, prefix+"*"))
	for _, dir := range dirs {
		owner, err := os.ReadFile(filepath.Join(dir, "home"))
		if err != nil {
			continue // being created, or not ours
		}
		if _, err := os.Stat(string(owner)); errors.Is(err, fs.ErrNotExist) {
			os.RemoveAll(dir)
		}
	}
}

// SignVote implements types.PrivValidator.
func (pv *unsyncedPV) SignVote(chainID string, vote *cmtproto.Vote) error {
	if err := pv.FilePV.SignVote(chainID, vote); err != nil {
		return err
	}
	return pv.writeState()
}

// SignProposal implements types.PrivValidator.
func (pv *unsyncedPV) SignProposal(chainID string, proposal *cmtproto.Proposal) error {
	if err := pv.FilePV.SignProposal(chainID, proposal); err != nil {
		return err
	}
	return pv.writeState()
}

// writeState overwrites the home's state file in one write at offset 0:
// the JSON padded with spaces (which JSON allows after a value) to a whole
// number of 4 KiB pages and at least the file's size, so no stale bytes
// follow it and no truncation is needed. A killed process cannot stop a
// write half-way, so the file always holds one whole state. (Writing a
// temporary file and renaming it over the old one cost more: ext4 flushes a
// file renamed over another.)
func (pv *unsyncedPV) writeState() error {
	raw, err := cmtjson.MarshalIndent(&pv.LastSignState, "", "  ")
	if err != nil {
		return err
	}
	size := max((int64(len(raw))+4095)/4096*4096, pv.size)
	buf := make([]byte, size)
	copy(buf, raw)
	for i := len(raw); i < len(buf); i++ {
		buf[i] = ' '
	}
	if _, err := pv.state.WriteAt(buf, 0); err != nil {
		return fmt.Errorf("write validator sign state: %w", err)
	}
	pv.size = size
	return nil
}
