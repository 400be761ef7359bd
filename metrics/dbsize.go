package metrics

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// SampleDBSizes sets ember_db_size_bytes{db=<name>} for each entry of dir
// (the home's data/: Ember's store, CometBFT's block store, state and tx
// index, the explorer's database, the WAL) every interval until ctx ends.
// Walking a large store costs a few milliseconds, too much for every
// scrape: sampling bounds it whatever the scrape interval.
func (m *Metrics) SampleDBSizes(ctx context.Context, dir string, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		m.sampleDBSizes(dir)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

func (m *Metrics) sampleDBSizes(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		m.dbSize.WithLabelValues(e.Name()).Set(float64(diskSize(filepath.Join(dir, e.Name()))))
	}
}

// diskSize is the total size of the regular files under path. Files that
// vanish during the walk (compactions) are skipped.
func diskSize(path string) int64 {
	var total int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return total
}
