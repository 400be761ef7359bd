package store

import (
	"math/big"
	"math/rand"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"
	"github.com/holiman/uint256"
)

// Blocks served from the cache are the blocks on disk, by number and hash,
// and unknown blocks stay unknown.
func TestBlockCacheServesStoredBlocks(t *testing.T) {
	s := openTestStore(t)
	rng := rand.New(rand.NewSource(1))
	chainOfLogs(t, s, rng, 20, []common.Address{{1}}, []common.Hash{{2}})
	for round := 0; round < 2; round++ { // the second round is served from the cache
		for n := uint64(0); n <= 20; n++ {
			want := rawdb.ReadBlock(s.db, rawdb.ReadCanonicalHash(s.db, n), n)
			for _, got := range []*types.Block{s.BlockByNumber(n), s.BlockByHash(want.Hash())} {
				if got == nil || got.Hash() != want.Hash() || len(got.Transactions()) != len(want.Transactions()) {
					t.Fatalf("round %d block %d: got %v, want %s", round, n, got, want.Hash())
				}
				for i, tx := range got.Transactions() {
					if tx.Hash() != want.Transactions()[i].Hash() {
						t.Fatalf("block %d tx %d differs", n, i)
					}
				}
			}
			if h := s.HeaderByNumber(n); h == nil || h.Hash() != want.Hash() {
				t.Fatalf("header %d: %v", n, h)
			}
		}
	}
	if s.BlockByNumber(21) != nil || s.HeaderByNumber(21) != nil || s.BlockByHash(common.Hash{1}) != nil {
		t.Fatal("block past the head or unknown hash found")
	}
	// A block committed later is found by number at once.
	chainOfLogsFrom(t, s, 1)
	if b := s.BlockByNumber(21); b == nil || b.Hash() != s.Head().Hash() {
		t.Fatalf("new head not served: %v", b)
	}
}

func TestBlockCacheBounds(t *testing.T) {
	c := newBlockCache(4, 1000)
	var blocks []*types.Block
	for i := 0; i < 10; i++ {
		h := &types.Header{Number: big.NewInt(int64(i)), Difficulty: new(big.Int), Extra: make([]byte, 32)}
		blocks = append(blocks, types.NewBlockWithHeader(h))
		c.add(blocks[i].Hash(), blocks[i])
		if c.lru.Len() > 4 || c.size > 1000 {
			t.Fatalf("after %d adds: %d blocks, %d bytes", i+1, c.lru.Len(), c.size)
		}
		var sum uint64
		for _, k := range c.lru.Keys() {
			b, _ := c.lru.Peek(k)
			sum += b.Size()
		}
		if sum != c.size {
			t.Fatalf("size %d, blocks add up to %d", c.size, sum)
		}
	}
	if _, ok := c.get(blocks[9].Hash()); !ok {
		t.Fatal("newest block evicted")
	}
	if _, ok := c.get(blocks[0].Hash()); ok {
		t.Fatal("oldest block kept")
	}
	huge := types.NewBlockWithHeader(&types.Header{Number: big.NewInt(99), Difficulty: new(big.Int), Extra: make([]byte, 2000)})
	c.add(huge.Hash(), huge)
	if _, ok := c.get(huge.Hash()); ok {
		t.Fatal("block larger than the cache was cached")
	}
}

// chainOfLogsFrom commits n empty blocks on top of the head.
func chainOfLogsFrom(t *testing.T, s *Store, n int) {
	for i := 0; i < n; i++ {
		parent := s.Head()
		header := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).Add(parent.Number, common.Big1), Root: parent.Root,
			Difficulty: new(big.Int), GasLimit: parent.GasLimit, Time: parent.Time + 1, BaseFee: big.NewInt(1)}
		block := types.NewBlock(header, &types.Body{}, nil, trie.NewStackTrie(nil))
		if err := s.CommitBlock(block, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// Each root reads its own state through the cache, however many blocks
// follow; what a caller does to the StateDB it gets never reaches the cache.
func TestCachedStateAtIsPerRoot(t *testing.T) {
	s := openTestStore(t)
	addr, slot := common.Address{0xaa}, common.Hash{0x01}
	var roots []common.Hash
	parent := s.Head()
	for i := 1; i <= 5; i++ {
		st, err := s.StateAt(parent.Root)
		if err != nil {
			t.Fatal(err)
		}
		st.AddBalance(addr, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
		st.SetState(addr, slot, common.BigToHash(big.NewInt(int64(i))))
		root, err := st.Commit(s.Config().Rules(big.NewInt(int64(i)), true, parent.Time+1), uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		header := &types.Header{ParentHash: parent.Hash(), Number: big.NewInt(int64(i)), Root: root,
			Difficulty: new(big.Int), GasLimit: parent.GasLimit, Time: parent.Time + 1, BaseFee: big.NewInt(1)}
		block := types.NewBlock(header, &types.Body{}, nil, trie.NewStackTrie(nil))
		if err := s.CommitBlock(block, nil, nil); err != nil {
			t.Fatal(err)
		}
		roots = append(roots, root)
		parent = block.Header()
		// Read every root so far, concurrently, twice: cold, then cached.
		for round := 0; round < 2; round++ {
			var wg sync.WaitGroup
			for k, r := range roots {
				wg.Add(1)
				go func() {
					defer wg.Done()
					st, err := s.CachedStateAt(r)
					if err != nil {
						t.Error(err)
						return
					}
					if got := st.GetBalance(addr).Uint64(); got != uint64(k+1) {
						t.Errorf("root %d: balance %d", k+1, got)
					}
					if got := st.GetState(addr, slot); got != common.BigToHash(big.NewInt(int64(k+1))) {
						t.Errorf("root %d: slot %x", k+1, got)
					}
					if st.Exist(common.Address{0xbb}) {
						t.Errorf("root %d: phantom account", k+1)
					}
					// Scribble on the StateDB: the next reader must not see it.
					st.SetBalance(addr, uint256.NewInt(1000), tracing.BalanceChangeUnspecified)
					st.SetState(addr, slot, common.Hash{0xff})
					st.SetBalance(common.Address{0xbb}, uint256.NewInt(5), tracing.BalanceChangeUnspecified)
				}()
			}
			wg.Wait()
		}
	}
	if _, err := s.CachedStateAt(common.Hash{0x12}); err == nil {
		t.Fatal("unknown root opened")
	}
}

// A root's reader that reached its entry cap is replaced by a fresh one.
func TestStateCacheReplacesFullReader(t *testing.T) {
	s := openTestStore(t)
	root := s.Head().Root
	r1, err := s.states.reader(root)
	if err != nil {
		t.Fatal(err)
	}
	if r2, _ := s.states.reader(root); r2 != r1 {
		t.Fatal("reader not shared")
	}
	r1.(*cachedReader).entries.Store(cachedEntriesPerRoot)
	if _, err := r1.Account(common.Address{0xcc}); err != nil {
		t.Fatal(err)
	}
	if _, ok := r1.(*cachedReader).accounts.Load(common.Address{0xcc}); ok {
		t.Fatal("full reader still caching")
	}
	if r3, _ := s.states.reader(root); r3 == r1 {
		t.Fatal("full reader kept")
	}
}
