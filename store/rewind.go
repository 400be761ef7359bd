package store

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/ethdb"
)

// Rewind makes block h the head again, as if the blocks above it had never
// been made (a dev chain's evm_revert): their headers, bodies, receipts,
// canonical hashes, tx lookups, log index entries, CometBFT hash mappings,
// senders and internal calls are deleted in one batch, and the read caches
// dropped. The state at h needs no work: every block's state is kept. The
// caller makes sure no block is being committed meanwhile.
func (s *Store) Rewind(h uint64) error {
	head := s.Head()
	if head == nil || h >= head.Number.Uint64() {
		return nil
	}
	target := s.HeaderByNumber(h)
	if target == nil {
		return fmt.Errorf("rewind: no block %d", h)
	}
	batch := s.db.NewBatch()
	for n := head.Number.Uint64(); n > h; n-- {
		if err := s.deleteBlock(batch, n); err != nil {
			return err
		}
	}
	hash := target.Hash()
	rawdb.WriteHeadHeaderHash(batch, hash)
	rawdb.WriteHeadBlockHash(batch, hash)
	if err := batch.Write(); err != nil {
		return fmt.Errorf("rewind to block %d: %w", h, err)
	}
	if err := s.kv.SyncKeyValue(); err != nil {
		return fmt.Errorf("rewind to block %d: %w", h, err)
	}
	// Every cache may hold a reverted block (the number → hash one would
	// even answer it for a new block of the same number). The head moves
	// first, so that no reader caches a reverted block again.
	s.head.Store(target)
	s.headers.Purge()
	s.refs.Purge()
	s.blocks.purge()
	s.setHead(target)
	return nil
}

// deleteBlock deletes canonical block n and everything indexed by it.
func (s *Store) deleteBlock(w ethdb.KeyValueWriter, n uint64) error {
	hash := rawdb.ReadCanonicalHash(s.db, n)
	if hash == (common.Hash{}) {
		return fmt.Errorf("rewind: no canonical block %d", n)
	}
	if body := rawdb.ReadBody(s.db, hash, n); body != nil {
		txs := make([]common.Hash, len(body.Transactions))
		for i, tx := range body.Transactions {
			txs[i] = tx.Hash()
		}
		rawdb.DeleteTxLookupEntries(w, txs)
	}
	if err := s.deleteLogIndex(w, hash, n); err != nil {
		return err
	}
	if cometHash := s.CometHash(n); cometHash != nil {
		_ = w.Delete(join(cometNumberPrefix, cometHash))
	}
	for _, key := range [][]byte{cometHashKey(n), sendersKey(n), internalCallsKey(n)} {
		if err := w.Delete(key); err != nil {
			return err
		}
	}
	rawdb.DeleteBlock(w, hash, n)
	rawdb.DeleteCanonicalHash(w, n)
	return nil
}

// deleteLogIndex deletes the log index entries writeLogIndex made for
// block n.
func (s *Store) deleteLogIndex(w ethdb.KeyValueWriter, hash common.Hash, n uint64) error {
	index := uint32(0)
	for _, r := range rawdb.ReadRawReceipts(s.db, hash, n) {
		for _, l := range r.Logs {
			pos := makePos(n, index)
			index++
			keys := [][]byte{join(logPrefix, pos[:]), join(logAddressPrefix, l.Address[:], pos[:])}
			for i, topic := range l.Topics {
				keys = append(keys, join(logTopicPrefix, []byte{byte(i)}, topic[:], pos[:]))
			}
			for _, key := range keys {
				if err := w.Delete(key); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
