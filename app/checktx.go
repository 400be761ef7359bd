package app

import (
	"context"
	"errors"
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/devchain"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/native"
	pool "github.com/emberchain/ember/txpool"
)

// MaxTxSize bounds a transaction's encoded size: 128 KiB, as in geth's pool.
const MaxTxSize = 128 * 1024

// acceptedTypes are the tx types the chain executes: legacy, EIP-2930,
// EIP-1559 and EIP-7702. Blob transactions (EIP-4844) are refused.
const acceptedTypes = 1<<types.LegacyTxType | 1<<types.AccessListTxType | 1<<types.DynamicFeeTxType | 1<<types.SetCodeTxType

// CheckTx admits a transaction to the pool as geth's pool does: validated
// with go-ethereum's own rules against the durable head, then pending (code
// 0: CometBFT's mempool keeps and gossips it) when its nonce extends the
// sender's pending run, or queued (CodeQueued: the pool alone keeps it) when
// it follows a gap. A queued transaction submitted again once its gap filled
// is promoted. On a recheck (after each block, once Commit has reset the
// pool) it answers from the pool: pending stays, queued (demoted) and
// dropped leave CometBFT's mempool.
func (a *App) CheckTx(_ context.Context, req *abci.RequestCheckTx) (*abci.ResponseCheckTx, error) {
	if a.store.Head() == nil { // state-syncing: no state to check against (snapshot.go)
		return refusal(CodeInvalid, errNoState), nil
	}
	if devchain.IsDev(req.Tx) { // dev.go
		return a.dev.check(req.Tx), nil
	}
	key := pool.KeyOf(req.Tx)
	if req.Type == abci.CheckTxType_Recheck {
		return a.recheck(key), nil
	}
	// The stateless checks (signature recovery included) need no lock.
	var ptx *pool.Tx
	if !native.IsNative(req.Tx) { // else a Cosmos TxRaw (native.go)
		var res *abci.ResponseCheckTx
		if ptx, res = a.decodeUnpooled(req.Tx, key); res != nil {
			return res, nil
		}
	}
	a.checkMu.Lock()
	defer a.checkMu.Unlock()
	return a.checkLocked(req.Tx, key, ptx)
}

// decodeUnpooled runs the stateless checks on an EVM transaction the pool
// does not hold (ptx nil when it does), or returns their refusal.
func (a *App) decodeUnpooled(raw []byte, key pool.Key) (*pool.Tx, *abci.ResponseCheckTx) {
	if a.pool.Get(key) != nil {
		return nil, nil
	}
	ptx, code, err := a.decode(raw, key, nil)
	if err != nil {
		return nil, refusal(code, err)
	}
	return ptx, nil
}

// checkLocked is CheckTx's stateful part; an EVM transaction comes decoded
// (ptx) unless the pool held it then. Caller holds checkMu.
func (a *App) checkLocked(raw []byte, key pool.Key, ptx *pool.Tx) (*abci.ResponseCheckTx, error) {
	if err := a.ensureCheckState(); err != nil {
		return nil, err
	}
	if known := a.pool.Get(key); known != nil {
		return a.resubmitted(known), nil
	}
	if native.IsNative(raw) {
		return a.checkNative(raw, key), nil
	}
	if ptx == nil { // pooled when decodeUnpooled looked, gone since
		var res *abci.ResponseCheckTx
		if ptx, res = a.decodeUnpooled(raw, key); res != nil {
			return res, nil
		}
	}
	if code, err := a.validate(ptx); err != nil {
		return refusal(code, err), nil
	}
	added, err := a.pool.Add(ptx, a.checkState.GetNonce(ptx.Sender), a.nextBaseFee())
	if err != nil {
		return refusal(codeOf(err), err), nil
	}
	return a.admitted(ptx, added), nil
}

// Precheck runs CheckTx's stateless checks on raw (decoding, type, size,
// gas, fee fields, signature and sender recovery, minimum tip) on the
// caller's goroutine, before the transaction enters CometBFT's mempool,
// whose CheckTx calls are serialized: so senders are recovered in
// parallel, once. CheckTx reuses the decoded transaction with its cached
// sender. The caller calls Forget(key) once the mempool has answered.
// Native transactions and those the pool holds pass unchecked. decoded, if
// not nil, is raw already decoded (eth_sendRawTransaction's), so it is not
// decoded again.
func (a *App) Precheck(raw []byte, decoded *types.Transaction) (pool.Key, error) {
	key := pool.KeyOf(raw)
	if native.IsNative(raw) || a.pool.Get(key) != nil {
		return key, nil
	}
	ptx, _, err := a.decode(raw, key, decoded)
	if err != nil {
		return key, err
	}
	a.prechecked.Store(key, ptx.EVM())
	return key, nil
}

// Forget drops what Precheck kept for key.
func (a *App) Forget(key pool.Key) { a.prechecked.Delete(key) }

func refusal(code uint32, err error) *abci.ResponseCheckTx {
	return &abci.ResponseCheckTx{Code: code, Codespace: Codespace, Log: err.Error()}
}

// admitted hands displaced transactions to the mempool hooks, announces a
// pending transaction and asks for the promotion of those it unblocked.
func (a *App) admitted(ptx *pool.Tx, added pool.Added) *abci.ResponseCheckTx {
	if len(added.Displaced) > 0 && a.hooks.Remove != nil {
		a.hooks.Remove(added.Displaced)
	}
	if added.Status == pool.Queued {
		next := a.pool.PendingNonce(ptx.Sender, a.checkState.GetNonce(ptx.Sender))
		return &abci.ResponseCheckTx{Code: CodeQueued, Codespace: Codespace,
			Log: fmt.Sprintf("queued: nonce %d waits for nonce %d", ptx.Item.Nonce(), next)}
	}
	if added.Promotable && a.hooks.Promote != nil {
		a.hooks.Promote()
	}
	a.mu.Lock()
	listeners := a.onPending
	a.mu.Unlock()
	for _, fn := range listeners {
		if evm := ptx.EVM(); evm != nil { // native txs are not announced
			fn(evm)
		}
	}
	if res := a.dev.hold(ptx); res != nil { // automine.go
		return res
	}
	a.arrived.signal()
	return &abci.ResponseCheckTx{Code: CodeOK, GasWanted: int64(ptx.Item.Gas())}
}

// resubmitted (caller holds checkMu) answers for a transaction the pool already holds: a queued
// one whose gap has filled is promoted (this is how the node's promoter
// moves it into CometBFT's mempool); anything else is "already known".
func (a *App) resubmitted(ptx *pool.Tx) *abci.ResponseCheckTx {
	if res := a.woken(ptx); res != nil { // local.go
		return res
	}
	if a.pool.StatusOf(ptx.Key) != pool.Queued {
		return refusal(CodeNonce, txpool.ErrAlreadyKnown)
	}
	next := a.checkState.GetNonce(ptx.Sender)
	bal := a.checkState.GetBalance(ptx.Sender).ToBig()
	var err error
	switch {
	case ptx.Item.Nonce() < next:
		err = fmt.Errorf("%w: next nonce %v, tx nonce %v", core.ErrNonceTooLow, next, ptx.Item.Nonce())
	case bal.Cmp(ptx.Cost()) < 0:
		err = fmt.Errorf("%w: balance %v, tx cost %v", core.ErrInsufficientFunds, bal, ptx.Cost())
	}
	if err != nil {
		a.pool.Remove(ptx.Key)
		return refusal(codeOf(err), err)
	}
	added, err := a.pool.Promote(ptx.Key, next, a.nextBaseFee())
	if err != nil {
		return refusal(codeOf(err), err)
	}
	return a.admitted(ptx, added)
}

// decode turns raw bytes into a pool transaction with its sender recovered,
// running go-ethereum's stateless checks (type, size, gas, fee fields,
// signature, minimum tip). decoded, if not nil, is raw decoded.
func (a *App) decode(raw []byte, key pool.Key, decoded *types.Transaction) (*pool.Tx, uint32, error) {
	tx := decoded
	if v, ok := a.prechecked.Load(key); ok {
		tx = v.(*types.Transaction) // sender cached: validated again cheaply
	} else if _, marker, _ := parseCoinbaseMarker(raw); marker {
		return nil, CodeDecode, errCoinbaseMarker
	} else if tx == nil {
		var err error
		if tx, err = DecodeTx(raw); err != nil {
			return nil, CodeDecode, err
		}
	}
	if tx.Type() == types.BlobTxType {
		return nil, CodeInvalid, evm.ErrBlobTxUnsupported
	}
	head := a.store.Head()
	opts := &txpool.ValidationOptions{
		Config:  a.store.Config(),
		Accept:  acceptedTypes,
		MaxSize: MaxTxSize,
		MinTip:  a.MinTip(),
	}
	signer := types.LatestSigner(a.store.Config())
	if err := txpool.ValidateTransaction(tx, head, signer, opts); err != nil {
		return nil, codeOf(err), err
	}
	from, _ := types.Sender(signer, tx) // cached by ValidateTransaction
	return pool.NewTx(tx, from, key, raw), CodeOK, nil
}

// validate runs the stateful checks as geth's pool does: nonce not used,
// balance for this transaction and for the sender's pending ones (counting
// the one a replacement would displace once), and, beyond geth, a fee cap
// that covers the next block's base fee (a pending transaction that cannot
// be included would keep CometBFT proposing blocks). Nonce gaps are allowed:
// the pool queues them.
func (a *App) validate(ptx *pool.Tx) (uint32, error) {
	tx, from := ptx.EVM(), ptx.Sender
	if baseFee := a.nextBaseFee(); tx.GasFeeCapIntCmp(baseFee) < 0 {
		return CodeUnderpriced, fmt.Errorf("%w: address %v, maxFeePerGas: %s, baseFee: %s", core.ErrFeeCapTooLow, from.Hex(), tx.GasFeeCap(), baseFee)
	}
	opts := &txpool.ValidationOptionsWithState{
		State:               a.checkState,
		ExistingExpenditure: a.pool.Spent,
		ExistingCost:        a.pool.PendingCost,
	}
	if err := txpool.ValidateTransactionWithState(tx, types.LatestSigner(a.store.Config()), opts); err != nil {
		return codeOf(err), err
	}
	return CodeOK, nil
}

// recheck answers from the pool, which Commit has just reset to the new
// state: a pending transaction stays in CometBFT's mempool; a demoted
// (queued) one leaves it and stays in the pool, to be promoted again when
// its gap fills; one the pool dropped (mined, unaffordable, replaced,
// evicted, below the minimum tip) leaves both.
func (a *App) recheck(key pool.Key) *abci.ResponseCheckTx {
	switch a.pool.StatusOf(key) {
	case pool.Pending:
		a.pool.Seen(key)
		return &abci.ResponseCheckTx{Code: CodeOK, GasWanted: int64(a.pool.Get(key).Item.Gas())}
	case pool.Queued:
		return &abci.ResponseCheckTx{Code: CodeQueued, Codespace: Codespace, Log: "queued: an earlier nonce of its sender is missing"}
	}
	return &abci.ResponseCheckTx{Code: CodeNonce, Codespace: Codespace, Log: "dropped from the pool: nonce used, replaced, evicted, unaffordable or below the minimum tip"}
}

// resetPool brings the pool in line with the state Commit just made
// durable and asks for promotions the block made possible. Caller holds
// checkMu.
func (a *App) resetPool(included [][]byte) {
	a.pool.RemoveAll(included)
	a.pool.Reset(a.checkState, a.MinTip(), a.store.Head().Number.Uint64())
	if _, queued := a.pool.Stats(); queued > 0 && a.hooks.Promote != nil {
		a.hooks.Promote()
	}
}

// DecodeTx decodes the canonical (EIP-2718) encoding of a transaction.
func DecodeTx(raw []byte) (*types.Transaction, error) {
	if _, ok, _ := parseCoinbaseMarker(raw); ok {
		return nil, errCoinbaseMarker
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return nil, fmt.Errorf("invalid transaction encoding: %w", err)
	}
	return tx, nil
}

// errCoinbaseMarker is the result log of a block's fee-recipient marker.
var errCoinbaseMarker = errors.New("not a transaction: the proposer's fee-recipient marker")
