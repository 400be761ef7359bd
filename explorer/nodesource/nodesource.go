package nodesource

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/store"
)

// NodeSource reads committed blocks from the node's own store: no
// re-execution, no RPC round trips. Feed it the app's commits through
// Committed.
type NodeSource struct {
	st      *store.Store
	notify  chan struct{}
	pending func() (pending, queued map[common.Address][]*types.Transaction)
	busy    func() bool     // transactions wait for a block (SetBusy)
	tracer  explorer.Tracer // the node's, for raw traces and state changes (traces.go)
	prefix  string          // bech32 prefix and denomination, to decode native transactions (SetNative)
	denom   string

	// recent holds the blocks the app published and the indexer has not
	// read yet, so the indexer takes the senders admission already recovered
	// instead of recovering them again (a tenth of the node's CPU under
	// load). Block and receipts still come from the store, whose receipts
	// carry the derived fields (effective gas price…) the published ones
	// lack. It is bounded: a block dropped from it is recovered as before.
	mu     sync.Mutex
	recent map[uint64]*app.CommittedBlock

	lastCommit atomic.Int64 // when the app last published a block, Unix ns
}

// quietAfter is how long after a block the source still counts as busy
// making blocks: a client that sends one transaction at a time, waiting
// for each receipt, leaves the pool empty between its blocks (a few
// milliseconds apart), and an indexer writing each block as it comes takes
// the CPU its next block needs, which shows in such a client's send →
// receipt time.
const quietAfter = 20 * time.Millisecond

// maxRecent bounds the committed blocks kept for the indexer (it drops the
// oldest when it falls further behind than this).
const maxRecent = 1024

// NewNodeSource reads st; pool, if not nil, lists the tx pool's content for
// the pending transactions list.
func NewNodeSource(st *store.Store, pool func() (pending, queued map[common.Address][]*types.Transaction)) *NodeSource {
	return &NodeSource{st: st, notify: make(chan struct{}, 1), pending: pool, recent: make(map[uint64]*app.CommittedBlock)}
}

// Committed is the app's OnCommit listener: it keeps the block and signals,
// so it never blocks the ABCI goroutine.
func (s *NodeSource) Committed(b *app.CommittedBlock) {
	s.lastCommit.Store(time.Now().UnixNano())
	n := b.Block.NumberU64()
	s.mu.Lock()
	s.recent[n] = b
	if n >= maxRecent {
		delete(s.recent, n-maxRecent)
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Rewind forgets the published blocks above h (a dev chain's evm_revert).
func (s *NodeSource) Rewind(h uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := range s.recent {
		if n > h {
			delete(s.recent, n)
		}
	}
}

// SetBusy gives the source the node's "transactions wait for a block"
// test, making it a BusySource: the indexer then yields to consensus while
// it holds or a block was published less than quietAfter ago.
func (s *NodeSource) SetBusy(busy func() bool) { s.busy = busy }

// Busy implements BusySource.
func (s *NodeSource) Busy() bool {
	if s.busy == nil {
		return false
	}
	return s.busy() || time.Since(time.Unix(0, s.lastCommit.Load())) < quietAfter
}

// Notify implements Source.
func (s *NodeSource) Notify() <-chan struct{} { return s.notify }

// Head implements Source.
func (s *NodeSource) Head(context.Context) (uint64, bool, error) {
	h := s.st.Head()
	if h == nil {
		return 0, false, nil
	}
	return h.Number.Uint64(), true, nil
}

// committed returns the published block number, if still kept.
func (s *NodeSource) committed(number uint64) *app.CommittedBlock {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recent[number]
}

// forget drops the kept blocks below number: the indexer reads blocks in
// order.
func (s *NodeSource) forget(number uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := range s.recent {
		if n < number {
			delete(s.recent, n)
		}
	}
}

// Block implements Source.
func (s *NodeSource) Block(_ context.Context, number uint64) (*explorer.SourceBlock, error) {
	s.forget(number)
	b := s.st.BlockByNumber(number)
	if b == nil {
		return nil, fmt.Errorf("block %d not in the node's store", number)
	}
	var receipts types.Receipts
	if len(b.Transactions()) > 0 {
		if receipts = s.st.Receipts(b.Header()); len(receipts) != len(b.Transactions()) {
			return nil, fmt.Errorf("block %d: %d receipts for %d transactions", number, len(receipts), len(b.Transactions()))
		}
	}
	senders, err := s.senders(b)
	if err != nil {
		return nil, err
	}
	internal, err := s.internalCalls(number, len(senders))
	if err != nil {
		return nil, err
	}
	natives, err := s.nativeTxs(b)
	if err != nil {
		return nil, err
	}
	return &explorer.SourceBlock{Block: b, Receipts: receipts, Senders: senders, Internal: internal, Native: natives,
		CometHash: s.st.CometHash(number)}, nil
}

// senders are those the app published for block b while it is kept
// (recovered once, at admission), else recovered from the signatures.
func (s *NodeSource) senders(b *types.Block) ([]common.Address, error) {
	if c := s.committed(b.NumberU64()); c != nil && c.Block.Hash() == b.Hash() && len(c.Senders) == len(b.Transactions()) {
		return c.Senders, nil
	}
	signer := types.MakeSigner(s.st.Config(), b.Number(), b.Time())
	senders := make([]common.Address, len(b.Transactions()))
	for i, tx := range b.Transactions() {
		from, err := types.Sender(signer, tx)
		if err != nil {
			return nil, fmt.Errorf("block %d tx %d: sender: %w", b.NumberU64(), i, err)
		}
		senders[i] = from
	}
	return senders, nil
}

// Balances implements Source, reading the state the block committed.
func (s *NodeSource) Balances(_ context.Context, number uint64, addrs []common.Address) ([]*big.Int, error) {
	h := s.st.HeaderByNumber(number)
	if h == nil {
		return nil, fmt.Errorf("block %d not in the node's store", number)
	}
	st, err := s.st.StateAt(h.Root)
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", number, err)
	}
	out := make([]*big.Int, len(addrs))
	for i, a := range addrs {
		out[i] = st.GetBalance(a).ToBig()
	}
	return out, nil
}

// GenesisAccounts implements GenesisSource.
func (s *NodeSource) GenesisAccounts(context.Context) ([]common.Address, error) {
	return s.st.GenesisAccounts()
}

// Pending implements Source: the pool's executable transactions, senders
// in address order and each sender's in nonce order.
func (s *NodeSource) Pending() []explorer.PendingTx {
	if s.pending == nil {
		return nil
	}
	pending, _ := s.pending()
	senders := make([]common.Address, 0, len(pending))
	for a := range pending {
		senders = append(senders, a)
	}
	sort.Slice(senders, func(i, j int) bool { return senders[i].Cmp(senders[j]) < 0 })
	var out []explorer.PendingTx
	for _, a := range senders {
		for _, tx := range pending[a] {
			out = append(out, explorer.PendingTx{Tx: tx, From: a})
		}
	}
	return out
}
