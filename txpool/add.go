package txpool

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/legacypool"

	"github.com/emberchain/ember/evm"
)

// Added reports what an admission changed.
type Added struct {
	// Status is where the new transaction waits.
	Status Status
	// Displaced are pending transactions that left the pool to make way
	// (the one replaced, or one evicted): CometBFT's mempool still holds
	// them until the caller removes them.
	Displaced []*Tx
	// Promotable is set when the sender has a queued transaction right
	// after its pending run, which a resubmission may now promote.
	Promotable bool
}

// Add admits tx, which the caller validated against the state (nonce not
// below stateNonce, funds, fee cap). It is pending when its nonce extends
// the sender's pending run, queued otherwise. A transaction with the nonce
// of a pooled one replaces it only with PriceBump percent more fee cap and
// tip. When the pending or the queued pool is full, the cheapest tail
// (highest nonce, so no gap opens) of another account makes way if tx pays
// more at baseFee, the next block's base fee.
func (p *Pool) Add(tx *Tx, stateNonce uint64, baseFee *big.Int) (Added, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byKey[tx.Key] != nil || (tx.Hash != (common.Hash{}) && p.byHash[tx.Hash] != nil) {
		return Added{}, gethpool.ErrAlreadyKnown
	}
	nonce := tx.Item.Nonce()
	if nonce < stateNonce {
		return Added{}, fmt.Errorf("%w: next nonce %v, tx nonce %v", core.ErrNonceTooLow, stateNonce, nonce)
	}
	acc := p.accounts[tx.Sender]
	if acc == nil {
		acc = &account{}
	}
	i, exists := acc.find(nonce)
	status := Queued
	if nonce <= acc.nextPending(stateNonce) {
		status = Pending
	}
	var old *Tx
	if exists {
		if old = acc.txs[i]; !bumped(old.Item, tx.Item, p.cfg.PriceBump) {
			return Added{}, gethpool.ErrReplaceUnderpriced
		}
	}
	var displaced []*Tx
	if old == nil || old.status != status {
		evicted, err := p.makeRoom(status, tx, acc, baseFee)
		if err != nil {
			return Added{}, err
		}
		displaced = evicted
	}
	if old != nil {
		p.unindex(old)
		if old.status == Pending {
			displaced = append(displaced, old)
			acc.spend(old, -1)
		}
		acc.txs[i] = tx
	} else {
		acc.txs = append(acc.txs[:i], append([]*Tx{tx}, acc.txs[i:]...)...)
	}
	p.place(acc, i, tx, status)
	return Added{Status: status, Displaced: displaced, Promotable: acc.promotable()}, nil
}

// Promote moves the queued transaction with key into its sender's pending
// run if its nonce extends the run, making room as Add does. A queued
// transaction that still waits for a gap answers "already known", as geth
// does to a resubmission.
func (p *Pool) Promote(key Key, stateNonce uint64, baseFee *big.Int) (Added, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	tx := p.byKey[key]
	if tx == nil || tx.status != Queued {
		return Added{}, gethpool.ErrAlreadyKnown
	}
	acc := p.accounts[tx.Sender]
	i := acc.pending
	if acc.txs[i] != tx || tx.Item.Nonce() != acc.nextPending(stateNonce) {
		return Added{}, gethpool.ErrAlreadyKnown
	}
	evicted, err := p.makeRoom(Pending, tx, acc, baseFee)
	if err != nil {
		return Added{}, err
	}
	p.count(Queued, -1)
	p.place(acc, i, tx, Pending)
	return Added{Status: Pending, Displaced: evicted, Promotable: acc.promotable()}, nil
}

// place records tx at index i of acc with status. Caller holds the lock.
func (p *Pool) place(acc *account, i int, tx *Tx, status Status) {
	tx.status = status
	tx.seen = p.height
	p.count(status, +1)
	if status == Pending {
		acc.spend(tx, +1)
		if i == acc.pending {
			acc.pending++
		}
	}
	acc.lastSeen = p.now()
	p.accounts[tx.Sender] = acc
	p.byKey[tx.Key] = tx
	if tx.Hash != (common.Hash{}) {
		p.byHash[tx.Hash] = tx
	}
}

// unindex forgets a replaced transaction (its slot is reused).
func (p *Pool) unindex(old *Tx) {
	delete(p.byKey, old.Key)
	delete(p.byHash, old.Hash)
	p.count(old.status, -1)
}

// promotable tells whether the first queued tx extends the pending run.
func (acc *account) promotable() bool {
	if acc.pending == 0 || acc.pending == len(acc.txs) {
		return false
	}
	return acc.txs[acc.pending].Item.Nonce() == acc.txs[acc.pending-1].Item.Nonce()+1
}

// makeRoom ensures one more transaction fits in the status part of the
// pool, evicting the cheapest tail of another account if tx pays more. It
// returns the evicted transaction when it was pending.
func (p *Pool) makeRoom(status Status, tx *Tx, acc *account, baseFee *big.Int) ([]*Tx, error) {
	limit, used := p.cfg.GlobalSlots, p.pending
	if status == Queued {
		if queued := len(acc.txs) - acc.pending; queued >= p.cfg.AccountQueue {
			return nil, fmt.Errorf("%w: %s has %d queued transactions (account-queue %d)", gethpool.ErrAccountLimitExceeded, tx.Sender.Hex(), queued, p.cfg.AccountQueue)
		}
		limit, used = p.cfg.GlobalQueue, p.queued
	}
	if used < limit {
		return nil, nil
	}
	victim := p.cheapestTail(status, tx.Sender, baseFee)
	if victim == nil {
		return nil, legacypool.ErrTxPoolOverflow
	}
	if comparePrice(tx.Item, victim.Item, baseFee) <= 0 {
		return nil, gethpool.ErrUnderpriced
	}
	p.drop(victim)
	p.evicted++
	if victim.status == Pending {
		return []*Tx{victim}, nil
	}
	return nil, nil
}

// cheapestTail is the cheapest last transaction of status among the
// accounts other than exclude. For pending, accounts holding more than
// AccountSlots pending transactions give theirs first.
func (p *Pool) cheapestTail(status Status, exclude common.Address, baseFee *big.Int) *Tx {
	var cheapest, cheapestOver *Tx
	for addr, acc := range p.accounts {
		tail := acc.tail(status)
		if addr == exclude || tail == nil {
			continue
		}
		if cheapest == nil || comparePrice(tail.Item, cheapest.Item, baseFee) < 0 {
			cheapest = tail
		}
		over := status == Pending && acc.pending > p.cfg.AccountSlots
		if over && (cheapestOver == nil || comparePrice(tail.Item, cheapestOver.Item, baseFee) < 0) {
			cheapestOver = tail
		}
	}
	if cheapestOver != nil {
		return cheapestOver
	}
	return cheapest
}

// tail is the account's highest-nonce transaction of status, or nil.
func (acc *account) tail(status Status) *Tx {
	switch {
	case status == Pending && acc.pending > 0:
		return acc.txs[acc.pending-1]
	case status == Queued && acc.pending < len(acc.txs):
		return acc.txs[len(acc.txs)-1]
	}
	return nil
}

// comparePrice orders transactions by what they pay the proposer at
// baseFee: effective tip, then fee cap.
func comparePrice(a, b Item, baseFee *big.Int) int {
	if c := evm.EffectiveTip(a, baseFee).Cmp(evm.EffectiveTip(b, baseFee)); c != 0 {
		return c
	}
	return a.GasFeeCap().Cmp(b.GasFeeCap())
}

// bumped applies geth's replacement rule (legacypool list.Add): the new
// transaction must raise both the fee cap and the tip, each by at least
// bump percent.
func bumped(old, tx Item, bump uint64) bool {
	if old.GasFeeCap().Cmp(tx.GasFeeCap()) >= 0 || old.GasTipCap().Cmp(tx.GasTipCap()) >= 0 {
		return false
	}
	factor := new(big.Int).SetUint64(100 + bump)
	hundred := big.NewInt(100)
	feeCap := new(big.Int).Div(new(big.Int).Mul(factor, old.GasFeeCap()), hundred)
	tip := new(big.Int).Div(new(big.Int).Mul(factor, old.GasTipCap()), hundred)
	return tx.GasFeeCap().Cmp(feeCap) >= 0 && tx.GasTipCap().Cmp(tip) >= 0
}
