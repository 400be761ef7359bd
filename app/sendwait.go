package app

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// sendWaiters are the senders waiting, on a dev chain with automine on,
// for the block holding their EVM transaction: on Hardhat Network and
// anvil a send answers once its transaction is mined, and test suites
// read its receipt at once (hardhat-chai-matchers' .to.emit). Guarded by
// devState.mu, so that a wait starts either before the Commit that
// includes the transaction (which then wakes it) or after it (the store
// then holds the transaction).
type sendWaiters map[common.Hash][]chan struct{}

// WaitIncluded returns a channel closed once a committed block holds the
// EVM transaction hash and the chain is settled after it (its proof block
// committed, as for a dev transaction's caller), or once the transaction
// is no longer in the pool without being included (dropped, replaced,
// evicted, or the chain reverted): the caller reads the store to tell.
// forget stops the wait. ok is false on a chain that is not a dev chain
// and while automine is off (the transaction waits for a mining call).
func (a *App) WaitIncluded(hash common.Hash) (done <-chan struct{}, forget func(), ok bool) {
	dc := a.dev
	if dc == nil || dc.holding() {
		return nil, nil, false
	}
	d := &dc.state
	ch := make(chan struct{})
	d.mu.Lock()
	defer d.mu.Unlock()
	tx, loc := a.store.Transaction(hash)
	switch {
	// Committed, its senders woken, before the wait began (woken is 0 from
	// the start and after a revert until the next block is committed).
	case tx != nil && (d.woken == 0 || loc.BlockNumber <= d.woken):
		if d.proofNext {
			d.afterNext = append(d.afterNext, ch)
		} else {
			close(ch)
		}
		return ch, func() {}, true
	case tx == nil && a.pool.ByHash(hash) == nil:
		close(ch)
		return ch, func() {}, true
	}
	if d.sends == nil {
		d.sends = make(sendWaiters)
	}
	d.sends[hash] = append(d.sends[hash], ch)
	return ch, func() { dc.forgetSend(hash, ch) }, true
}

// forgetSend drops ch from hash's waiters (the caller stopped waiting).
func (dc *devChain) forgetSend(hash common.Hash, ch chan struct{}) {
	d := &dc.state
	d.mu.Lock()
	defer d.mu.Unlock()
	list := d.sends[hash]
	for i, c := range list {
		if c == ch {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(d.sends, hash)
	} else {
		d.sends[hash] = list
	}
}

// sendsCommitted wakes the senders of the block's transactions (after its
// proof block when it changed the state), and those whose transaction
// left the pool unmined. Caller holds d.mu, after the pool's reset.
func (dc *devChain) sendsCommitted(block *types.Block, changedState bool) {
	d := &dc.state
	d.woken = block.NumberU64()
	if len(d.sends) == 0 {
		return
	}
	for _, tx := range block.Transactions() {
		h := tx.Hash()
		for _, ch := range d.sends[h] {
			if changedState {
				d.afterNext = append(d.afterNext, ch)
			} else {
				close(ch)
			}
		}
		delete(d.sends, h)
	}
	dc.releaseUnpooled()
	dc.releaseUnderpriced(block.BaseFee())
}

// releaseUnderpriced wakes the senders whose pooled transaction's fee cap
// is under the committed block's base fee: it waits for the base fee to
// fall (as in geth's pool), which may take any time, so its send answers
// now, as at admission. Caller holds d.mu.
func (dc *devChain) releaseUnderpriced(baseFee *big.Int) {
	d := &dc.state
	if baseFee == nil {
		return
	}
	for h, list := range d.sends {
		ptx := dc.a.pool.ByHash(h)
		if ptx == nil || ptx.EVM() == nil || ptx.EVM().GasFeeCap().Cmp(baseFee) >= 0 {
			continue
		}
		for _, ch := range list {
			close(ch)
		}
		delete(d.sends, h)
	}
}

// releaseUnpooled wakes the senders whose transaction is no longer pooled.
// Caller holds d.mu.
func (dc *devChain) releaseUnpooled() {
	d := &dc.state
	for h, list := range d.sends {
		if dc.a.pool.ByHash(h) != nil {
			continue
		}
		for _, ch := range list {
			close(ch)
		}
		delete(d.sends, h)
	}
}

// ReleaseUnpooled wakes the senders whose transaction left the pool
// outside a block (hardhat_dropTransaction). Dev chains only.
func (a *App) ReleaseUnpooled() {
	if a.dev == nil {
		return
	}
	d := &a.dev.state
	d.mu.Lock()
	defer d.mu.Unlock()
	a.dev.releaseUnpooled()
}

// releaseSends wakes every sender (evm_revert: what the pool holds is
// no longer what the senders sent into). Caller holds d.mu.
func (dc *devChain) releaseSends() {
	d := &dc.state
	for h, list := range d.sends {
		for _, ch := range list {
			close(ch)
		}
		delete(d.sends, h)
	}
}
