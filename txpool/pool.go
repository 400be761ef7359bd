// Package txpool is the application's transaction pool, as geth's legacy
// pool keeps one: per sender, pending transactions (a run of consecutive
// nonces from the sender's state nonce, executable now) and queued ones
// (after a nonce gap, waiting for it to fill). Replacement needs a price
// bump, per-account and global limits evict the cheapest, and a reset after
// each block drops what the new state invalidated.
//
// Pending transactions are exactly those CometBFT's mempool holds (it stores
// and gossips their bytes); queued ones live here only, so a transaction that
// cannot be included never makes CometBFT propose a block. The pool decides
// statuses, the application tells CometBFT (see app/checktx.go): a status
// only becomes Pending through an answer to CheckTx.
//
// A dev chain that makes blocks on demand proposes straight from the pool
// (ProposeFromPool, app/local.go): there, pending transactions sent to this
// node skip CometBFT's mempool.
package txpool

import (
	"crypto/sha256"
	"math/big"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Key identifies a transaction in CometBFT's mempool: sha256 of its bytes.
type Key [sha256.Size]byte

// KeyOf returns the mempool key of raw transaction bytes.
func KeyOf(raw []byte) Key { return sha256.Sum256(raw) }

// Status is where a pooled transaction waits.
type Status uint8

const (
	Unknown Status = iota // not in the pool
	Pending               // executable; in CometBFT's mempool
	Queued                // behind a nonce gap; held by the pool only
)

// Item is what the pool reads of a transaction, whatever its kind: an EVM
// *types.Transaction satisfies it, and so does the app's view of a native
// one. The pool orders, replaces and evicts by these alone.
type Item interface {
	Nonce() uint64       // the sender's sequence it uses
	Gas() uint64         // gas limit
	GasFeeCap() *big.Int // the most it pays per gas, base fee included
	GasTipCap() *big.Int // the most of that the block's proposer gets
	Cost() *big.Int      // the most it can take from the sender: gas × fee cap + value
}

// Tx is a pooled transaction: an Item, its sender (recovered once, at
// admission) and the bytes CometBFT knows it by.
type Tx struct {
	Item   Item
	Sender common.Address
	Key    Key
	Raw    []byte      // the bytes CometBFT knows it by, to resubmit a queued tx
	Hash   common.Hash // the EVM hash; zero for another kind of transaction
	cost   *big.Int    // Item.Cost(), computed once
	status Status      // guarded by the pool's lock
	// seen is the pool's height when CheckTx last answered for this tx (a
	// pending one is rechecked after every block while CometBFT holds it).
	seen uint64
}

// NewTx wraps item, sent by sender, whose bytes are raw with mempool key
// key. An EVM transaction (*types.Transaction) is indexed by its hash too
// and listed by Content; other kinds only count for the sender's pending
// nonce and spending.
func NewTx(item Item, sender common.Address, key Key, raw []byte) *Tx {
	tx := &Tx{Item: item, Sender: sender, Key: key, Raw: raw, cost: item.Cost()}
	if evm, ok := item.(*types.Transaction); ok {
		tx.Hash = evm.Hash()
	}
	return tx
}

// EVM is the Ethereum transaction, nil for another kind.
func (t *Tx) EVM() *types.Transaction {
	evm, _ := t.Item.(*types.Transaction)
	return evm
}

// Cost is Item.Cost().
func (t *Tx) Cost() *big.Int { return t.cost }

// account is one sender's transactions: txs sorted by nonce, the first
// `pending` of them the executable run (consecutive nonces from the state
// nonce), the rest queued (every queued nonce is above the run).
type account struct {
	txs      []*Tx
	pending  int
	spent    *big.Int  // total cost of the pending run
	lastSeen time.Time // last admission, for the queued lifetime
}

// Pool is safe for concurrent use.
type Pool struct {
	cfg Config
	now func() time.Time // the clock (tests replace it)

	mu       sync.RWMutex
	byKey    map[Key]*Tx
	byHash   map[common.Hash]*Tx
	accounts map[common.Address]*account
	pending  int    // pending txs in all accounts
	queued   int    // queued txs in all accounts
	height   uint64 // of the last Reset
	evicted  uint64 // txs dropped for room or for the queued lifetime, since New
	fromPool bool   // proposals take the pending txs from here (ProposeFromPool)
}

// New returns an empty pool with cfg's limits (zero fields take defaults).
func New(cfg Config) *Pool {
	return &Pool{
		cfg:      cfg.withDefaults(),
		now:      time.Now,
		byKey:    make(map[Key]*Tx),
		byHash:   make(map[common.Hash]*Tx),
		accounts: make(map[common.Address]*account),
	}
}

// ProposeFromPool tells the pool that block proposals take its pending
// transactions from it, not from CometBFT's mempool, which may never hold
// them: Reset then keeps pending those CometBFT did not recheck. Call it
// before the first transaction.
func (p *Pool) ProposeFromPool() {
	p.mu.Lock()
	p.fromPool = true
	p.mu.Unlock()
}

// Config returns the pool's limits.
func (p *Pool) Config() Config { return p.cfg }

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

// Seen records that CometBFT's mempool holds the pending tx with key (its
// recheck answered for it).
func (p *Pool) Seen(key Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if tx := p.byKey[key]; tx != nil {
		tx.seen = p.height
	}
}

// ByNonce returns sender's pooled transaction with nonce, if any.
func (p *Pool) ByNonce(sender common.Address, nonce uint64) *Tx {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if acc := p.accounts[sender]; acc != nil {
		if i, ok := acc.find(nonce); ok {
			return acc.txs[i]
		}
	}
	return nil
}

// StatusOf tells where the transaction with the given key waits.
func (p *Pool) StatusOf(key Key) Status {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if tx := p.byKey[key]; tx != nil {
		return tx.status
	}
	return Unknown
}

// PendingNonce is the next nonce sender can use given its nonce in the
// latest state: the first nonce at or after stateNonce the pool holds no
// transaction for (pending or queued).
func (p *Pool) PendingNonce(sender common.Address, stateNonce uint64) uint64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	n := stateNonce
	if acc := p.accounts[sender]; acc != nil {
		for _, tx := range acc.txs {
			if tx.Item.Nonce() > n {
				break
			}
			if tx.Item.Nonce() == n {
				n++
			}
		}
	}
	return n
}

// Spent is the total worst-case cost (gas × fee cap + value) of sender's
// pending transactions, for overdraft checks (geth counts pending only).
func (p *Pool) Spent(sender common.Address) *big.Int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if acc := p.accounts[sender]; acc != nil && acc.spent != nil {
		return new(big.Int).Set(acc.spent)
	}
	return new(big.Int)
}

// PendingCost is the cost of sender's pending transaction with nonce, or nil.
func (p *Pool) PendingCost(sender common.Address, nonce uint64) *big.Int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if acc := p.accounts[sender]; acc != nil {
		if i, ok := acc.find(nonce); ok && i < acc.pending {
			return acc.txs[i].cost
		}
	}
	return nil
}

// Len is the number of pooled transactions.
func (p *Pool) Len() int {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.byKey)
}

// Stats is the number of pending and of queued transactions.
func (p *Pool) Stats() (pending, queued int) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.pending, p.queued
}

// Evicted is how many transactions the pool has dropped to make room for
// better-paying ones or because their queued lifetime ran out (not those
// included or made invalid by a block).
func (p *Pool) Evicted() uint64 {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.evicted
}

// Content is every pooled transaction by sender, each list in nonce order.
func (p *Pool) Content() (pending, queued map[common.Address][]*types.Transaction) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	pending = make(map[common.Address][]*types.Transaction)
	queued = make(map[common.Address][]*types.Transaction)
	for addr, acc := range p.accounts {
		pend, queue := acc.split()
		if len(pend) > 0 {
			pending[addr] = pend
		}
		if len(queue) > 0 {
			queued[addr] = queue
		}
	}
	return pending, queued
}

// Pending is every pending transaction, each sender's in nonce order.
func (p *Pool) Pending() []*Tx {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]*Tx, 0, p.pending)
	for _, acc := range p.accounts {
		out = append(out, acc.txs[:acc.pending]...)
	}
	return out
}

// Raws is the bytes of every pooled transaction, of any kind, each
// sender's in nonce order: what a journal keeps to admit them again.
func (p *Pool) Raws() [][]byte {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([][]byte, 0, len(p.byKey))
	for _, acc := range p.accounts {
		for _, tx := range acc.txs {
			out = append(out, tx.Raw)
		}
	}
	return out
}

// ContentFrom is sender's pending and queued transactions in nonce order.
func (p *Pool) ContentFrom(sender common.Address) (pending, queued []*types.Transaction) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if acc := p.accounts[sender]; acc != nil {
		return acc.split()
	}
	return nil, nil
}

// Promotable lists the queued transactions that could now join their
// sender's pending run, in nonce order per sender. nonceOf gives the state
// nonces; the caller resubmits each through CheckTx, which decides.
func (p *Pool) Promotable(nonceOf func(common.Address) uint64) []*Tx {
	p.mu.RLock()
	defer p.mu.RUnlock()
	var out []*Tx
	for addr, acc := range p.accounts {
		if acc.pending == len(acc.txs) {
			continue
		}
		next := acc.nextPending(nonceOf(addr))
		for _, tx := range acc.txs[acc.pending:] {
			if tx.Item.Nonce() != next {
				break
			}
			out = append(out, tx)
			next++
		}
	}
	return out
}

// Remove forgets the transaction with the given mempool key, if pooled. A
// pending run it breaks is repaired by the next Reset.
func (p *Pool) Remove(key Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if tx := p.byKey[key]; tx != nil {
		p.drop(tx)
	}
}

// RemoveAll forgets every transaction whose raw bytes are given, as CometBFT
// drops a committed block's transactions from its mempool.
func (p *Pool) RemoveAll(raws [][]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, raw := range raws {
		if tx := p.byKey[KeyOf(raw)]; tx != nil {
			p.drop(tx)
		}
	}
}

// drop removes tx from every index. Caller holds the lock.
func (p *Pool) drop(tx *Tx) {
	delete(p.byKey, tx.Key)
	delete(p.byHash, tx.Hash)
	acc := p.accounts[tx.Sender]
	i, ok := acc.find(tx.Item.Nonce())
	if !ok || acc.txs[i] != tx {
		return
	}
	acc.txs = append(acc.txs[:i], acc.txs[i+1:]...)
	p.count(tx.status, -1)
	if i < acc.pending {
		acc.pending--
		acc.spend(tx, -1)
	}
	if len(acc.txs) == 0 {
		delete(p.accounts, tx.Sender)
	}
}

// spend adds sign × tx's cost to the account's pending spending.
func (acc *account) spend(tx *Tx, sign int) {
	if acc.spent == nil {
		acc.spent = new(big.Int)
	}
	if sign > 0 {
		acc.spent.Add(acc.spent, tx.cost)
	} else {
		acc.spent.Sub(acc.spent, tx.cost)
	}
}

// count adds delta to the total of status.
func (p *Pool) count(s Status, delta int) {
	if s == Pending {
		p.pending += delta
	} else {
		p.queued += delta
	}
}

// find is the index of nonce in acc.txs (or where it would go).
func (acc *account) find(nonce uint64) (int, bool) {
	i := sort.Search(len(acc.txs), func(i int) bool { return acc.txs[i].Item.Nonce() >= nonce })
	return i, i < len(acc.txs) && acc.txs[i].Item.Nonce() == nonce
}

// nextPending is the nonce that would extend the pending run.
func (acc *account) nextPending(stateNonce uint64) uint64 {
	if acc.pending == 0 {
		return stateNonce
	}
	return acc.txs[acc.pending-1].Item.Nonce() + 1
}

// split copies the pending and the queued transactions.
func (acc *account) split() (pending, queued []*types.Transaction) {
	for i, tx := range acc.txs {
		evm := tx.EVM()
		if evm == nil {
			continue
		}
		if i < acc.pending {
			pending = append(pending, evm)
		} else {
			queued = append(queued, evm)
		}
	}
	return pending, queued
}
