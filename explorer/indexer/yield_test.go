package indexer_test

import (
	"context"
	"io"
	"log/slog"
	"math/big"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/indexer"
	"github.com/emberchain/ember/explorer/sqlstore"
)

// busySource is a chain of empty blocks 0..head whose Busy answer the test
// sets; it counts the Busy polls and the blocks read.
type busySource struct {
	mu     sync.Mutex
	blocks []*types.Block
	busy   atomic.Bool
	polls  atomic.Int64
	reads  atomic.Int64
	notify chan struct{}
}

func newBusySource(head int) *busySource {
	s := &busySource{notify: make(chan struct{}, 1)}
	parent := common.Hash{}
	for n := 0; n <= head; n++ {
		h := &types.Header{Number: big.NewInt(int64(n)), ParentHash: parent, Time: uint64(1000 + n), GasLimit: 30_000_000,
			Difficulty: new(big.Int), BaseFee: big.NewInt(1_000_000_000)}
		b := types.NewBlockWithHeader(h)
		s.blocks = append(s.blocks, b)
		parent = b.Hash()
	}
	return s
}

func (s *busySource) Head(context.Context) (uint64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return uint64(len(s.blocks) - 1), true, nil
}

func (s *busySource) Block(_ context.Context, n uint64) (*explorer.SourceBlock, error) {
	s.reads.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	return &explorer.SourceBlock{Block: s.blocks[n]}, nil
}

func (s *busySource) Balances(_ context.Context, _ uint64, addrs []common.Address) ([]*big.Int, error) {
	out := make([]*big.Int, len(addrs))
	for i := range out {
		out[i] = new(big.Int)
	}
	return out, nil
}

func (s *busySource) Notify() <-chan struct{}       { return s.notify }
func (s *busySource) Pending() []explorer.PendingTx { return nil }
func (s *busySource) Busy() bool                    { s.polls.Add(1); return s.busy.Load() }

func openStore(t *testing.T) explorer.Store {
	t.Helper()
	st, err := sqlstore.OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "explorer.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestIndexerYieldsToBusySource: while the source is busy the indexer reads
// no block (it only follows the head), and it indexes everything once the
// source is idle.
func TestIndexerYieldsToBusySource(t *testing.T) {
	src := newBusySource(5)
	src.busy.Store(true)
	ix := indexer.NewIndexer(src, openStore(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	ix.Yield(time.Hour)
	done := make(chan error, 1)
	go func() { done <- ix.CatchUp(context.Background()) }()
	for src.polls.Load() < 5 { // the indexer is waiting: it asked five times
		select {
		case err := <-done:
			t.Fatalf("indexed while the source was busy (%d blocks read, err %v)", src.reads.Load(), err)
		case <-time.After(time.Millisecond):
		}
	}
	if n := src.reads.Load(); n != 0 {
		t.Fatalf("%d blocks read while the source was busy", n)
	}
	if _, _, head, ok := ix.Status(); !ok || head != 5 {
		t.Fatalf("status head %d (%v) while yielding, want 5", head, ok)
	}
	src.busy.Store(false)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if indexed, ok, head, _ := ix.Status(); !ok || indexed != 5 || head != 5 {
		t.Fatalf("after the source went idle: indexed %d (%v), head %d", indexed, ok, head)
	}
}

// TestIndexerYieldIsBounded: a source that stays busy is indexed anyway
// once the bound has passed.
func TestIndexerYieldIsBounded(t *testing.T) {
	src := newBusySource(3)
	src.busy.Store(true)
	ix := indexer.NewIndexer(src, openStore(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	ix.Yield(time.Nanosecond)
	if err := ix.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if indexed, ok, _, _ := ix.Status(); !ok || indexed != 3 || src.reads.Load() != 4 {
		t.Fatalf("indexed %d (%v), %d blocks read", indexed, ok, src.reads.Load())
	}
}
