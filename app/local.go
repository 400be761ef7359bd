package app

import (
	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/emberchain/ember/devchain"
	"github.com/emberchain/ember/native"
	pool "github.com/emberchain/ember/txpool"
)

// Local admission: on a dev chain that makes blocks on demand (`emberd dev`:
// one validator, CometBFT waiting for transactions), a transaction sent to this node's
// JSON-RPC is admitted to the pool directly, not through CometBFT's mempool,
// and proposals take every pending transaction from the pool. CometBFT's
// mempool would only keep a second copy, paid for by its CheckTx, its
// update after each block and its recheck of what is left (issue 17;
// measured in bench/README.md).
//
// What CometBFT's mempool still does there is start blocks. After a block
// that changed the state, CometBFT makes the next one (its proof block,
// proofwait.go) without waiting for transactions, and that block takes what
// the pool holds. After one that did not, it waits for a transaction in its
// mempool: then the next transaction sent goes through it, and Commit
// resubmits one pending transaction the block did not take (admitted while
// it was made) through it, so that none waits for a block nobody starts.
type localAdmission struct {
	on bool // set before CometBFT starts
	// idle: CometBFT waits for a transaction in its mempool before it makes
	// the next block. Guarded by checkMu, as is wake.
	idle bool
	// wake is the pending transaction Commit resubmits to start a block:
	// CheckTx accepts it again, once, although the pool holds it.
	wake pool.Key
}

// AdmitLocally turns local admission on; call it before CometBFT starts,
// on a dev chain whose only validator this node is and whose CometBFT
// waits for transactions to make a block.
func (a *App) AdmitLocally() {
	a.local = localAdmission{on: true, idle: true}
	a.pool.ProposeFromPool()
}

// AdmitLocal runs CheckTx on a transaction sent to this node, without
// CometBFT's mempool, and reports whether it did. It does not (and the
// caller goes through CometBFT's mempool) when local admission is off, for
// native and dev transactions, while automine is off (the transaction is
// held, as CheckTx decides), and while CometBFT waits for a transaction to
// start a block. Call Precheck first.
func (a *App) AdmitLocal(raw []byte, key pool.Key) (*abci.ResponseCheckTx, bool, error) {
	if !a.local.on || a.dev.holding() || native.IsNative(raw) || devchain.IsDev(raw) || a.store.Head() == nil {
		return nil, false, nil
	}
	ptx, res := a.decodeUnpooled(raw, key)
	if res != nil {
		return res, true, nil
	}
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	if a.local.idle {
		return nil, false, nil
	}
	res, err := a.checkLocked(raw, key, ptx)
	return res, true, err
}

// localProposing notes that CometBFT is making a block: transactions
// admitted from now on are taken by it or by the block after it (see
// localCommitted). Caller holds checkMu.
func (a *App) localProposing() {
	a.local.idle, a.local.wake = false, pool.Key{}
}

// localCommitted decides, after the pool's reset, whether CometBFT's next
// block needs a transaction in its mempool to start: it does unless the
// block changed the state. Pending transactions admitted locally while the
// block was made would then wait for nobody: one of them is resubmitted to
// wake CometBFT. Caller holds checkMu.
func (a *App) localCommitted(changedState bool) {
	if !a.local.on {
		return
	}
	a.local.idle = !changedState
	if changedState || a.dev.holding() || a.hooks.Wake == nil {
		return
	}
	if ptx := a.proposable(nil); len(ptx) > 0 {
		a.local.wake = ptx[0].Key
		a.hooks.Wake(ptx[0].Raw)
	}
}

// woken answers CheckTx for the pending transaction Commit resubmitted to
// start a block (nil for any other). Caller holds checkMu.
func (a *App) woken(ptx *pool.Tx) *abci.ResponseCheckTx {
	if !a.local.on || ptx.Key != a.local.wake || a.pool.StatusOf(ptx.Key) != pool.Pending {
		return nil
	}
	a.local.wake = pool.Key{}
	return &abci.ResponseCheckTx{Code: CodeOK, GasWanted: int64(ptx.Item.Gas())}
}
