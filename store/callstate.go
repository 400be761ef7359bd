package store

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// Runs that commit nothing (eth_call) borrow their StateDB: given back, it
// is reverted to the state it was lent in and lent again to the next run on
// the same root, with the accounts, code and storage it has read still
// loaded.
//
// Why: a fresh StateDB per eth_call (a dozen maps), plus the state objects
// and journal it grows, were a fifth of a light call's allocations; a call
// on a contract also read its account, code and slots again every time.
//
// A reverted StateDB is the one it was lent as: every change a message can
// make to a StateDB goes through its journal (balance, nonce, code,
// storage, transient storage, refund, logs, created and self-destructed
// accounts, access list), and Prepare, which every message runs first,
// starts a new access list and transient storage. What it keeps besides
// are read caches of an immutable root. Changes outside the journal
// (StateDB.SetStorage, which state overrides use; Finalise; Commit) must
// never be made to a borrowed StateDB.

const (
	// idleCallStates is how many StateDBs of the latest borrowed root wait
	// to be lent again.
	idleCallStates = 8
	// callStateRuns is how many runs a StateDB serves before it is let go,
	// so that what it caches stays bounded.
	callStateRuns = 1000
)

// callStates holds the idle StateDBs of the root borrowed last.
type callStates struct {
	mu   sync.Mutex
	root common.Hash
	idle []*lentState
}

type lentState struct {
	db   *state.StateDB
	rev  int // its journal revision when lent
	runs int
}

// BorrowStateOf lends a StateDB of the state after block h for one run that
// commits nothing, and the func that gives it back once the run no longer
// uses it (see callStates). Errors are CachedStateOf's.
func (s *Store) BorrowStateOf(h *types.Header) (*state.StateDB, func(), error) {
	// Checked also for a StateDB lent before: a sweep may have moved the
	// oldest state held past h since.
	if err := s.CheckState(h.Number.Uint64()); err != nil {
		return nil, nil, err
	}
	l := s.calls.take(h.Root)
	if l == nil {
		st, err := s.CachedStateOf(h)
		if err != nil {
			return nil, nil, err
		}
		l = &lentState{db: st}
	}
	l.rev = l.db.Snapshot()
	return l.db, func() { s.calls.give(h.Root, l) }, nil
}

// take is an idle StateDB of root, or nil. Borrowing another root makes it
// the one kept: the chain has moved on, or a caller reads an older block.
func (c *callStates) take(root common.Hash) *lentState {
	c.mu.Lock()
	defer c.mu.Unlock()
	if root != c.root {
		c.root = root
		clear(c.idle)
		c.idle = c.idle[:0]
		return nil
	}
	n := len(c.idle)
	if n == 0 {
		return nil
	}
	l := c.idle[n-1]
	c.idle[n-1] = nil
	c.idle = c.idle[:n-1]
	return l
}

// give reverts l and keeps it for the next run on root, unless root is no
// longer the one kept, l failed a read (its error would stick) or has served
// its runs.
func (c *callStates) give(root common.Hash, l *lentState) {
	l.db.RevertToSnapshot(l.rev)
	l.runs++
	if l.db.Error() != nil || l.runs >= callStateRuns {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if root == c.root && len(c.idle) < idleCallStates {
		c.idle = append(c.idle, l)
	}
}
