package store

import (
	"sync"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/lru"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// Read caches. Each is keyed by content that never changes once written (a
// block hash, a state root), so new blocks never make an entry stale: they
// only add new keys, and the least recently used entries fall out.

// blockCache holds decoded blocks by hash, bounded by their total encoded
// size and count. Serving a block from it skips the database read, the RLP
// decoding and the transaction hashing; the transactions also keep the
// senders recovered by earlier requests (types.Sender caches them in the tx).
// A cached *types.Block is shared: callers must not modify it, as with
// go-ethereum's own block caches.
type blockCache struct {
	mu       sync.Mutex
	lru      lru.BasicLRU[common.Hash, *types.Block]
	size     uint64 // encoded bytes of the cached blocks
	maxBytes uint64
}

func newBlockCache(maxBlocks int, maxBytes uint64) *blockCache {
	return &blockCache{lru: lru.NewBasicLRU[common.Hash, *types.Block](maxBlocks), maxBytes: maxBytes}
}

func (c *blockCache) get(hash common.Hash) (*types.Block, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Get(hash)
}

func (c *blockCache) add(hash common.Hash, b *types.Block) {
	size := b.Size() // computed outside the lock; cached in the block
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lru.Contains(hash) {
		return
	}
	if _, old, evicted := c.lru.Add3(hash, b); evicted {
		c.size -= old.Size()
	}
	c.size += size
	for c.size > c.maxBytes {
		_, old, ok := c.lru.RemoveOldest()
		if !ok {
			break
		}
		c.size -= old.Size()
	}
}

// stateCache keeps, for the few most recently read state roots, one shared
// reader each: its account trie (with the nodes earlier reads resolved) and
// the accounts and storage slots read so far. A state root names immutable
// content, so the cache is valid for as long as it is kept; a new block
// brings a new root and thus a fresh entry.
type stateCache struct {
	db      state.Database
	mu      sync.Mutex
	readers lru.BasicLRU[common.Hash, *cachedReader]
}

func newStateCache(db state.Database, roots int) *stateCache {
	return &stateCache{db: db, readers: lru.NewBasicLRU[common.Hash, *cachedReader](roots)}
}

func (c *stateCache) reader(root common.Hash) (state.Reader, error) {
	c.mu.Lock()
	r, ok := c.readers.Get(root)
	c.mu.Unlock()
	if ok && !r.full() {
		return r, nil
	}
	// A full reader is replaced rather than kept growing: the trie inside it
	// keeps every node any miss resolved.
	inner, err := c.db.Reader(root)
	if err != nil {
		return nil, err
	}
	fresh := &cachedReader{Reader: inner}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Concurrent first reads of a root may each build a reader; one is kept.
	if cur, ok := c.readers.Get(root); ok && !cur.full() {
		return cur, nil
	}
	c.readers.Add(root, fresh)
	return fresh, nil
}

// cachedEntriesPerRoot bounds the accounts and slots cached for one root.
// Past it the reader stops caching, and the next state opened at its root
// gets a fresh one, so a long-lived root (an idle chain's) does not grow its
// cache without bound.
const cachedEntriesPerRoot = 1 << 14

// cachedReader is a state.Reader for one root that remembers the accounts and
// storage slots it has returned. It is safe for concurrent use: the
// underlying trie reader locks, and the maps are sync.Maps (read-mostly).
// Contract code passes through to the code database, which has its own cache.
type cachedReader struct {
	state.Reader
	accounts sync.Map // common.Address -> *types.StateAccount (nil: no account)
	slots    sync.Map // slotKey -> common.Hash
	entries  atomic.Int64
}

func (r *cachedReader) full() bool { return r.entries.Load() >= cachedEntriesPerRoot }

type slotKey struct {
	addr common.Address
	slot common.Hash
}

// Account returns a copy: a state.Reader's caller may modify what it gets.
func (r *cachedReader) Account(addr common.Address) (*types.StateAccount, error) {
	if v, ok := r.accounts.Load(addr); ok {
		return copyAccount(v.(*types.StateAccount)), nil
	}
	acct, err := r.Reader.Account(addr)
	if err != nil {
		return nil, err
	}
	if !r.full() {
		if _, loaded := r.accounts.LoadOrStore(addr, copyAccount(acct)); !loaded {
			r.entries.Add(1)
		}
	}
	return acct, nil
}

func (r *cachedReader) Storage(addr common.Address, slot common.Hash) (common.Hash, error) {
	key := slotKey{addr, slot}
	if v, ok := r.slots.Load(key); ok {
		return v.(common.Hash), nil
	}
	value, err := r.Reader.Storage(addr, slot)
	if err != nil {
		return common.Hash{}, err
	}
	if !r.full() {
		if _, loaded := r.slots.LoadOrStore(key, value); !loaded {
			r.entries.Add(1)
		}
	}
	return value, nil
}

func copyAccount(a *types.StateAccount) *types.StateAccount {
	if a == nil {
		return nil
	}
	return a.Copy()
}

// purge empties the cache (after a rewind: reverted blocks).
func (c *blockCache) purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Purge()
	c.size = 0
}
