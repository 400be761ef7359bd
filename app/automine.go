package app

import (
	"sync"
	"sync/atomic"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/emberchain/ember/devchain"
	pool "github.com/emberchain/ember/txpool"
)

// manualMining is a dev chain's evm_setAutomine(false): CometBFT makes a
// block as soon as its mempool holds a transaction, so while automine is
// off the pending transactions stay out of it, in the app's pool only
// (held: pending nonces, txpool_content and eth_getTransactionByHash see
// them), and a block that mines (evm_mine, anvil_mine) takes them from the
// pool, as anvil's next mined block does.
type manualMining struct {
	off  atomic.Bool // automine off
	mu   sync.Mutex
	held []pool.Key // admitted while off, in order; pruned as they leave the pool
}

// SetAutomine turns automine on or off (a dev chain's
// evm_setAutomine); it reports whether transactions are held (after
// turning it on, the next block takes them).
func (a *App) SetAutomine(on bool) (held bool) {
	d := a.dev
	if d == nil {
		return false
	}
	d.manual.off.Store(!on)
	d.manual.mu.Lock()
	defer d.manual.mu.Unlock()
	return len(d.manual.held) > 0
}

// Automine tells whether automine is on (anvil_getAutomine); it always is
// on a real chain.
func (a *App) Automine() bool { return !a.dev.holding() }

// holding tells whether automine is off, so admitted transactions are held.
func (d *devChain) holding() bool { return d != nil && d.manual.off.Load() }

// hold answers CheckTx for a transaction just admitted as pending while
// automine is off, or nil when automine is on.
func (d *devChain) hold(ptx *pool.Tx) *abci.ResponseCheckTx {
	if !d.holding() {
		return nil
	}
	d.manual.mu.Lock()
	d.manual.held = append(d.manual.held, ptx.Key)
	d.manual.mu.Unlock()
	return &abci.ResponseCheckTx{Code: CodeHeld, Codespace: Codespace, Log: "held: automine is off; the next evm_mine includes it"}
}

// heldFor lists the held transactions a proposal of the mempool's txs
// includes: all still pending, when automine is on again or the proposal
// mines (carries a dev transaction that edits no state); none otherwise.
func (d *devChain) heldFor(txs [][]byte) []*pool.Tx {
	if d == nil {
		return nil
	}
	m := &d.manual
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.held) == 0 || (m.off.Load() && !mines(txs)) {
		return nil
	}
	return d.pruneHeld()
}

// proposable is what a proposal takes when proposals take from the pool
// (local.go): every pending transaction, but, on a dev chain, those held
// while automine is off unless the proposal mines.
func (a *App) proposable(txs [][]byte) []*pool.Tx {
	return a.dev.withoutHeld(a.pool.Pending(), txs)
}

// withoutHeld is pending less the held transactions, unless automine is on
// again or the proposal of txs mines.
func (d *devChain) withoutHeld(pending []*pool.Tx, txs [][]byte) []*pool.Tx {
	if d == nil {
		return pending
	}
	m := &d.manual
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.held) == 0 {
		return pending
	}
	held := d.pruneHeld()
	if !m.off.Load() || mines(txs) {
		return pending
	}
	skip := make(map[pool.Key]bool, len(held))
	for _, ptx := range held {
		skip[ptx.Key] = true
	}
	out := pending[:0]
	for _, ptx := range pending {
		if !skip[ptx.Key] {
			out = append(out, ptx)
		}
	}
	return out
}

// pruneHeld drops the held transactions no longer pending from the list
// and returns the others, in order. Caller holds d.manual.mu.
func (d *devChain) pruneHeld() []*pool.Tx {
	m, p := &d.manual, d.a.pool
	out := make([]*pool.Tx, 0, len(m.held))
	kept := m.held[:0]
	for _, key := range m.held {
		if p.StatusOf(key) == pool.Pending {
			out = append(out, p.Get(key))
			kept = append(kept, key)
		}
	}
	m.held = kept
	return out
}

// mines tells whether txs hold a dev transaction asking for a block
// (evm_mine, anvil_mine: no state edit, no impersonated send).
func mines(txs [][]byte) bool {
	for _, raw := range txs {
		if !devchain.IsDev(raw) {
			continue
		}
		if tx, err := devchain.Decode(raw); err == nil && tx.Send == nil && !edits(tx.Ops) {
			return true
		}
	}
	return false
}

func edits(ops []devchain.Op) bool {
	for _, op := range ops {
		switch op.Kind {
		case devchain.SetBalance, devchain.SetCode, devchain.SetNonce, devchain.SetStorage:
			return true
		}
	}
	return false
}
