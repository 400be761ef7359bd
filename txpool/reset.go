package txpool

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// State is what Reset reads of the new head's state.
type State interface {
	GetNonce(common.Address) uint64
	GetBalance(common.Address) *uint256.Int
}

// Reset brings the pool in line with the head at height, as geth's pool
// does after each block: it drops the transactions whose nonce is used,
// whose cost exceeds their sender's balance or whose tip cap is below
// minTip, demotes the pending transactions left behind a gap, and drops the
// queued transactions of accounts that sent nothing for Lifetime. It never
// promotes: a transaction becomes pending only through CheckTx, so that
// CometBFT's mempool holds it.
//
// A pending transaction CometBFT did not recheck after the previous block is
// not in its mempool (CometBFT can still drop a tx CheckTx accepted, when its
// mempool is full): it is demoted too, so that a resubmission puts it back
// instead of it blocking its sender's later transactions forever. Unless
// proposals take them from the pool (ProposeFromPool): then CometBFT's
// mempool does not matter.
func (p *Pool) Reset(st State, minTip *big.Int, height uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now, prev := p.now(), p.height
	p.height = height
	for addr, acc := range p.accounts {
		expired := acc.pending < len(acc.txs) && now.Sub(acc.lastSeen) > p.cfg.Lifetime
		p.resetAccount(acc, st.GetNonce(addr), st.GetBalance(addr).ToBig(), minTip, prev, expired)
		if len(acc.txs) == 0 {
			delete(p.accounts, addr)
		}
	}
}

// resetAccount filters one account's transactions and recomputes its
// pending run: only transactions that were pending, were seen by CometBFT
// since the reset at height prev and still follow on from the state nonce
// without a gap stay pending.
func (p *Pool) resetAccount(acc *account, nonce uint64, balance, minTip *big.Int, prev uint64, expired bool) {
	kept := acc.txs[:0]
	run, next := 0, nonce
	for _, tx := range acc.txs {
		if !valid(tx, nonce, balance, minTip) {
			p.unindex(tx)
			continue
		}
		if expired && tx.status == Queued {
			p.unindex(tx)
			p.evicted++
			continue
		}
		if tx.status == Pending {
			if run == len(kept) && tx.Item.Nonce() == next && (p.fromPool || tx.seen >= prev) {
				run++
				next++
			} else {
				tx.status = Queued
				p.count(Pending, -1)
				p.count(Queued, +1)
			}
		}
		kept = append(kept, tx)
	}
	clear(acc.txs[len(kept):])
	acc.txs, acc.pending = kept, run
	acc.spent = new(big.Int)
	for _, tx := range kept[:run] {
		acc.spend(tx, +1)
	}
}

// valid tells whether tx can still be included at some point.
func valid(tx *Tx, nonce uint64, balance, minTip *big.Int) bool {
	if tx.Item.Nonce() < nonce || tx.cost.Cmp(balance) > 0 {
		return false
	}
	return minTip == nil || tx.Item.GasTipCap().Cmp(minTip) >= 0
}
