package store

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"
)

func openPruneStore(t *testing.T, dir string, prune PruneOptions) *Store {
	t.Helper()
	s, err := Open(dir, params.AllDevChainProtocolChanges, Options{CacheMB: 8, TrieCacheMB: 8, Prune: prune,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.StartPruning()
	if s.Head() == nil {
		g := &core.Genesis{Config: s.Config(), GasLimit: 30_000_000, Difficulty: new(big.Int), BaseFee: big.NewInt(1), Alloc: types.GenesisAlloc{}}
		if _, err := s.InitGenesis(g); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// churn commits n blocks on top of the head. Block i sets the balance of
// 20 of 60 accounts and a storage slot of a contract to a value in 0..2,
// so later blocks keep re-creating trie nodes older, pruned states had
// (the nodes a sweep racing the commits must not lose), and a counter
// account's balance and slot to i, which makes garbage of old states.
func churn(t *testing.T, s *Store, n int) {
	t.Helper()
	for k := 0; k < n; k++ {
		parent := s.Head()
		num := parent.Number.Uint64() + 1
		st, err := s.StateAt(parent.Root)
		if err != nil {
			t.Fatal(err)
		}
		for a := 0; a < 20; a++ {
			addr := common.Address{byte((int(num)*7 + a) % 60), 1}
			st.SetBalance(addr, uint256.NewInt((num+uint64(a))%3), tracing.BalanceChangeUnspecified)
		}
		st.SetState(common.Address{0xcc}, common.Hash{byte(num % 5)}, common.Hash{byte(num % 3)})
		st.SetBalance(common.Address{0xdd}, uint256.NewInt(num), tracing.BalanceChangeUnspecified)
		st.SetState(common.Address{0xdd}, common.Hash{}, common.BigToHash(new(big.Int).SetUint64(num)))
		root, err := st.Commit(s.Config().Rules(new(big.Int).SetUint64(num), true, parent.Time+1), num)
		if err != nil {
			t.Fatal(err)
		}
		// In the app's order: the trie in FinalizeBlock, the block in Commit.
		if err := s.FlushState(root); err != nil {
			t.Fatal(err)
		}
		header := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).SetUint64(num), Root: root,
			Difficulty: new(big.Int), GasLimit: parent.GasLimit, Time: parent.Time + 1, BaseFee: big.NewInt(1)}
		if err := s.CommitBlock(types.NewBlock(header, &types.Body{}, nil, trie.NewStackTrie(nil)), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// walkState reads every node of the state at height n, the storage tries
// of the two contracts churn writes included.
func walkState(s *Store, n uint64) error {
	h := s.HeaderByNumber(n)
	if err := walkTrie(s, trie.StateTrieID(h.Root)); err != nil {
		return err
	}
	st, err := s.StateAt(h.Root)
	if err != nil {
		return err
	}
	for _, a := range []common.Address{{0xcc}, {0xdd}} {
		if err := walkTrie(s, trie.StorageTrieID(h.Root, crypto.Keccak256Hash(a[:]), st.GetStorageRoot(a))); err != nil {
			return err
		}
	}
	return st.Error()
}

// walkTrie reads every node of one trie.
func walkTrie(s *Store, id *trie.ID) error {
	it, err := s.nodeIterator(id)
	if err != nil {
		return err
	}
	for it.Next(true) {
	}
	return it.Error()
}

func trieNodes(s *Store) int {
	it := s.kv.NewIterator(nil, nil)
	defer it.Release()
	n := 0
	for it.Next() {
		if len(it.Key()) == common.HashLength {
			n++
		}
	}
	return n
}

// A sweep racing block commits keeps every state from the oldest kept
// height to the head, read after a restart from disk alone, deletes the
// rest, and the pruned heights answer StateUnavailableError.
func TestPruneRacingCommits(t *testing.T) {
	dir := t.TempDir()
	opts := PruneOptions{Mode: PruneFull, KeepRecent: 8, Interval: 1 << 30} // sweeps only when called
	s := openPruneStore(t, dir, opts)
	churn(t, s, 200)
	before := trieNodes(s)
	done := make(chan error, 1)
	target := s.Head().Number.Uint64() + 1 - opts.KeepRecent
	go func() { done <- s.Prune(context.Background(), target) }()
	churn(t, s, 100) // while the sweep runs
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	oldest, head := s.OldestState(), s.Head().Number.Uint64()
	if oldest != 200+1-opts.KeepRecent {
		t.Fatalf("oldest %d, want %d", oldest, 200+1-opts.KeepRecent)
	}
	// Another sweep with no commit beside it, to the final window.
	if err := s.Prune(context.Background(), head+1-opts.KeepRecent); err != nil {
		t.Fatal(err)
	}
	after := trieNodes(s)
	if st := s.LastPrune(); st == nil || st.Deleted == 0 || after >= before {
		t.Fatalf("nothing reclaimed: %d trie nodes before, %d after, last sweep %+v", before, after, st)
	}
	s.Close()

	s = openPruneStore(t, dir, opts) // empty caches: every read goes to disk
	defer s.Close()
	if got := s.OldestState(); got != head+1-opts.KeepRecent {
		t.Fatalf("oldest after restart %d, want %d", got, head+1-opts.KeepRecent)
	}
	for n := s.OldestState(); n <= head; n++ {
		if err := s.CheckState(n); err != nil {
			t.Fatal(err)
		}
		if err := walkState(s, n); err != nil {
			t.Fatalf("kept state %d: %v", n, err)
		}
	}
	var unavailable *StateUnavailableError
	if err := s.CheckState(5); !errors.As(err, &unavailable) || unavailable.Oldest != s.OldestState() ||
		err.Error() != "state of block 5 is not available on this node: the oldest available is block 293" {
		t.Fatalf("pruned height: %v", err)
	}
	if err := walkState(s, 5); err == nil {
		t.Fatal("state 5 still whole on disk")
	}
	churn(t, s, 10) // blocks go on from the kept head
}

// The background pruner sweeps every Interval blocks and keeps the disk's
// trie nodes bounded while the chain grows.
func TestPruneBackgroundBounded(t *testing.T) {
	s := openPruneStore(t, t.TempDir(), PruneOptions{Mode: PruneFull, KeepRecent: 4, Interval: 20})
	defer s.Close()
	var counts []int
	for round := 0; round < 6; round++ {
		churn(t, s, 60)
		s.pruneRun.Lock() // wait for a sweep in progress
		counts = append(counts, trieNodes(s))
		s.pruneRun.Unlock()
	}
	if s.OldestState() == 0 {
		t.Fatal("the background pruner never ran")
	}
	// Each round adds 60 blocks of churn; archive would grow by as much
	// every round. Pruned, the last round holds no more than the second.
	if counts[5] > counts[1]+counts[1]/2 {
		t.Fatalf("trie nodes per round %v: not bounded", counts)
	}
}

// Sweeps that each delete fewer nodes than the compaction threshold
// compact once their deletions since the last compaction add up to it.
func TestPruneCompactsOverSweeps(t *testing.T) {
	s := openPruneStore(t, t.TempDir(), PruneOptions{Mode: PruneFull, KeepRecent: 8, Interval: 1 << 30})
	defer s.Close()
	sweep := func() *PruneStats {
		t.Helper()
		churn(t, s, 40)
		if err := s.Prune(context.Background(), s.Head().Number.Uint64()+1-8); err != nil {
			t.Fatal(err)
		}
		return s.LastPrune()
	}
	s.compactAfter = 1 << 30
	first := sweep()
	if first.Deleted == 0 || first.Compacted {
		t.Fatalf("first sweep %+v: want deletions and no compaction", first)
	}
	// Churn deletes about as many nodes per 40 blocks: the second sweep
	// alone stays under 1.5 times the first, the two together pass it.
	s.compactAfter = first.Deleted + first.Deleted/2
	second := sweep()
	if second.Deleted >= s.compactAfter || first.Deleted+second.Deleted < s.compactAfter {
		t.Fatalf("sweeps deleted %d then %d nodes: the threshold %d is not between one and both", first.Deleted, second.Deleted, s.compactAfter)
	}
	if !second.Compacted {
		t.Fatalf("%d + %d nodes deleted, threshold %d: not compacted", first.Deleted, second.Deleted, s.compactAfter)
	}
	if third := sweep(); third.Compacted {
		t.Fatalf("third sweep compacted after %d deletions since the last compaction (threshold %d)", third.Deleted, s.compactAfter)
	}
}

func TestPruneOptionsValidate(t *testing.T) {
	for _, o := range []PruneOptions{{Mode: "fast"}, {Mode: PruneFull, KeepRecent: 1, Interval: 1}, {Mode: PruneFull, KeepRecent: 10}} {
		if o.Validate() == nil {
			t.Fatalf("%+v accepted", o)
		}
	}
	if err := (PruneOptions{Mode: PruneArchive}).Validate(); err != nil {
		t.Fatal(err)
	}
}

// A state flushed (FinalizeBlock) whose block is never committed (a crash
// before Commit) leaves the head and its state as they were after a
// reopen; the flushed nodes are on disk, unreachable from any block.
func TestFlushStateWithoutCommit(t *testing.T) {
	dir := t.TempDir()
	s := openPruneStore(t, dir, PruneOptions{})
	churn(t, s, 3)
	head := s.Head()
	st, err := s.StateAt(head.Root)
	if err != nil {
		t.Fatal(err)
	}
	st.SetBalance(common.Address{0xee}, uint256.NewInt(7), tracing.BalanceChangeUnspecified)
	root, err := st.Commit(s.Config().Rules(new(big.Int).Add(head.Number, common.Big1), true, head.Time+1), head.Number.Uint64()+1)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FlushState(root); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openPruneStore(t, dir, PruneOptions{})
	defer s.Close()
	if got := s.Head(); got.Hash() != head.Hash() {
		t.Fatalf("head after reopen %d %s, want the last committed %d %s", got.Number, got.Hash(), head.Number, head.Hash())
	}
	if err := walkState(s, head.Number.Uint64()); err != nil {
		t.Fatalf("committed head's state: %v", err)
	}
	flushed, err := s.StateAt(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := flushed.GetBalance(common.Address{0xee}); got.Uint64() != 7 {
		t.Fatalf("flushed state's balance %v, want 7", got)
	}
}
