package store

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// Reads of the state after a block, by its header: a height below the
// oldest state held answers *StateUnavailableError, never a "missing trie
// node" from whatever of it a sweep has left; any other failure says which
// block's state could not be read.

// StateOf opens the state after block h for reading or executing on top
// of it (a tracer's replay).
func (s *Store) StateOf(h *types.Header) (*state.StateDB, error) {
	if err := s.CheckState(h.Number.Uint64()); err != nil {
		return nil, err
	}
	st, err := s.StateAt(h.Root)
	return st, s.explainMissing(h, err)
}

// CachedStateOf is CachedStateAt after block h.
func (s *Store) CachedStateOf(h *types.Header) (*state.StateDB, error) {
	if err := s.CheckState(h.Number.Uint64()); err != nil {
		return nil, err
	}
	st, err := s.CachedStateAt(h.Root)
	return st, s.explainMissing(h, err)
}

// AccountOf is AccountAt after block h.
func (s *Store) AccountOf(h *types.Header, addr common.Address) (*types.StateAccount, error) {
	if err := s.CheckState(h.Number.Uint64()); err != nil {
		return nil, err
	}
	acct, err := s.AccountAt(h.Root, addr)
	return acct, s.explainMissing(h, err)
}

// explainMissing names the block whose state could not be read, or answers
// *StateUnavailableError when a sweep that began after the check has since
// moved the oldest height past it.
func (s *Store) explainMissing(h *types.Header, err error) error {
	if err == nil {
		return nil
	}
	if unavailable := s.CheckState(h.Number.Uint64()); unavailable != nil {
		return unavailable
	}
	return fmt.Errorf("state of block %d is not available: %w", h.Number, err)
}

// StateSize counts the state trie nodes on disk (the hash-scheme nodes:
// 32-byte keys holding the node whose keccak256 they are) and their bytes,
// keys and values: the part of the database pruning bounds. It reads the
// whole database.
func (s *Store) StateSize() (nodes int, bytes int64, err error) {
	it := s.kv.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
		key := it.Key()
		if len(key) == common.HashLength && crypto.Keccak256Hash(it.Value()) == common.BytesToHash(key) {
			nodes++
			bytes += int64(len(key) + len(it.Value()))
		}
	}
	return nodes, bytes, it.Error()
}
