// Package store is the node's own database: one Pebble instance holding the
// state trie (go-ethereum's hash-based trie database: every block's state
// kept in archive mode, the last ones in full mode, see prune.go), the chain data in go-ethereum's rawdb schema (headers, bodies,
// receipts, tx lookups, canonical hashes) and Ember's own keys (the
// CometBFT ↔ EVM block-hash mapping). A block's data is written in one batch
// after its trie nodes, so the durable head always has its state on disk.
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/ethereum/go-ethereum/triedb/hashdb"

	"github.com/emberchain/ember/callframe"
)

// Options sizes the store's caches.
type Options struct {
	CacheMB     int // Pebble block cache
	TrieCacheMB int // clean trie node cache
	// NoSync commits blocks without syncing the database to disk: a killed
	// process may lose the last blocks' writes still in Pebble's buffers,
	// which CometBFT's handshake replays at the next start; only the
	// syncing is skipped, not the write order.
	NoSync bool
	// Preimages keeps the address and slot behind each hashed trie key, so
	// the state can be listed (a dev chain's anvil_dumpState).
	Preimages bool
	Prune     PruneOptions // archive when its Mode is empty
	Log       *slog.Logger // the pruner's; slog.Default() when nil
}

// DefaultOptions suit a development node.
var DefaultOptions = Options{CacheMB: 256, TrieCacheMB: 128, Prune: DefaultPruneOptions}

// Store is the node database. It is safe for concurrent use; blocks are
// written by one writer (the ABCI application) at a time.
type Store struct {
	kv     *pebble.Database
	db     ethdb.Database
	trie   *triedb.Database
	state  state.Database
	config atomic.Pointer[params.ChainConfig] // the schedule the head state records (SetConfig)
	noSync bool                               // Options.NoSync
	opts   Options                            // as opened (Memory reports the cache limits)

	head    atomic.Pointer[types.Header]           // last durable block
	headers *lru.Cache[common.Hash, *types.Header] // recent headers by hash
	refs    *lru.Cache[uint64, blockRef]           // canonical hash and time by number
	blocks  *blockCache                            // recent decoded blocks by hash
	states  *stateCache                            // shared readers of recently read state roots
	calls   callStates                             // StateDBs lent to eth_call (callstate.go)

	restored restoredFrom // where a state-synced store's data begins (statesync.go)
	// Pruning (prune.go).
	prune     PruneOptions
	log       *slog.Logger
	oldest    atomic.Uint64                         // first height whose state is held
	pruned    atomic.Uint64                         // oldest of the last completed sweep
	resume    atomic.Bool                           // a sweep was interrupted before Open
	pruneMu   sync.Mutex                            // orders trie-node writes and sweep deletions
	flushed   common.Hash                           // root of the last trie written, under pruneMu
	pruneRun  sync.Mutex                            // one sweep at a time
	recording atomic.Pointer[nodeSet]               // keep set of the sweep running, nil when none
	hold      atomic.Pointer[func() (uint64, bool)] // SetPruneHold
	lastPrune atomic.Pointer[PruneStats]
	pruneWake chan struct{}
	pruneStop context.CancelFunc
	pruneDone chan struct{}

	// uncompacted counts the trie nodes sweeps deleted since the last
	// compaction (under pruneRun); compactAfter is compactThreshold.
	uncompacted, compactAfter int
}

// Read cache sizes (see cache.go).
const (
	blockCacheBlocks = 256
	blockCacheBytes  = 32 << 20 // encoded size of the cached blocks
	stateCacheRoots  = 4
)

// Open opens (creating if needed) the store in dir for the chain described by
// config.
func Open(dir string, config *params.ChainConfig, opts Options) (*Store, error) {
	if opts.Prune.Mode == "" {
		opts.Prune.Mode = PruneArchive
	}
	if err := opts.Prune.Validate(); err != nil {
		return nil, err
	}
	kv, err := pebble.New(dir, opts.CacheMB, 256, "ember/db/", false)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", dir, err)
	}
	db := rawdb.NewDatabase(kv)
	s := &Store{
		kv:      kv,
		db:      db,
		noSync:  opts.NoSync,
		opts:    opts,
		headers: lru.NewCache[common.Hash, *types.Header](4096),
		refs:    lru.NewCache[uint64, blockRef](1 << 16),
		blocks:  newBlockCache(blockCacheBlocks, blockCacheBytes),
		prune:   opts.Prune,
		log:     opts.Log,

		compactAfter: compactThreshold,
	}
	s.config.Store(config)
	if s.log == nil {
		s.log = slog.Default()
	}
	s.trie = triedb.NewDatabase(recordingDB{Database: db, s: s}, &triedb.Config{Preimages: opts.Preimages, HashDB: &hashdb.Config{CleanCacheSize: opts.TrieCacheMB << 20}})
	s.state = state.NewMPTDatabase(s.trie, state.NewCodeDB(db))
	s.states = newStateCache(s.state, stateCacheRoots)
	if hash := rawdb.ReadHeadBlockHash(db); hash != (common.Hash{}) {
		num, ok := rawdb.ReadHeaderNumber(db, hash)
		if !ok {
			s.Close()
			return nil, fmt.Errorf("corrupt database: head block %x has no number", hash)
		}
		head := rawdb.ReadHeader(db, hash, num)
		if head == nil {
			s.Close()
			return nil, fmt.Errorf("corrupt database: head block %x (#%d) missing", hash, num)
		}
		s.head.Store(head)
	}
	if err := s.loadRestored(); err != nil { // statesync.go
		s.Close()
		return nil, err
	}
	s.loadPruning()
	return s, nil
}

// Close ends a sweep in progress, then flushes and closes the database.
func (s *Store) Close() error {
	s.stopPruner()
	return errors.Join(s.trie.Close(), s.kv.Close())
}

// Config is the chain configuration of the head: the one the store was
// opened with until the app sets the schedule the head state records.
// Readers get one immutable config; a swap never changes one in their hands.
func (s *Store) Config() *params.ChainConfig { return s.config.Load() }

// SetConfig makes cfg the chain configuration every reader gets from now
// on. The app calls it when a block it commits (or the state it starts or
// is restored on) records a new fork schedule; cfg must not be changed
// afterwards.
func (s *Store) SetConfig(cfg *params.ChainConfig) { s.config.Store(cfg) }

// Head is the last durable block's header, or nil before genesis.
func (s *Store) Head() *types.Header { return s.head.Load() }

// InitGenesis writes the genesis block and state. Writing the same genesis
// again is harmless, which is what CometBFT's handshake may ask after a crash
// between InitChain and the first commit.
func (s *Store) InitGenesis(g *core.Genesis) (*types.Block, error) {
	s.pruneMu.Lock()
	block, err := g.Commit(s.db, s.trie, nil)
	if err == nil {
		s.flushed = block.Root()
	}
	s.pruneMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("commit genesis: %w", err)
	}
	if err := s.kv.SyncKeyValue(); err != nil {
		return nil, err
	}
	s.setHead(block.Header())
	return block, nil
}

// CommitBlock makes block durable: first its state trie (which the caller has
// already committed into the trie database), then in one synced batch its
// header, body, receipts, tx lookups, log index, CometBFT hash mapping and
// the new head. calls, when given, are the internal call frames of each
// transaction (see callframe.Frame), written in the same batch.
// A crash between the two leaves the previous head intact.
func (s *Store) CommitBlock(block *types.Block, receipts types.Receipts, cometHash []byte, calls ...[]callframe.Frame) error {
	return s.CommitBlockNative(block, receipts, cometHash, nil, calls...)
}

// CommitBlockNative is CommitBlock for a block whose CometBFT block also
// held native transactions: their results are written in the same batch.
func (s *Store) CommitBlockNative(block *types.Block, receipts types.Receipts, cometHash []byte, native []NativeTx, calls ...[]callframe.Frame) error {
	if err := s.FlushState(block.Root()); err != nil {
		return fmt.Errorf("block %d: %w", block.NumberU64(), err)
	}
	batch := s.db.NewBatch()
	hash, number := block.Hash(), block.NumberU64()
	if err := writeBlockData(batch, block, receipts, cometHash, native, calls); err != nil {
		return err
	}
	rawdb.WriteHeadHeaderHash(batch, hash)
	rawdb.WriteHeadBlockHash(batch, hash)
	if err := batch.Write(); err != nil {
		return fmt.Errorf("write block %d: %w", number, err)
	}
	if !s.noSync {
		if err := s.kv.SyncKeyValue(); err != nil {
			return fmt.Errorf("sync block %d: %w", number, err)
		}
	}
	s.setHead(block.Header())
	s.wakePruner()
	return nil
}

// FlushState writes the trie nodes of root, a state committed to the trie
// database (StateDB.Commit) but not yet on disk; CommitBlock does it first
// unless it was done already. The app calls it at the end of FinalizeBlock:
// CometBFT holds its mempool lock across the app's Commit, so admission
// stops while Commit runs, and the trie write was most of Commit. Nodes
// written for a block whose CommitBlock never comes (a crash in between)
// are unreachable garbage: the head still names the parent, CometBFT
// replays the block, and a prune sweep removes them.
func (s *Store) FlushState(root common.Hash) error {
	s.pruneMu.Lock() // see prune.go
	defer s.pruneMu.Unlock()
	if root == s.flushed {
		return nil
	}
	if err := s.trie.Commit(root, false); err != nil {
		return fmt.Errorf("commit state %x: %w", root, err)
	}
	s.flushed = root
	return nil
}

// writeBlockData writes everything the store keeps of one block but its
// state and the head pointers: header, body, receipts, canonical hash, tx
// lookups, CometBFT hash, senders, native txs, internal calls and log index.
func writeBlockData(batch ethdb.Batch, block *types.Block, receipts types.Receipts, cometHash []byte, native []NativeTx, calls [][]callframe.Frame) error {
	hash, number := block.Hash(), block.NumberU64()
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, hash, number, receipts)
	rawdb.WriteCanonicalHash(batch, hash, number)
	rawdb.WriteTxLookupEntriesByBlock(batch, block)
	writeCometHash(batch, number, cometHash)
	if err := writeSenders(batch, block); err != nil {
		return fmt.Errorf("senders of block %d: %w", number, err)
	}
	if err := writeInternalCalls(batch, number, calls); err != nil {
		return fmt.Errorf("internal calls of block %d: %w", number, err)
	}
	if err := writeNativeTxs(batch, number, native); err != nil {
		return fmt.Errorf("native transactions of block %d: %w", number, err)
	}
	if err := writeLogIndex(batch, number, receipts); err != nil {
		return fmt.Errorf("index logs of block %d: %w", number, err)
	}
	return nil
}

func (s *Store) setHead(h *types.Header) {
	hash := h.Hash()
	s.headers.Add(hash, h)
	s.refs.Add(h.Number.Uint64(), blockRef{hash: hash, time: h.Time})
	s.head.Store(h)
}

// StateAt opens the state with the given root for reading or for executing on
// top of it.
func (s *Store) StateAt(root common.Hash) (*state.StateDB, error) {
	return state.New(root, s.state)
}

// CachedStateAt is StateAt for reads and calls that are never committed (the
// RPC's): every StateDB opened at the same root reads through one shared
// reader, which keeps the accounts, storage slots and trie nodes earlier
// requests read (see stateCache).
func (s *Store) CachedStateAt(root common.Hash) (*state.StateDB, error) {
	r, err := s.states.reader(root)
	if err != nil {
		return nil, err
	}
	return state.NewWithReader(root, s.state, r)
}

// AccountAt reads one account of the state with the given root through
// the shared reader CachedStateAt uses, without opening a StateDB: for the
// balance and nonce reads clients make most. nil means no such account.
func (s *Store) AccountAt(root common.Hash, addr common.Address) (*types.StateAccount, error) {
	r, err := s.states.reader(root)
	if err != nil {
		return nil, err
	}
	return r.Account(addr)
}

// HasState reports whether the state with the given root is on disk or in
// memory.
func (s *Store) HasState(root common.Hash) bool {
	_, err := s.state.Reader(root)
	return err == nil
}
