// Package txpool is the application's view of the transactions waiting in
// CometBFT's mempool: indexed by sender and nonce so that CheckTx can check
// nonces and overdrafts against what is already pending, the JSON-RPC layer
// can answer "pending" queries, and block proposals can be ordered by nonce
// and tip. CometBFT's mempool still stores and gossips the bytes; this pool
// holds the decoded transactions (with their senders recovered once).
package txpool

import (
	"crypto/sha256"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Key identifies a transaction in CometBFT's mempool: sha256 of its bytes.
type Key [sha256.Size]byte

// KeyOf returns the mempool key of raw transaction bytes.
func KeyOf(raw []byte) Key { return sha256.Sum256(raw) }

// Tx is a pooled transaction.
type Tx struct {
	Tx     *types.Transaction
	Sender common.Address
	Key    Key
}

// Pool is safe for concurrent use.
type Pool struct {
	mu      sync.RWMutex
	byKey   map[Key]*Tx
	byHash  map[common.Hash]*Tx
	senders map[common.Address]map[uint64]*Tx // sender -> nonce -> tx
}

// New returns an empty pool.
func New() *Pool {
	return &Pool{
		byKey:   make(map[Key]*Tx),
		byHash:  make(map[common.Hash]*Tx),
		senders: make(map[common.Address]map[uint64]*Tx),
	}
}

// Add records a transaction accepted into the mempool.
func (p *Pool) Add(tx *Tx) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byKey[tx.Key] = tx
	p.byHash[tx.Tx.Hash()] = tx
	byNonce := p.senders[tx.Sender]
	if byNonce == nil {
		byNonce = make(map[uint64]*Tx)
		p.senders[tx.Sender] = byNonce
	}
	byNonce[tx.Tx.Nonce()] = tx
}

// Remove forgets the transaction with the given mempool key, if pooled.
func (p *Pool) Remove(key Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.removeLocked(key)
}

// RemoveAll forgets every transaction whose raw bytes are given, as CometBFT
// drops a committed block's transactions from its mempool.
func (p *Pool) RemoveAll(raws [][]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, raw := range raws {
		p.removeLocked(KeyOf(raw))
	}
}

func (p *Pool) removeLocked(key Key) {
	tx, ok := p.byKey[key]
	if !ok {
		return
	}
	delete(p.byKey, key)
	delete(p.byHash, tx.Tx.Hash())
	byNonce := p.senders[tx.Sender]
	if byNonce[tx.Tx.Nonce()] == tx {
		delete(byNonce, tx.Tx.Nonce())
		if len(byNonce) == 0 {
			delete(p.senders, tx.Sender)
		}
	}
}

// Get returns the pooled transaction with the given mempool key.
func (p *Pool) Get(key Key) *Tx {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.byKey[key]
}

// ByHash returns the pooled transaction with the given EVM hash.
func (p *Pool) ByHash(hash common.Hash) *Tx {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.byHash[hash]
}

// ByNonce returns the pooled transaction of sender with nonce, if any.
func (p *Pool) ByNonce(sender common.Address, nonce uint64) *Tx {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.senders[sender][nonce]
}

// PendingNonce is the next nonce sender can use given its nonce in the
// latest state: the first gap in its pooled nonces at or after stateNonce.
func (p *Pool) PendingNonce(sender common.Address, stateNonce uint64) uint64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	byNonce := p.senders[sender]
	n := stateNonce
	for byNonce[n] != nil {
		n++
	}
	return n
}

// Spent is the total worst-case cost (gas × fee cap + value) of sender's
// pooled transactions, for overdraft checks.
func (p *Pool) Spent(sender common.Address) *big.Int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	total := new(big.Int)
	for _, tx := range p.senders[sender] {
		total.Add(total, tx.Tx.Cost())
	}
	return total
}

// Len is the number of pooled transactions.
func (p *Pool) Len() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.byKey)
}
