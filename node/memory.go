package node

import (
	"github.com/emberchain/ember/metrics"
)

// memoryParts is the caches outside the Go heap with their configured
// limits, for ember_memory_bytes (docs/memory.md); read at scrape time.
func (n *Node) memoryParts() []metrics.MemoryPart {
	m := n.store.Memory()
	parts := []metrics.MemoryPart{
		{Part: "pebble_block_cache", Bytes: m.BlockCache, Limit: m.BlockCacheLimit},
		{Part: "pebble_memtables", Bytes: m.MemTables, Limit: m.MemTablesLimit},
		{Part: "trie_clean_cache", Bytes: m.TrieClean, Limit: m.TrieCleanLimit},
		{Part: "trie_dirty", Bytes: m.TrieDirty},
		{Part: "trie_preimages", Bytes: m.Preimages},
	}
	if n.explorer == nil {
		return parts
	}
	if x, ok := n.explorer.Memory(); ok {
		// The page caches cannot be read, only bounded by the open
		// connections (sqlstore.Memory); the mapping's resident pages are
		// in /proc/PID/smaps, which is too costly to read per scrape.
		parts = append(parts,
			metrics.MemoryPart{Part: "sqlite_page_cache", Bytes: x.PageCacheBound, Limit: x.PageCacheLimit},
			metrics.MemoryPart{Part: "sqlite_mmap", Bytes: -1, Limit: x.MmapLimit})
	}
	return parts
}
