package store

import (
	"context"
	"math/rand"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// TestRewind rewinds a chain of 20 blocks with transactions and logs to
// block 10: nothing of blocks 11–20 is found any more (by number, hash,
// transaction, CometBFT hash, log query, or any log index key), blocks
// 0–10 are intact, and the chain goes on from 10 with new blocks of the
// reverted numbers.
func TestRewind(t *testing.T) {
	s := openTestStore(t)
	rng := rand.New(rand.NewSource(21))
	addrs := []common.Address{{1}, {2}, {3}}
	topics := []common.Hash{{7}, {8}}
	all := chainOfLogs(t, s, rng, 20, addrs, topics)
	var keptLogs int
	for _, l := range all {
		if l.BlockNumber <= 10 {
			keptLogs++
		}
	}
	var gone []*types.Block
	for n := uint64(11); n <= 20; n++ {
		gone = append(gone, s.BlockByNumber(n))
	}
	if err := s.Rewind(10); err != nil {
		t.Fatal(err)
	}
	if s.Head().Number.Uint64() != 10 {
		t.Fatalf("head %d after Rewind(10)", s.Head().Number)
	}
	for _, b := range gone {
		n := b.NumberU64()
		if s.HeaderByNumber(n) != nil || s.BlockByHash(b.Hash()) != nil || s.HeaderByHash(b.Hash()) != nil {
			t.Fatalf("block %d still found", n)
		}
		for _, tx := range b.Transactions() {
			if got, _ := s.Transaction(tx.Hash()); got != nil {
				t.Fatalf("transaction %s of block %d still found", tx.Hash().Hex(), n)
			}
		}
		if _, ok := s.NumberByCometHash([]byte{byte(n)}); ok || s.CometHash(n) != nil {
			t.Fatalf("CometBFT hash of block %d still mapped", n)
		}
	}
	logs, err := s.Logs(context.Background(), LogQuery{From: 0, To: 10})
	if err != nil || len(logs) != keptLogs {
		t.Fatalf("logs of blocks 0–10: %d (%v), want %d", len(logs), err, keptLogs)
	}
	for _, prefix := range [][]byte{logPrefix, logAddressPrefix, logTopicPrefix} {
		it := s.db.NewIterator(prefix, nil)
		for it.Next() {
			var pos logPos
			copy(pos[:], it.Key()[len(it.Key())-len(pos):])
			if pos.block() > 10 {
				t.Fatalf("log index key %x of block %d left", it.Key(), pos.block())
			}
		}
		it.Release()
	}
	if n := commitWithCalls(t, s); n != 11 || s.HeaderByNumber(11) == nil || s.HeaderByNumber(11).Hash() == gone[0].Hash() {
		t.Fatalf("new block %d after the rewind", n)
	}
}
