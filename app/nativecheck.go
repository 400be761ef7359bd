package app

import (
	"errors"
	"math/big"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/core"
	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/legacypool"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	pool "github.com/emberchain/ember/txpool"
)

// nativeRefusal is the CheckTx answer to a refused native transaction.
func nativeRefusal(err error) *abci.ResponseCheckTx {
	e := module.AsError(err)
	return &abci.ResponseCheckTx{Code: e.Code, Codespace: e.Codespace, Log: e.Error()}
}

// checkEnv is the context CheckTx checks native transactions in: the next
// block on the durable head.
func (a *App) checkEnv() *module.Env {
	head := a.store.Head()
	return &module.Env{
		ChainID: a.chainIDString(), Prefix: a.genesis.Bech32Prefix, Denom: a.genesis.Denom,
		BaseFee: a.nextBaseFee(), MinGasPrice: a.MinTip(), GasLimit: head.GasLimit,
		Height: head.Number.Int64() + 1, Time: time.Unix(int64(head.Time), 0),
	}
}

// checkNative admits a native transaction to the pool: decoded, the ante
// checks against the durable head, a sequence that extends (or replaces,
// with the pool's price bump) the sender's pending run, funds for it and
// the sender's pending transactions, and its messages' preconditions.
func (a *App) checkNative(raw []byte, key pool.Key) *abci.ResponseCheckTx {
	tx, err := native.Decode(raw, a.genesis.Bech32Prefix, a.genesis.Denom)
	if err != nil {
		return nativeRefusal(err)
	}
	st := a.checkState
	if _, err := native.Ante(st, tx, a.checkEnv()); err != nil {
		return nativeRefusal(err)
	}
	stateNonce := st.GetNonce(tx.Signer)
	pending := a.pool.PendingNonce(tx.Signer, stateNonce)
	if tx.Sequence < stateNonce || tx.Sequence > pending {
		return nativeRefusal(native.SequenceError(pending, tx.Sequence))
	}
	spend := new(big.Int).Add(a.pool.Spent(tx.Signer), tx.Spend())
	if replaced := a.pool.PendingCost(tx.Signer, tx.Sequence); replaced != nil {
		spend.Sub(spend, replaced)
	}
	if bal := st.GetBalance(tx.Signer).ToBig(); bal.Cmp(spend) < 0 {
		return nativeRefusal(native.FundsError(bal, spend, a.genesis.Denom))
	}
	if err := native.CheckMsgs(st, tx); err != nil {
		return nativeRefusal(err)
	}
	ptx := pool.NewTx(nativeItem{tx}, tx.Signer, key, raw)
	added, err := a.pool.Add(ptx, stateNonce, a.nextBaseFee())
	if err != nil {
		return nativeRefusal(poolError(err))
	}
	res := a.admitted(ptx, added)
	res.GasWanted = int64(tx.GasLimit)
	return res
}

// poolError gives a pool refusal its Cosmos code.
func poolError(err error) error {
	e := &module.Error{Codespace: module.CodespaceSDK, Detail: err.Error()}
	switch {
	case errors.Is(err, gethpool.ErrAlreadyKnown):
		e.Code, e.Desc = module.CodeTxInMempool, "tx already in mempool"
	case errors.Is(err, gethpool.ErrReplaceUnderpriced):
		e.Code, e.Desc = module.CodeInsufficientFee, "insufficient fee"
	case errors.Is(err, gethpool.ErrAccountLimitExceeded), errors.Is(err, legacypool.ErrTxPoolOverflow), errors.Is(err, gethpool.ErrUnderpriced):
		e.Code, e.Desc = module.CodeMempoolFull, "mempool is full"
	case errors.Is(err, core.ErrNonceTooLow):
		e.Code, e.Desc = module.CodeWrongSequence, "incorrect account sequence"
	default:
		e.Code, e.Desc = module.CodeInvalidRequest, "invalid request"
	}
	return e
}
