package indexer

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// Indexer copies committed blocks from a Source into a Store. It resumes
// from the store's indexed height, so it catches up after any downtime, and
// Store.WriteBlocks skips blocks already recorded, so nothing is counted
// twice.
type Indexer struct {
	src   explorer.Source
	st    explorer.Store
	log   *slog.Logger
	batch int           // blocks per database transaction while catching up
	poll  time.Duration // how often to look for blocks without a signal

	head    atomic.Uint64 // source head last seen, +1 (0 = none yet)
	indexed atomic.Uint64 // store height, +1 (0 = nothing indexed)
	tokens  tokenCache    // tokens whose metadata was read

	// yieldMax bounds how long the indexer leaves a busy source alone
	// (Yield); 0 = never waits. behind is when it found itself behind the
	// head after being caught up: the bound counts from then.
	yieldMax time.Duration
	behind   time.Time
}

// yieldPoll is how often a yielding indexer looks whether the source is
// still busy: an RLock on the pool, so cheap, and short next to a block.
const yieldPoll = 10 * time.Millisecond

// Yield makes the indexer wait while its source is busy making blocks, for
// at most max after it fell behind, then index in one large batch. An
// indexer in the node's process competes with consensus for the CPU: during
// a burst it would slow every block, so it defers to them and catches up in
// the pauses (or when max has passed, so the lag stays bounded under a
// steady load). Sources that are not BusySources are indexed as they come.
func (ix *Indexer) Yield(max time.Duration) { ix.yieldMax = max }

// IndexerBatch is how many blocks one database transaction holds at most
// while catching up, and IndexerBatchTxs about how many transactions: large
// enough to amortise the commit (each commit rewrites the hot index pages,
// so fewer, larger commits index faster; bench/README.md, explorer), small
// enough that the API sees progress and memory stays bounded.
const (
	IndexerBatch    = 256
	IndexerBatchTxs = 16384
)

// NewIndexer returns an indexer from src into st.
func NewIndexer(src explorer.Source, st explorer.Store, log *slog.Logger) *Indexer {
	return &Indexer{src: src, st: st, log: log, batch: IndexerBatch, poll: time.Second}
}

// Status reports the last indexed block and the source's head, each with
// whether it exists yet.
func (ix *Indexer) Status() (indexed uint64, indexedOK bool, head uint64, headOK bool) {
	i, h := ix.indexed.Load(), ix.head.Load()
	return i - 1, i > 0, h - 1, h > 0
}

// Run indexes until ctx ends. Errors are logged and retried after a pause:
// a failing database must not stop the node.
func (ix *Indexer) Run(ctx context.Context) {
	tick := time.NewTicker(ix.poll)
	defer tick.Stop()
	for {
		if err := ix.CatchUp(ctx); err != nil && ctx.Err() == nil {
			ix.log.Error("explorer indexing failed; retrying", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-ix.src.Notify():
		case <-tick.C:
		}
	}
}

// CatchUp indexes every block from the store's height to the source's head.
func (ix *Indexer) CatchUp(ctx context.Context) error {
	height, ok, err := ix.st.IndexedHeight(ctx)
	if err != nil {
		return err
	}
	if ok {
		ix.indexed.Store(height + 1)
	}
	head, headOK, err := ix.src.Head(ctx)
	if err != nil || !headOK {
		return err
	}
	ix.head.Store(head + 1)
	next := uint64(0)
	if ok {
		next = height + 1
	}
	if next > head {
		ix.behind = time.Time{}
		return nil
	}
	if ix.behind.IsZero() {
		ix.behind = time.Now()
	}
	for next <= head {
		if head, err = ix.yield(ctx, head); err != nil {
			return err
		}
		batch, err := ix.buildBatch(ctx, next, head)
		if err != nil {
			return err
		}
		if err := ix.st.WriteBlocks(ctx, batch); err != nil {
			return err
		}
		last := batch[len(batch)-1].Block.Number
		ix.indexed.Store(last + 1)
		next = last + 1
	}
	ix.behind = time.Time{}
	return nil
}

// yield waits while the source is busy and the indexer has been behind for
// less than yieldMax, keeping the head it reports current so that the
// indexing status shows the lag. It returns the newest head seen.
func (ix *Indexer) yield(ctx context.Context, head uint64) (uint64, error) {
	busy, ok := ix.src.(explorer.BusySource)
	if !ok || ix.yieldMax <= 0 {
		return head, ctx.Err()
	}
	deadline := ix.behind.Add(ix.yieldMax)
	for busy.Busy() && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return head, ctx.Err()
		case <-time.After(yieldPoll):
		}
		h, ok, err := ix.src.Head(ctx)
		if err != nil {
			return head, err
		}
		if ok && h > head {
			head = h
			ix.head.Store(h + 1)
		}
	}
	return head, ctx.Err()
}

// buildBatch builds the blocks from next on that one database transaction
// will hold: up to ix.batch blocks and about IndexerBatchTxs transactions
// (a batch always holds at least one block, however large).
func (ix *Indexer) buildBatch(ctx context.Context, next, head uint64) ([]*explorer.IndexedBlock, error) {
	last := min(head, next+uint64(ix.batch)-1)
	batch := make([]*explorer.IndexedBlock, 0, last-next+1)
	txs := 0
	for n := next; n <= last && (len(batch) == 0 || txs < IndexerBatchTxs); n++ {
		b, err := ix.build(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("build block %d: %w", n, err)
		}
		batch = append(batch, b)
		txs += len(b.Txs)
	}
	return batch, nil
}

// build reads block number from the source and turns it into rows.
func (ix *Indexer) build(ctx context.Context, number uint64) (*explorer.IndexedBlock, error) {
	sb, err := ix.src.Block(ctx, number)
	if err != nil {
		return nil, err
	}
	ib, err := Convert(sb)
	if err != nil {
		return nil, err
	}
	if number == 0 {
		if err := ix.addGenesisAccounts(ctx, ib); err != nil {
			return nil, err
		}
	}
	ix.buildTokens(ctx, ib) // tokens.go; adds token holders to Touched
	addrs := touchedAddresses(ib)
	after, err := ix.src.Balances(ctx, number, addrs)
	if err != nil {
		return nil, err
	}
	before := zeros(len(addrs))
	if number > 0 {
		if before, err = ix.src.Balances(ctx, number-1, addrs); err != nil {
			return nil, err
		}
	}
	for i := range ib.Touched {
		ib.Touched[i].Before, ib.Touched[i].After = before[i], after[i]
	}
	if number == 0 {
		dropEmpty(ib)
	}
	return ib, nil
}

// dropEmpty forgets the accounts of block 0 that hold nothing (system
// accounts with only a nonce or storage): they are not holders.
func dropEmpty(ib *explorer.IndexedBlock) {
	kept := ib.Touched[:0]
	for _, t := range ib.Touched {
		if t.After.Sign() > 0 || t.Address == ib.Block.Miner {
			kept = append(kept, t)
		}
	}
	ib.Touched = kept
}

// addGenesisAccounts marks the genesis state's accounts as touched by block
// 0 (when the source can list them), so their balances are recorded then.
func (ix *Indexer) addGenesisAccounts(ctx context.Context, ib *explorer.IndexedBlock) error {
	gs, ok := ix.src.(explorer.GenesisSource)
	if !ok {
		return nil
	}
	accts, err := gs.GenesisAccounts(ctx)
	if err != nil {
		return fmt.Errorf("genesis accounts: %w", err)
	}
	seen := make(map[common.Address]bool, len(ib.Touched))
	for _, t := range ib.Touched {
		seen[t.Address] = true
	}
	for _, a := range accts {
		if !seen[a] {
			ib.Touched = append(ib.Touched, explorer.Touched{Address: a})
		}
	}
	return nil
}

// Forget drops what the indexer remembers of the store (its height, the
// tokens it read) after the store was reset; it must not be running.
func (ix *Indexer) Forget() {
	ix.indexed.Store(0)
	ix.head.Store(0)
	ix.behind = time.Time{}
	ix.tokens = tokenCache{}
}
