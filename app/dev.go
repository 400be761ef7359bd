package app

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"sync"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/devchain"
	pool "github.com/emberchain/ember/txpool"
	"github.com/emberchain/ember/txsender"
)

// devChain is what a development chain (genesis app_state.dev, made by
// `emberd dev`) adds to the ABCI app: dev transactions (package devchain)
// checked, proposed and executed, their callers woken once their block is
// committed, the clock and base-fee edits of the next block, automine
// (automine.go) and the proof-block wait (proofwait.go). The app holds one
// on a dev chain and nil on a real chain: every method of a nil *devChain
// answers as a real chain does, so the consensus code calls them without
// asking which chain it runs.
type devChain struct {
	a      *App
	state  devState     // queued edits and waiters
	manual manualMining // the automine switch (automine.go)
}

func newDevChain(a *App) *devChain { return &devChain{a: a} }

// devState is a dev chain's node-local side of the dev transactions: the
// clock and base-fee edits waiting for the next block (evm_increaseTime,
// evm_setNextBlockTimestamp and anvil_setNextBlockBaseFeePerGas make no
// block of their own: the next block, whatever makes it, carries them in a
// dev transaction its proposer adds), and the callers waiting for their dev
// transaction to be committed.
type devState struct {
	mu        sync.Mutex
	nextID    uint64
	queued    []devchain.Op // edits for the next block
	proposed  []byte        // the dev transaction of the last proposal carrying queued edits
	proposedN int           // how many queued edits it carries
	waiters   map[uint64]chan struct{}
	afterNext []chan struct{} // waiters released by the next commit
	// proofNext: the last block changed the state, so CometBFT's next one
	// is its proof block (proofwait.go). Unless it takes transactions, that
	// block does not carry the queued edits: nobody asked for it, and a
	// client's evm_setNextBlockTimestamp then evm_mine right after a
	// transaction would see its timestamp land on the proof block and the
	// mined block a second later.
	proofNext bool
	sends     sendWaiters // senders waiting for their transaction's block (sendwait.go)
	woken     uint64      // the last committed block whose senders were woken
}

// busy tells whether the next block has dev work: queued edits to
// propose, or callers waiting for it to be committed.
func (dc *devChain) busy() bool {
	d := &dc.state
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.queued) > 0 && !d.proofNext || len(d.afterNext) > 0
}

// errNotDev refuses dev transactions on chains not made by `emberd dev`.
var errNotDev = errors.New("dev transactions are only executed on development chains (made by `emberd dev`)")

// Dev tells whether the chain is a development chain (genesis app_state.dev).
func (a *App) Dev() bool { return a.dev != nil }

// NewDevTx returns the bytes of dev transaction tx (its ID set here), for
// the mempool, and a channel closed once a block holding it is committed;
// call ForgetDevTx(id) if the caller stops waiting. Dev chains only.
func (a *App) NewDevTx(tx devchain.Tx) (raw []byte, id uint64, done <-chan struct{}) {
	d := &a.dev.state
	d.mu.Lock()
	defer d.mu.Unlock()
	id = d.newID()
	ch := make(chan struct{})
	if d.waiters == nil {
		d.waiters = make(map[uint64]chan struct{})
	}
	d.waiters[id] = ch
	tx.ID = id
	return devchain.Encode(&tx), id, ch
}

// ForgetDevTx stops tracking dev transaction id.
func (a *App) ForgetDevTx(id uint64) {
	d := &a.dev.state
	d.mu.Lock()
	delete(d.waiters, id)
	d.mu.Unlock()
}

// newID is an id unused by this process: a random start (so a restarted
// node does not repeat bytes CometBFT's cache remembers) counted up.
// Caller holds mu.
func (d *devState) newID() uint64 {
	if d.nextID == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		d.nextID = binary.BigEndian.Uint64(b[:])>>1 | 1
	}
	d.nextID++
	return d.nextID
}

// Settled is closed once the chain is settled: at once, unless the last
// block changed the state, then when CometBFT's proof block after it is
// committed (only then do the head's number and its AppHash stop moving
// without a transaction). A real chain's is closed at once.
func (a *App) Settled() <-chan struct{} {
	ch := make(chan struct{})
	if a.dev == nil {
		close(ch)
		return ch
	}
	d := &a.dev.state
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.proofNext {
		close(ch)
		return ch
	}
	d.afterNext = append(d.afterNext, ch)
	return ch
}

// QueueDevOps keeps clock and base-fee edits for the next block. Dev
// chains only.
func (a *App) QueueDevOps(ops ...devchain.Op) {
	d := &a.dev.state
	d.mu.Lock()
	d.queued = append(d.queued, ops...)
	d.mu.Unlock()
}

// QueuedBaseFee is the base fee anvil_setNextBlockBaseFeePerGas queued
// for the next block, nil when none is: what the next block's base fee is
// (eth_sendTransaction fills its fee cap from it).
func (a *App) QueuedBaseFee() *big.Int {
	if a.dev == nil {
		return nil
	}
	d := &a.dev.state
	d.mu.Lock()
	defer d.mu.Unlock()
	var fee *big.Int
	for _, op := range d.queued {
		if op.Kind == devchain.SetBaseFee && op.BaseFee != nil {
			fee = new(big.Int).Set(op.BaseFee.ToInt())
		}
	}
	return fee
}

// QueuedTimeShift is the seconds the queued evm_increaseTime calls add to
// the clock offset (0 on a real chain).
func (a *App) QueuedTimeShift() int64 {
	if a.dev == nil {
		return 0
	}
	d := &a.dev.state
	d.mu.Lock()
	defer d.mu.Unlock()
	var s int64
	for _, op := range d.queued {
		if op.Kind == devchain.IncreaseTime {
			s += op.Seconds
		}
	}
	return s
}

// devProposal is what a dev chain's proposer adds to a block: a dev
// transaction with the queued edits, if any, and the first dev transaction
// of the mempool, if any. One mempool dev transaction per block, as each
// asked for a block of its own (anvil_mine of n blocks sends n). A proof
// block that takes no transactions (withTxs false, and no dev transaction
// in the mempool) leaves the queued edits to the block after it. A real
// chain's proposer adds nothing.
func (dc *devChain) proposal(mempool [][]byte, withTxs bool) [][]byte {
	if dc == nil {
		return nil
	}
	var mined []byte
	for _, raw := range mempool {
		if devchain.IsDev(raw) {
			mined = raw
			break
		}
	}
	var out [][]byte
	d := &dc.state
	d.mu.Lock()
	if len(d.queued) > 0 && (!d.proofNext || withTxs || mined != nil) {
		d.proposed = devchain.Encode(&devchain.Tx{ID: d.newID(), Ops: d.queued})
		d.proposedN = len(d.queued)
		out = append(out, d.proposed)
	}
	d.mu.Unlock()
	if mined != nil {
		out = append(out, mined)
	}
	return out
}

// check admits a well-formed dev transaction to the mempool of a dev
// chain (a real chain refuses it); the app's pool does not hold it.
func (d *devChain) check(raw []byte) *abci.ResponseCheckTx {
	if d == nil {
		return refusal(CodeDecode, errNotDev)
	}
	tx, err := devchain.Decode(raw)
	if err != nil {
		return refusal(CodeDecode, err)
	}
	if tx.Send != nil {
		if code, err := d.a.checkSend(tx.Send); err != nil {
			return refusal(code, err)
		}
	}
	return &abci.ResponseCheckTx{Code: CodeOK}
}

// checkSend runs on an impersonated transaction the checks an EVM
// transaction passes (go-ethereum's stateless rules, fee cap, balance), but
// with its nonce exactly the sender's next: it is not in the pool, and a
// gap would keep it from ever executing.
func (a *App) checkSend(s *devchain.Send) (uint32, error) {
	tx := s.Transaction()
	cfg := a.store.Config()
	opts := &txpool.ValidationOptions{Config: cfg, Accept: acceptedTypes, MaxSize: MaxTxSize, MinTip: a.MinTip()}
	if err := txpool.ValidateTransaction(tx, a.store.Head(), types.LatestSigner(cfg), opts); err != nil {
		return codeOf(err), err
	}
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	if err := a.ensureCheckState(); err != nil {
		return CodeInvalid, err
	}
	if next := a.checkState.GetNonce(s.From); tx.Nonce() != next {
		return CodeNonce, fmt.Errorf("nonce %d of an impersonated transaction of %s: the account's next nonce is %d", tx.Nonce(), s.From.Hex(), next)
	}
	return a.validate(pool.NewTx(tx, s.From, pool.Key{}, s.Tx))
}

// withKeys leaves out of an executed block's transactions the impersonated
// ones, whose fake signature holds no public key to record (a real chain
// has none).
func (d *devChain) withKeys(txs types.Transactions) types.Transactions {
	if d == nil {
		return txs
	}
	out := txs[:0:0]
	for _, tx := range txs {
		if _, ok := txsender.Get(tx); !ok {
			out = append(out, tx)
		}
	}
	return out
}

// decode decodes a dev transaction of a block (a real chain rejects it).
func (d *devChain) decode(raw []byte) blockTx {
	if d == nil {
		return blockTx{err: errNotDev}
	}
	tx, err := devchain.Decode(raw)
	if err == nil && tx.Send != nil {
		return blockTx{evm: tx.Send.Transaction()} // executed as any EVM transaction
	}
	return blockTx{dev: tx, err: err}
}

// header applies the clock and base-fee edits of a dev chain's block to
// its header, before execution begins; a real chain's header stays as it is.
func (d *devChain) header(header, parent *types.Header, cometSecs int64, txs [][]byte) {
	if d == nil {
		return
	}
	var ops []devchain.Op
	for _, raw := range txs {
		if !devchain.IsDev(raw) {
			continue
		}
		if tx, err := devchain.Decode(raw); err == nil {
			ops = append(ops, tx.Ops...)
		}
	}
	t, offset := devchain.BlockTime(cometSecs, parent.Time, devchain.Offset(parent), ops)
	header.Time, header.Extra = t, devchain.Extra(offset)
	for _, op := range ops {
		if op.Kind == devchain.SetBaseFee {
			header.BaseFee = op.BaseFee.ToInt()
		}
	}
}

// execDev applies a dev transaction's state edits in its place.
func (r *blockRun) execDev(tx *devchain.Tx) *abci.ExecTxResult {
	st := r.x.State()
	events := make([]abci.Event, 0, len(tx.Ops))
	for _, op := range tx.Ops {
		devchain.Apply(st, op)
		attrs := []abci.EventAttribute{attr("op", string(op.Kind))}
		if op.Address != nil {
			attrs = append(attrs, attr("address", lowerHex(*op.Address)))
		}
		events = append(events, abci.Event{Type: EventTypeDev, Attributes: attrs})
	}
	r.x.Settle()
	return &abci.ExecTxResult{Code: CodeOK, Events: events}
}

// EventTypeDev is the event of each edit a dev transaction applies.
const EventTypeDev = "ember_dev"

// committed wakes the callers waiting for the dev transactions of a
// committed block and drops the queued edits it carried. When the block
// changed the state, CometBFT makes one more (empty) block at once to carry
// the new AppHash: its callers are woken after that one, so that a client
// sees a settled chain (the same head on every surface) when its call
// returns.
func (dc *devChain) committed(raws [][]byte, block *types.Block, changedState bool) {
	if dc == nil {
		return
	}
	d := &dc.state
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, ch := range d.afterNext {
		close(ch)
	}
	d.afterNext = nil
	d.proofNext = changedState
	for _, raw := range raws {
		if !devchain.IsDev(raw) {
			continue
		}
		if d.proposed != nil && bytes.Equal(raw, d.proposed) {
			d.queued = append([]devchain.Op(nil), d.queued[d.proposedN:]...)
			d.proposed, d.proposedN = nil, 0
		}
		if tx, err := devchain.Decode(raw); err == nil {
			if ch, ok := d.waiters[tx.ID]; ok {
				if changedState {
					d.afterNext = append(d.afterNext, ch)
				} else {
					close(ch)
				}
				delete(d.waiters, tx.ID)
			}
		}
	}
	if block != nil {
		dc.sendsCommitted(block, changedState)
	}
}

// Rewound resets what the app keeps beside the store after a dev chain's
// store was rewound (evm_revert): the check state is the new head's, no
// block awaits Commit, the clock and base-fee edits queued for the next
// block are dropped (anvil's revert restores its clock too), and callers
// waiting for a block carrying their state edit are released. CometBFT is stopped meanwhile.
func (a *App) Rewound() error {
	a.mu.Lock()
	a.pending = nil
	a.mu.Unlock()
	a.dev.rewound()
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	if a.local.on {
		a.local.idle = true // the new CometBFT waits for a transaction
	}
	return a.resetCheckState()
}

// rewound drops the queued edits and releases the callers waiting for a
// block (see Rewound).
func (dc *devChain) rewound() {
	if dc == nil {
		return
	}
	d := &dc.state
	d.mu.Lock()
	defer d.mu.Unlock()
	d.queued, d.proposed, d.proposedN = nil, nil, 0 // the clock goes back with the headers
	d.proofNext = false
	for _, ch := range d.afterNext {
		close(ch)
	}
	d.afterNext = nil
	d.woken = 0
	dc.releaseSends()
}
