package store

// State pruning ("full" mode): a mark-and-sweep over the hash-scheme trie
// nodes, run by a background goroutine while blocks keep being made.
//
// The trie database is content-addressed: a node is stored under its hash,
// shared by every root whose trie reaches it, and nothing says which roots
// still do. go-ethereum's answers are an in-memory reference count for the
// nodes not yet flushed (hashdb, gcmode=full: what reaches the disk is never
// deleted, so the disk still grows) and an offline sweep of everything the
// kept root cannot reach (`geth snapshot prune-state`, node stopped). Ember
// runs that sweep online, every prune-interval blocks:
//
//  1. Record: from now on every trie node a block commit writes is added
//     to the keep set (the write and the record happen under pruneMu). The
//     root written last is marked too: its block may not be the head yet
//     (CommitBlock writes the trie, then the block).
//  2. Persist the new oldest height (synced) before anything is deleted, so
//     a crash mid-sweep never leaves a height claimed that lost nodes.
//  3. Mark: walk the account and storage tries of every kept root (the last
//     keep-recent blocks, up to the head read after step 1) into the keep
//     set; a subtree whose root node is already in it is skipped.
//  4. Sweep: iterate the database; a 32-byte key that is a trie node
//     (keccak256(value) == key) and not in the keep set is deleted. Each
//     chunk checks and deletes under pruneMu.
//
// Why a node a block needs is never deleted: a block made after step 1
// executes on its parent's trie, which is a kept root or a later block's;
// by induction every node reachable from a block made after step 1 is
// either reachable from the head of step 3 (marked) or written by a later
// commit (recorded). A commit that re-creates a node the sweep had judged
// garbage either writes after the chunk deleted it (the node is back) or
// records it before the chunk looks (it is kept): pruneMu orders the two.
// A kill -9 at any point leaves only unreachable garbage, which the next
// sweep removes; blocks whose writes were lost are replayed by CometBFT on
// a head state the sweep kept.

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// Pruning is what the store keeps of past states.
type Pruning string

const (
	// PruneArchive keeps the state of every block.
	PruneArchive Pruning = "archive"
	// PruneFull keeps the state of the last KeepRecent blocks.
	PruneFull Pruning = "full"
)

// PruneOptions configure pruning.
type PruneOptions struct {
	Mode       Pruning
	KeepRecent uint64 // full: states of the last KeepRecent blocks are kept
	Interval   uint64 // full: blocks made between two sweeps
}

// DefaultPruneOptions: archive; when switched to full, the last 10,000
// states (a day at about 9 s per block) are kept and a sweep runs every
// 1,000 blocks.
var DefaultPruneOptions = PruneOptions{Mode: PruneArchive, KeepRecent: 10000, Interval: 1000}

// Validate reports a clear error for an unusable setting.
func (o PruneOptions) Validate() error {
	switch o.Mode {
	case PruneArchive:
		return nil
	case PruneFull:
	default:
		return fmt.Errorf("pruning %q: want %q or %q", o.Mode, PruneArchive, PruneFull)
	}
	if o.KeepRecent < 2 {
		return fmt.Errorf("keep-recent %d: full pruning keeps at least 2 states (the head and its parent, which tracing the head block needs)", o.KeepRecent)
	}
	if o.Interval < 1 {
		return fmt.Errorf("prune-interval %d: must be at least 1 block", o.Interval)
	}
	return nil
}

// Keys of the pruner's progress, both uint64 big-endian heights.
var (
	// pruneOldestKey: the first height whose state is kept. Written, and
	// synced, before a sweep deletes anything.
	pruneOldestKey = []byte("ember-prune-oldest")
	// pruneDoneKey: the oldest height of the last sweep that completed.
	// Below pruneOldestKey after a sweep was interrupted.
	pruneDoneKey = []byte("ember-prune-done")
)

// sweepChunk is how many keys one locked step of the sweep looks at: a
// block commit waits at most for one chunk.
const sweepChunk = 4096

// compactThreshold is the number of deleted nodes past which a sweep asks
// the database to compact, so their space is given back now rather than
// whenever Pebble next rewrites those files (as geth's pruner does). It
// counts the nodes deleted since the last compaction, over sweeps: a chain
// whose sweeps each delete fewer (a short prune-interval, quiet blocks)
// would otherwise never compact (bench/disk's 128-block sweeps delete
// about 70,000 nodes each).
const compactThreshold = 100_000

// OldestState is the first height whose state this store holds: the
// oldest a sweep kept (full mode) or the snapshot height a state-synced
// store was restored at, whichever is later.
func (s *Store) OldestState() uint64 { return max(s.oldest.Load(), s.FirstState()) }

// CheckState answers a *StateUnavailableError for a height below the
// oldest state the store holds (pruned, or before a restored snapshot), nil
// otherwise: the one rule for every state read by height.
func (s *Store) CheckState(number uint64) error {
	if oldest := s.OldestState(); number < oldest {
		return &StateUnavailableError{Height: number, Oldest: oldest}
	}
	return nil
}

// Pruning reports the configured pruning.
func (s *Store) Pruning() PruneOptions { return s.prune }

// SetPruneHold sets hold, the lowest height whose state a reader of this
// store still needs (the in-process explorer's next block to index); a
// sweep keeps it and what follows. hold answers false when it needs none.
func (s *Store) SetPruneHold(hold func() (uint64, bool)) { s.hold.Store(&hold) }

func readHeight(s *Store, key []byte) uint64 {
	v, err := s.kv.Get(key)
	if err != nil || len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func (s *Store) writeHeight(key []byte, n uint64) error {
	return s.kv.Put(key, binary.BigEndian.AppendUint64(nil, n))
}

// loadPruning loads the pruning progress (at Open).
func (s *Store) loadPruning() {
	s.oldest.Store(readHeight(s, pruneOldestKey))
	s.pruned.Store(readHeight(s, pruneDoneKey))
	s.resume.Store(s.oldest.Load() > s.pruned.Load())
}

// StartPruning starts, in full mode, the goroutine that sweeps when
// CommitBlock signals a new head, and a sweep at once when the last one
// was interrupted or is due. Call it once, after SetPruneHold: a sweep
// started before would not know what a reader still needs.
func (s *Store) StartPruning() {
	if s.prune.Mode != PruneFull || s.pruneStop != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.pruneWake = make(chan struct{}, 1)
	s.pruneStop = cancel
	s.pruneDone = make(chan struct{})
	go s.pruneLoop(ctx)
	s.wakePruner() // an interrupted sweep resumes at once
}

// stopPruner ends a sweep in progress and waits for the goroutine.
func (s *Store) stopPruner() {
	if s.pruneStop == nil {
		return
	}
	s.pruneStop()
	<-s.pruneDone
}

// wakePruner tells the pruner a block was committed, never blocking.
func (s *Store) wakePruner() {
	if s.pruneWake == nil {
		return
	}
	select {
	case s.pruneWake <- struct{}{}:
	default:
	}
}

func (s *Store) pruneLoop(ctx context.Context) {
	defer close(s.pruneDone)
	var retry <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.pruneWake:
		case <-retry:
		}
		target, ok, held := s.pruneTarget()
		retry = nil
		if held {
			// A reader holds the window back (the explorer still indexing
			// at start): look again when it may have moved, even if no
			// block comes to wake the pruner (an idle dev chain).
			retry = time.After(pruneRetry)
		}
		if !ok {
			continue
		}
		if err := s.Prune(ctx, target); err != nil && ctx.Err() == nil {
			s.log.Error("state pruning failed; retrying at the next block", "target", target, "err", err)
		}
	}
}

// pruneRetry is how often a pruner held back by a reader looks again.
const pruneRetry = time.Second

// pruneTarget is the oldest height the next sweep would keep, whether a
// sweep is due (the window moved by an interval since the last completed
// sweep, or the last one before the store was opened was interrupted), and
// whether a reader's hold kept the target below the window.
func (s *Store) pruneTarget() (target uint64, due, held bool) {
	head := s.Head()
	if head == nil {
		return 0, false, false
	}
	number := head.Number.Uint64()
	if number+1 > s.prune.KeepRecent {
		target = number + 1 - s.prune.KeepRecent
	}
	if hold := s.hold.Load(); hold != nil {
		if h, ok := (*hold)(); ok && h < target {
			target, held = h, true
		}
	}
	if oldest := s.OldestState(); target < oldest {
		target = oldest // the window never moves back, nor below a snapshot restored
	}
	return target, s.resume.Load() || target >= s.pruned.Load()+s.prune.Interval, held
}

// PruneStats describe one sweep.
type PruneStats struct {
	Oldest        uint64 // first height whose state is kept
	Roots         int    // distinct state roots marked
	Kept, Deleted int    // trie nodes marked and deleted
	Mark, Sweep   time.Duration
	Compact       time.Duration // the compaction's time, when Compacted
	Compacted     bool          // the database was compacted after the sweep
}

// Prune deletes the trie nodes no state from height oldest to the head
// reaches (see the top of this file). It runs beside block commits; one
// Prune at a time.
func (s *Store) Prune(ctx context.Context, oldest uint64) error {
	s.pruneRun.Lock()
	defer s.pruneRun.Unlock()
	st, err := s.prune1(ctx, oldest)
	if err != nil {
		return err
	}
	s.log.Info("pruned state", "oldest", st.Oldest, "roots", st.Roots, "kept", st.Kept, "deleted", st.Deleted,
		"mark", st.Mark.Round(time.Millisecond), "sweep", st.Sweep.Round(time.Millisecond), "compact", st.Compact.Round(time.Millisecond))
	s.lastPrune.Store(&st)
	return nil
}

// LastPrune is the last completed sweep's statistics, nil before one.
func (s *Store) LastPrune() *PruneStats { return s.lastPrune.Load() }

func (s *Store) prune1(ctx context.Context, oldest uint64) (PruneStats, error) {
	keep := newNodeSet()
	s.pruneMu.Lock()
	s.recording.Store(keep) // step 1
	flushed := s.flushed
	s.pruneMu.Unlock()
	defer s.recording.Store(nil)
	head := s.Head()
	if head == nil || oldest > head.Number.Uint64() {
		return PruneStats{}, fmt.Errorf("prune to %d: beyond the head", oldest)
	}
	if oldest > s.oldest.Load() { // step 2
		if err := s.writeHeight(pruneOldestKey, oldest); err != nil {
			return PruneStats{}, err
		}
		if err := s.kv.SyncKeyValue(); err != nil {
			return PruneStats{}, err
		}
		s.oldest.Store(oldest)
	}
	st := PruneStats{Oldest: s.oldest.Load()}
	s.log.Info("pruning state", "oldest", st.Oldest, "head", head.Number)
	start := time.Now()
	roots, err := s.markRange(ctx, st.Oldest, head.Number.Uint64(), keep) // step 3
	if err != nil {
		return st, err
	}
	if flushed != (common.Hash{}) && !keep.has(flushed) {
		if err := s.markTrie(ctx, trie.StateTrieID(flushed), keep, true); err != nil {
			return st, fmt.Errorf("mark state %x: %w", flushed, err)
		}
		roots++
	}
	st.Roots, st.Kept, st.Mark = roots, keep.len(), time.Since(start)
	start = time.Now()
	if st.Deleted, err = s.sweep(ctx, keep); err != nil { // step 4
		return st, err
	}
	st.Sweep = time.Since(start)
	if s.uncompacted += st.Deleted; s.uncompacted >= s.compactAfter {
		start = time.Now()
		if err := s.kv.Compact(nil, nil); err != nil {
			return st, fmt.Errorf("compact: %w", err)
		}
		st.Compact, st.Compacted = time.Since(start), true
		s.uncompacted = 0
	}
	if err := s.writeHeight(pruneDoneKey, st.Oldest); err != nil {
		return st, err
	}
	s.pruned.Store(st.Oldest)
	s.resume.Store(false)
	return st, nil
}

// markRange marks the states of heights from to to (inclusive), returning
// how many distinct roots it walked.
func (s *Store) markRange(ctx context.Context, from, to uint64, keep *nodeSet) (int, error) {
	roots := 0
	for n := from; n <= to; n++ {
		h := s.HeaderByNumber(n)
		if h == nil {
			return roots, fmt.Errorf("header %d missing", n)
		}
		if keep.has(h.Root) {
			continue // an empty block's root: its parent's
		}
		if err := s.markTrie(ctx, trie.StateTrieID(h.Root), keep, true); err != nil {
			return roots, fmt.Errorf("mark state %x of block %d: %w", h.Root, n, err)
		}
		roots++
	}
	return roots, nil
}

// markTrie adds the nodes of one trie to keep, skipping subtrees already
// there; for the account trie, the storage tries of its accounts too.
func (s *Store) markTrie(ctx context.Context, id *trie.ID, keep *nodeSet, accounts bool) error {
	it, err := s.nodeIterator(id)
	if err != nil {
		return err
	}
	for descend, n := true, 0; it.Next(descend); n++ {
		descend = true
		if n%10000 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if h := it.Hash(); h != (common.Hash{}) && !keep.add(h) {
			descend = false // its whole subtree is marked
			continue
		}
		if !accounts || !it.Leaf() {
			continue
		}
		var acct types.StateAccount
		if err := rlp.DecodeBytes(it.LeafBlob(), &acct); err != nil {
			return fmt.Errorf("account %x: %w", it.LeafKey(), err)
		}
		if acct.Root != types.EmptyRootHash && !keep.has(acct.Root) {
			id := trie.StorageTrieID(id.StateRoot, common.BytesToHash(it.LeafKey()), acct.Root)
			if err := s.markTrie(ctx, id, keep, false); err != nil {
				return err
			}
		}
	}
	return it.Error()
}

// nodeIterator walks the nodes of the trie id names.
func (s *Store) nodeIterator(id *trie.ID) (trie.NodeIterator, error) {
	t, err := trie.New(id, s.trie)
	if err != nil {
		return nil, err
	}
	return t.NodeIterator(nil)
}

// sweep deletes the trie nodes outside keep, in chunks checked and
// deleted under pruneMu.
func (s *Store) sweep(ctx context.Context, keep *nodeSet) (int, error) {
	it := s.kv.NewIterator(nil, nil)
	defer it.Release()
	batch := s.kv.NewBatch()
	deleted := 0
	for more := true; more; {
		if err := ctx.Err(); err != nil {
			return deleted, err
		}
		s.pruneMu.Lock()
		for n := 0; n < sweepChunk; n++ {
			if more = it.Next(); !more {
				break
			}
			key := it.Key()
			if len(key) != common.HashLength || keep.has(common.BytesToHash(key)) {
				continue
			}
			if crypto.Keccak256Hash(it.Value()) != common.BytesToHash(key) {
				continue // not a trie node
			}
			if err := batch.Delete(key); err != nil {
				s.pruneMu.Unlock()
				return deleted, err
			}
			deleted++
		}
		err := batch.Write()
		s.pruneMu.Unlock()
		if err != nil {
			return deleted, err
		}
		batch.Reset()
	}
	return deleted, it.Error()
}

// nodeSet is the exact set of trie node hashes a sweep keeps (a Bloom
// filter would let a false positive skip a subtree the mark never saw).
type nodeSet struct {
	mu    sync.Mutex
	nodes map[common.Hash]struct{}
}

func newNodeSet() *nodeSet { return &nodeSet{nodes: make(map[common.Hash]struct{}, 1<<16)} }

// add reports whether h was new.
func (k *nodeSet) add(h common.Hash) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.nodes[h]; ok {
		return false
	}
	k.nodes[h] = struct{}{}
	return true
}

func (k *nodeSet) has(h common.Hash) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.nodes[h]
	return ok
}

func (k *nodeSet) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.nodes)
}
