package sqlstore

import "fmt"

// SQLiteOptions bound the memory a SQLite explorer database takes
// (docs/memory.md): each connection keeps its own page cache, and the file
// is mapped into the process up to MmapMB (its resident pages count as the
// node's, file-backed, which the kernel may drop under pressure).
type SQLiteOptions struct {
	CacheMB  int // page cache per connection, MiB; 0 for DefaultSQLite's
	MmapMB   int // memory-mapped part of the file, MiB; 0 for DefaultSQLite's, <0 for none
	MaxConns int // open connections at most; 0 for DefaultSQLite's
}

// DefaultSQLite: SQLite's default page cache (2 MB) made each index probe
// of a big database a read syscall, and those reads dominated indexing; a
// 64 MiB cache per connection plus a mapped file let probes hit memory.
// Sixteen connections are the indexer and the API's concurrent readers, as
// for PostgreSQL (OpenPostgres).
var DefaultSQLite = SQLiteOptions{CacheMB: 64, MmapMB: 1024, MaxConns: 16}

// withDefaults fills the zero fields from DefaultSQLite.
func (o SQLiteOptions) withDefaults() SQLiteOptions {
	if o.CacheMB <= 0 {
		o.CacheMB = DefaultSQLite.CacheMB
	}
	if o.MmapMB == 0 {
		o.MmapMB = DefaultSQLite.MmapMB
	}
	if o.MmapMB < 0 {
		o.MmapMB = 0
	}
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultSQLite.MaxConns
	}
	return o
}

// pragmas are the options as the driver's _pragma parameters; a negative
// cache_size is in KiB.
func (o SQLiteOptions) pragmas() []string {
	return []string{fmt.Sprintf("cache_size(-%d)", o.CacheMB<<10), fmt.Sprintf("mmap_size(%d)", int64(o.MmapMB)<<20)}
}

// Memory is the SQLite database's memory: the page caches cannot be read
// through database/sql (sqlite3_status is the C API's, per process, and
// the driver does not expose it), so their bound is computed from the open
// connections, each of which may fill its cache.
type Memory struct {
	PageCacheBound int64 // CacheMB × open connections now
	PageCacheLimit int64 // CacheMB × MaxConns
	MmapLimit      int64 // MmapMB (what is resident of it is in /proc/PID/smaps)
	Conns          int   // open connections now
}

// Memory reports the SQLite database's bounds; ok is false on PostgreSQL,
// whose memory is its server's.
func (s *Store) Memory() (m Memory, ok bool) {
	if s.sqlite == nil {
		return Memory{}, false
	}
	o := *s.sqlite
	conns := s.db.Stats().OpenConnections
	return Memory{
		PageCacheBound: int64(o.CacheMB) << 20 * int64(conns),
		PageCacheLimit: int64(o.CacheMB) << 20 * int64(o.MaxConns),
		MmapLimit:      int64(o.MmapMB) << 20,
		Conns:          conns,
	}, true
}
