package app

import (
	"context"
	"fmt"
	"math/big"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/evm"
	pool "github.com/emberchain/ember/txpool"
)

// MaxTxSize bounds a transaction's encoded size: 128 KiB, as in geth's pool.
const MaxTxSize = 128 * 1024

// acceptedTypes are the tx types the chain executes: legacy, EIP-2930,
// EIP-1559 and EIP-7702. Blob transactions (EIP-4844) are refused.
const acceptedTypes = 1<<types.LegacyTxType | 1<<types.AccessListTxType | 1<<types.DynamicFeeTxType | 1<<types.SetCodeTxType

// CheckTx validates a transaction against the durable head and the pool, as
// geth's pool validates a new transaction, and records it in the pool. On a
// recheck (after each block) it drops transactions the new state invalidated.
func (a *App) CheckTx(_ context.Context, req *abci.RequestCheckTx) (*abci.ResponseCheckTx, error) {
	if err := a.ensureCheckState(); err != nil {
		return nil, err
	}
	key := pool.KeyOf(req.Tx)
	if req.Type == abci.CheckTxType_Recheck {
		return a.recheck(key, req.Tx), nil
	}
	ptx, code, err := a.decode(req.Tx, key)
	if err == nil {
		code, err = a.validate(ptx)
	}
	if err != nil {
		return &abci.ResponseCheckTx{Code: code, Codespace: Codespace, Log: err.Error()}, nil
	}
	a.pool.Add(ptx)
	a.mu.Lock()
	listeners := a.onPending
	a.mu.Unlock()
	for _, fn := range listeners {
		fn(ptx.Tx)
	}
	return &abci.ResponseCheckTx{Code: CodeOK, GasWanted: int64(ptx.Tx.Gas())}, nil
}

// decode turns raw bytes into a pool transaction with its sender recovered,
// reusing the pool's copy when the bytes are already known.
func (a *App) decode(raw []byte, key pool.Key) (*pool.Tx, uint32, error) {
	if ptx := a.pool.Get(key); ptx != nil {
		return ptx, CodeOK, nil
	}
	tx, err := DecodeTx(raw)
	if err != nil {
		return nil, CodeDecode, err
	}
	if tx.Type() == types.BlobTxType {
		return nil, CodeInvalid, evm.ErrBlobTxUnsupported
	}
	head := a.store.Head()
	opts := &txpool.ValidationOptions{
		Config:  a.config,
		Accept:  acceptedTypes,
		MaxSize: MaxTxSize,
		MinTip:  new(big.Int),
	}
	signer := types.LatestSigner(a.config)
	if err := txpool.ValidateTransaction(tx, head, signer, opts); err != nil {
		return nil, codeOf(err), err
	}
	from, _ := types.Sender(signer, tx) // cached by ValidateTransaction
	return &pool.Tx{Tx: tx, Sender: from, Key: key}, CodeOK, nil
}

// validate runs the stateful checks: nonce (no gaps, no duplicates),
// balance including what the sender already has pending, and the fee cap
// against the next block's base fee.
func (a *App) validate(ptx *pool.Tx) (uint32, error) {
	tx, from := ptx.Tx, ptx.Sender
	if existing := a.pool.ByNonce(from, tx.Nonce()); existing != nil {
		if existing.Key == ptx.Key {
			return CodeNonce, txpool.ErrAlreadyKnown
		}
		// Same-nonce replacement needs an app-side mempool that can evict
		// from CometBFT's; until then a pending nonce is taken.
		return CodeNonce, fmt.Errorf("%w: nonce %d of %s is already pending", txpool.ErrReplaceUnderpriced, tx.Nonce(), from)
	}
	if baseFee := a.nextBaseFee(); tx.GasFeeCapIntCmp(baseFee) < 0 {
		return CodeUnderpriced, fmt.Errorf("%w: address %v, maxFeePerGas: %s, baseFee: %s", core.ErrFeeCapTooLow, from.Hex(), tx.GasFeeCap(), baseFee)
	}
	// Nonce gaps are refused: CometBFT proposes a new block after every
	// commit while its mempool holds any tx, so a tx that cannot be included
	// yet would make the chain spin out empty blocks until the gap filled.
	opts := &txpool.ValidationOptionsWithState{
		State: a.checkState,
		FirstNonceGap: func(addr common.Address) uint64 {
			return a.pool.PendingNonce(addr, a.checkState.GetNonce(addr))
		},
		ExistingExpenditure: a.pool.Spent,
		ExistingCost:        func(common.Address, uint64) *big.Int { return nil },
	}
	if err := txpool.ValidateTransactionWithState(tx, types.LatestSigner(a.config), opts); err != nil {
		return codeOf(err), err
	}
	return CodeOK, nil
}

// recheck keeps a pooled tx only while its nonce is unused, no earlier nonce
// of its sender is missing, and its sender can still pay for it. CometBFT
// rechecks in arrival order, so a sender's lower nonces come first.
func (a *App) recheck(key pool.Key, raw []byte) *abci.ResponseCheckTx {
	ptx := a.pool.Get(key)
	if ptx == nil {
		var code uint32
		var err error
		if ptx, code, err = a.decode(raw, key); err != nil {
			return &abci.ResponseCheckTx{Code: code, Codespace: Codespace, Log: err.Error()}
		}
		a.pool.Add(ptx)
	}
	tx := ptx.Tx
	var err error
	next := a.checkState.GetNonce(ptx.Sender)
	if tx.Nonce() < next {
		err = fmt.Errorf("%w: next nonce %v, tx nonce %v", core.ErrNonceTooLow, next, tx.Nonce())
	} else if gap := a.pool.PendingNonce(ptx.Sender, next); tx.Nonce() >= gap {
		// An earlier tx of the sender was dropped: this one can never run.
		err = fmt.Errorf("%w: tx nonce %v, gapped nonce %v", core.ErrNonceTooHigh, tx.Nonce(), gap)
	} else if bal := a.checkState.GetBalance(ptx.Sender).ToBig(); bal.Cmp(tx.Cost()) < 0 {
		err = fmt.Errorf("%w: balance %v, tx cost %v", core.ErrInsufficientFunds, bal, tx.Cost())
	}
	if err != nil {
		a.pool.Remove(key)
		return &abci.ResponseCheckTx{Code: codeOf(err), Codespace: Codespace, Log: err.Error()}
	}
	return &abci.ResponseCheckTx{Code: CodeOK, GasWanted: int64(tx.Gas())}
}

// DecodeTx decodes the canonical (EIP-2718) encoding of a transaction.
func DecodeTx(raw []byte) (*types.Transaction, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return nil, fmt.Errorf("invalid transaction encoding: %w", err)
	}
	return tx, nil
}
