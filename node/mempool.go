package node

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/crypto"
	"github.com/cometbft/cometbft/mempool"
	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/txpool"
)

// startMempoolWorker wires the app's mempool hooks to mp; call before
// CometBFT starts.
func (n *Node) startMempoolWorker(mp mempool.Mempool) {
	n.mempool = newMempoolWorker(mp, n.promotable, n.log.With("module", "txpool"))
	n.app.SetMempoolHooks(n.mempool.hooks())
	go n.mempool.run()
}

// promotable lists the queued transactions whose gap the durable state or
// the pending run has filled.
func (n *Node) promotable() []*txpool.Tx {
	st, err := n.store.CachedStateAt(n.store.Head().Root)
	if err != nil {
		return nil
	}
	return n.pool.Promotable(st.GetNonce)
}

// mempoolWorker makes the changes to CometBFT's mempool that the app asks
// for from inside ABCI calls, where they would deadlock (CheckTx runs under
// the mempool's lock and the local client's): it removes displaced
// transactions and resubmits promotable queued ones through CheckTx, which
// moves them into the mempool.
type mempoolWorker struct {
	mp         mempool.Mempool
	promotable func() []*txpool.Tx
	log        *slog.Logger

	mu      sync.Mutex
	remove  []*txpool.Tx // displaced pending txs to take out
	promote bool         // resubmit the promotable queued txs
	wakeTx  []byte       // a pending tx to resubmit, to start a block (app/local.go)

	wake    chan struct{} // capacity 1: requests coalesce
	quit    chan struct{}
	stopped chan struct{}
}

func newMempoolWorker(mp mempool.Mempool, promotable func() []*txpool.Tx, log *slog.Logger) *mempoolWorker {
	return &mempoolWorker{mp: mp, promotable: promotable, log: log,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), stopped: make(chan struct{})}
}

func (w *mempoolWorker) hooks() app.MempoolHooks {
	return app.MempoolHooks{Remove: w.queueRemove, Promote: w.queuePromote, Wake: w.queueWake}
}

// queueWake asks for raw, a pending transaction the app holds, to be
// resubmitted into CometBFT's mempool so that CometBFT starts a block.
func (w *mempoolWorker) queueWake(raw []byte) {
	w.mu.Lock()
	w.wakeTx = raw
	w.mu.Unlock()
	w.signal()
}

func (w *mempoolWorker) queueRemove(txs []*txpool.Tx) {
	w.mu.Lock()
	w.remove = append(w.remove, txs...)
	w.mu.Unlock()
	w.signal()
}

func (w *mempoolWorker) queuePromote() {
	w.mu.Lock()
	w.promote = true
	w.mu.Unlock()
	w.signal()
}

func (w *mempoolWorker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *mempoolWorker) run() {
	defer close(w.stopped)
	for {
		select {
		case <-w.wake:
			w.work()
		case <-w.quit:
			return
		}
	}
}

// stop ends the worker; requests made later are dropped.
func (w *mempoolWorker) stop() {
	close(w.quit)
	<-w.stopped
}

func (w *mempoolWorker) work() {
	w.mu.Lock()
	remove, promote, wakeTx := w.remove, w.promote, w.wakeTx
	w.remove, w.promote, w.wakeTx = nil, false, nil
	w.mu.Unlock()
	if wakeTx != nil {
		if err := w.mp.CheckTx(wakeTx, nil, mempool.TxInfo{}); err != nil {
			w.log.Debug("wake CometBFT", "err", err)
		}
	}
	if len(remove) > 0 {
		// Under the mempool's update lock, as CometBFT's own removals run.
		w.mp.Lock()
		for _, tx := range remove {
			_ = w.mp.RemoveTxByKey(cmttypes.TxKey(tx.Key)) // gone already: fine
		}
		w.mp.Unlock()
	}
	if promote {
		w.resubmit()
	}
}

// resubmit sends each promotable queued tx through CheckTx; the app
// promotes those still executable.
func (w *mempoolWorker) resubmit() {
	for _, tx := range w.promotable() {
		select {
		case <-w.quit:
			return
		default:
		}
		err := w.mp.CheckTx(tx.Raw, nil, mempool.TxInfo{})
		if err != nil && !errors.Is(err, mempool.ErrTxInCache) {
			w.log.Debug("promote queued transaction", "hash", tx.Hash, "err", err)
		}
	}
}

// admitsLocally tells whether transactions sent to this node skip
// CometBFT's mempool (app/local.go): on a dev chain whose only validator is
// this node and whose CometBFT waits for transactions to make a block (an
// --empty-block-interval only bounds the wait). Elsewhere the mempool is
// what carries them to a proposer, or blocks come on a clock and CometBFT's
// mempool is where they wait for it, as num_unconfirmed_txs shows.
func (n *Node) admitsLocally(pub crypto.PubKey) bool {
	if !n.state.Dev || !n.cmtCfg.Consensus.WaitForTxs() {
		return false
	}
	if vals := n.genesis.Validators; len(vals) > 0 {
		return len(vals) == 1 && vals[0].PubKey.Equals(pub)
	}
	if n.state.Staking == nil {
		return false
	}
	vals := n.state.Staking.Validators
	return len(vals) == 1 && bytes.Equal(vals[0].ConsensusPubKey, pub.Bytes())
}

// checkMempoolConfig refuses CometBFT mempool settings the app's pool cannot
// work with: its pending transactions live in the flood mempool, and the
// recheck after each block is how demoted and dropped ones leave it.
//
// Why not CometBFT v0.40's app-side mempool (mempool.type = "app", the app
// answering InsertTx/ReapTxs)? What it would remove costs little under
// in-order load: CometBFT's own share of CheckTx, its recheck and Update and
// the reap is small beside execution, and this worker only resubmits queued
// transactions whose nonce gap filled. Against that, v0.40 brings a large
// dependency tree and a consensus-engine upgrade. Worth revisiting for
// workloads heavy in nonce gaps, where each promotion is a CheckTx round trip.
// Where it mattered, on `emberd dev`, v0.38 allows the same without it:
// transactions sent to the node skip the mempool and proposals take them
// from the pool (app/local.go).
func checkMempoolConfig(cc *cmtcfg.Config) error {
	if cc.Mempool.Type != cmtcfg.MempoolTypeFlood {
		return fmt.Errorf("config.toml: mempool.type %q is not supported: Ember's pool needs %q", cc.Mempool.Type, cmtcfg.MempoolTypeFlood)
	}
	if !cc.Mempool.Recheck {
		return fmt.Errorf("config.toml: mempool.recheck must be true: Ember's pool takes demoted and dropped txs out of the mempool when CometBFT rechecks it")
	}
	return nil
}
