package store

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb"
)

// recordingDB is the database the trie database writes through: while a
// sweep runs, every trie node a commit writes joins the sweep's keep set
// (see prune.go). Trie nodes are written only by CommitBlock and
// InitGenesis, both under pruneMu, so a sweep chunk (also under pruneMu)
// sees a node either recorded or not yet written.
type recordingDB struct {
	ethdb.Database
	s *Store
}

func (d recordingDB) NewBatch() ethdb.Batch {
	return recordingBatch{Batch: d.Database.NewBatch(), s: d.s}
}

func (d recordingDB) NewBatchWithSize(size int) ethdb.Batch {
	return recordingBatch{Batch: d.Database.NewBatchWithSize(size), s: d.s}
}

// Put records a hash-scheme trie node (a 32-byte key) before writing it.
func (d recordingDB) Put(key, value []byte) error {
	d.s.record(key)
	return d.Database.Put(key, value)
}

type recordingBatch struct {
	ethdb.Batch
	s *Store
}

func (b recordingBatch) Put(key, value []byte) error {
	b.s.record(key)
	return b.Batch.Put(key, value)
}

func (s *Store) record(key []byte) {
	if len(key) != common.HashLength {
		return
	}
	if keep := s.recording.Load(); keep != nil {
		keep.add(common.BytesToHash(key))
	}
}
