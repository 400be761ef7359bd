package store

import (
	"reflect"
	"unsafe"

	"github.com/VictoriaMetrics/fastcache"
	"github.com/cockroachdb/pebble/v2"
)

// Memory is what the store's caches hold now and what each may hold at
// most, in bytes (docs/memory.md). With cgo, Pebble allocates its block
// cache and memtables outside the Go heap, and fastcache (the clean trie
// cache) maps its chunks outside it too: none of them shows in the Go
// heap, so they are read here.
type Memory struct {
	BlockCache      int64 // Pebble's block cache
	BlockCacheLimit int64 // [store] cache-mb
	MemTables       int64 // Pebble's memtables (live and zombie)
	// MemTablesLimit is what go-ethereum's Pebble options allow: memtables
	// of cache-mb/8 each, writes stopped at 8 of them, so cache-mb again.
	MemTablesLimit int64
	TrieClean      int64 // the clean trie-node cache's allocated chunks
	TrieCleanLimit int64 // [store] trie-cache-mb, rounded up to whole chunks of every bucket
	TrieDirty      int64 // trie nodes not yet written (committed every block, so about one block's)
	Preimages      int64 // preimages not yet written (dev homes keep them)
}

// pebbleMemTables and pebbleStopWrites are go-ethereum's Pebble options
// (ethdb/pebble.New): memtables of cache/2/4 each, writes stopped at
// twice four of them.
const (
	pebbleMemTables  = 4
	pebbleStopWrites = 2 * pebbleMemTables
	pebbleMinCacheMB = 16 // go-ethereum raises a smaller cache to this
)

// Memory reads the caches' sizes; cheap enough for every scrape (Pebble's
// metrics are a snapshot under its lock, fastcache's stats walk 512
// buckets).
func (s *Store) Memory() Memory {
	cache := int64(max(s.opts.CacheMB, pebbleMinCacheMB)) << 20
	m := Memory{
		BlockCacheLimit: cache,
		MemTablesLimit:  cache / 2 / pebbleMemTables * pebbleStopWrites,
		TrieCleanLimit:  fastcacheLimit(int64(s.opts.TrieCacheMB) << 20),
	}
	if db := s.pebbleDB(); db != nil {
		pm := db.Metrics()
		m.BlockCache = pm.BlockCache.Size
		m.MemTables = int64(pm.MemTable.Size + pm.MemTable.ZombieSize)
	}
	if c := s.trieClean(); c != nil {
		var st fastcache.Stats
		c.UpdateStats(&st)
		m.TrieClean = int64(st.BytesSize)
	}
	_, dirty, pre := s.trie.Size()
	m.TrieDirty, m.Preimages = int64(dirty), int64(pre)
	return m
}

// fastcache splits its size over 512 buckets, each holding whole chunks of
// 64 KiB: the most it allocates is the size rounded up to that, at least
// 32 MiB (lib/fastcache.go's bucketsCount and chunkSize).
const (
	fastcacheBuckets = 512
	fastcacheChunk   = 64 << 10
)

func fastcacheLimit(size int64) int64 {
	if size <= 0 {
		return 0
	}
	perBucket := (size + fastcacheBuckets - 1) / fastcacheBuckets
	chunks := (perBucket + fastcacheChunk - 1) / fastcacheChunk
	return chunks * fastcacheChunk * fastcacheBuckets
}

// pebbleDB is the *pebble.DB inside go-ethereum's wrapper, which keeps it
// unexported and offers its metrics only as text (Stat); nil if a
// go-ethereum upgrade renamed or retyped the field (the parts then read 0
// and TestStoreMemory fails).
func (s *Store) pebbleDB() *pebble.DB {
	f := field(reflect.ValueOf(s.kv), "db")
	if !f.IsValid() {
		return nil
	}
	db, _ := f.Interface().(*pebble.DB)
	return db
}

// trieClean is hashdb's clean-node cache (triedb.Database.backend.cleans),
// also unexported; nil when not found or not configured.
func (s *Store) trieClean() *fastcache.Cache {
	b := field(reflect.ValueOf(s.trie), "backend")
	if !b.IsValid() || b.IsNil() {
		return nil
	}
	c := field(b.Elem(), "cleans")
	if !c.IsValid() {
		return nil
	}
	fc, _ := c.Interface().(*fastcache.Cache)
	return fc
}

// field is the named field of the struct v points to, made readable
// although unexported; the zero Value when there is none.
func field(v reflect.Value, name string) reflect.Value {
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	f := v.Elem().FieldByName(name)
	if !f.IsValid() {
		return reflect.Value{}
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}
