package sqlstore

import (
	"context"
	"path/filepath"
	"testing"
)

// TestSQLiteMemory: the bounds follow the options (zero fields the
// defaults) and count the open connections.
func TestSQLiteMemory(t *testing.T) {
	st, err := OpenSQLiteWith(context.Background(), filepath.Join(t.TempDir(), "explorer.db"), SQLiteOptions{CacheMB: 8, MmapMB: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m, ok := st.Memory()
	if !ok {
		t.Fatal("no memory on SQLite")
	}
	if m.Conns < 1 || m.PageCacheBound != int64(m.Conns)*8<<20 {
		t.Errorf("conns %d, page cache bound %d", m.Conns, m.PageCacheBound)
	}
	if m.PageCacheLimit != 8<<20*int64(DefaultSQLite.MaxConns) || m.MmapLimit != 0 {
		t.Errorf("limits %d, %d", m.PageCacheLimit, m.MmapLimit)
	}
	var size int64
	if err := st.db.QueryRow("PRAGMA cache_size").Scan(&size); err != nil || size != -8<<10 {
		t.Errorf("cache_size %d (%v), want %d", size, err, -8<<10)
	}
}
