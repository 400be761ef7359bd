package store

import (
	"testing"
)

// TestStoreMemory: every cache the store reads through go-ethereum's
// unexported fields is found (a renamed field would read 0 here) and the
// limits are the configured sizes.
func TestStoreMemory(t *testing.T) {
	s := openPruneStore(t, t.TempDir(), PruneOptions{Mode: PruneArchive})
	defer s.Close()
	if s.pebbleDB() == nil || s.trieClean() == nil {
		t.Fatal("go-ethereum's Pebble handle or clean trie cache not found")
	}
	churn(t, s, 50)
	// Flushed to tables, then read back: the reads go through the block cache.
	if err := s.kv.Compact(nil, nil); err != nil {
		t.Fatal(err)
	}
	it := s.kv.NewIterator(nil, nil)
	for it.Next() {
	}
	it.Release()
	m := s.Memory()
	t.Logf("%+v", m)
	for name, v := range map[string]int64{"block cache": m.BlockCache, "memtables": m.MemTables, "trie clean": m.TrieClean} {
		if v <= 0 {
			t.Errorf("%s = %d, want > 0", name, v)
		}
	}
	if m.BlockCacheLimit != 16<<20 || m.MemTablesLimit != 16<<20 || m.TrieCleanLimit != 32<<20 {
		t.Errorf("limits %d %d %d, want 16 MiB (8 raised to go-ethereum's minimum), 16 MiB, 32 MiB (fastcache's least)", m.BlockCacheLimit, m.MemTablesLimit, m.TrieCleanLimit)
	}
}
