package app

import (
	"errors"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/legacypool"
)

// ABCI result codes. 0 and 1 mean the tx is in the EVM block (receipt status
// 1 and 0); every code above 1 means it was rejected before execution and has
// no receipt.
const (
	CodeOK              uint32 = 0 // executed, succeeded
	CodeExecutionFailed uint32 = 1 // executed, reverted or failed; gas charged
	CodeDecode          uint32 = 2 // bytes are not an Ethereum transaction
	CodeInvalid         uint32 = 3 // signature, type, gas or fee rules broken
	CodeNonce           uint32 = 4 // nonce too low or already pending
	CodeFunds           uint32 = 5 // balance below gas × price + value
	CodeUnderpriced     uint32 = 6 // fee below what the chain accepts now
	CodeBlockGas        uint32 = 7 // does not fit in the block's remaining gas
	// CodeQueued answers CheckTx for a transaction accepted into the app's
	// pool behind a nonce gap: CometBFT does not keep it (only executable
	// transactions enter its mempool), the app holds it until the gap fills
	// and then resubmits it. Not an error to a client: the JSON-RPC layer
	// returns the hash, as geth does for a queued transaction.
	CodeQueued    uint32 = 8
	CodePoolLimit uint32 = 9 // per-account or global pool limit reached
	// CodeHeld answers CheckTx, on a dev chain with automine off
	// (evm_setAutomine(false)), for a transaction accepted into the app's
	// pool as pending but kept out of CometBFT's mempool, which would make
	// a block for it: the next evm_mine / anvil_mine block takes it from
	// the pool. Not an error to a client, like CodeQueued.
	CodeHeld uint32 = 10
)

// Codespace is reported with every non-zero code.
//
// Native (Cosmos) transactions answer with the Cosmos SDK's codes instead,
// in codespace "sdk" or "staking" (native/errors.go), with the same meaning
// of rejection: one refused by the ante checks (signature, sequence, fee)
// changes nothing; one whose messages fail keeps its fee and sequence, as an
// EVM tx with code 1 does (docs/native-txs.md).
const Codespace = "evm"

// codeOf classifies a rejection.
func codeOf(err error) uint32 {
	switch {
	case errors.Is(err, core.ErrNonceTooLow), errors.Is(err, core.ErrNonceTooHigh),
		errors.Is(err, txpool.ErrAlreadyKnown), errors.Is(err, txpool.ErrReplaceUnderpriced):
		return CodeNonce
	case errors.Is(err, core.ErrInsufficientFunds), errors.Is(err, core.ErrInsufficientFundsForTransfer):
		return CodeFunds
	case errors.Is(err, core.ErrFeeCapTooLow), errors.Is(err, txpool.ErrTxGasPriceTooLow), errors.Is(err, txpool.ErrUnderpriced):
		return CodeUnderpriced
	case errors.Is(err, core.ErrGasLimitReached):
		return CodeBlockGas
	case errors.Is(err, txpool.ErrAccountLimitExceeded), errors.Is(err, legacypool.ErrTxPoolOverflow):
		return CodePoolLimit
	}
	return CodeInvalid
}
