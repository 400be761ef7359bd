package native

import (
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/staking"
)

// Codespaces of native transaction results, as the Cosmos SDK reports them.
const (
	CodespaceSDK     = module.CodespaceSDK
	CodespaceStaking = staking.CodespaceStaking
)

// Cosmos SDK error codes (types/errors) in codespace sdk.
const (
	CodeTxDecode          = module.CodeTxDecode
	CodeUnauthorized      = module.CodeUnauthorized
	CodeInsufficientFunds = module.CodeInsufficientFunds
	CodeUnknownRequest    = module.CodeUnknownRequest
	CodeInvalidAddress    = module.CodeInvalidAddress
	CodeInvalidPubKey     = module.CodeInvalidPubKey
	CodeUnknownAddress    = module.CodeUnknownAddress
	CodeInvalidCoins      = module.CodeInvalidCoins
	CodeOutOfGas          = module.CodeOutOfGas
	CodeMemoTooLarge      = module.CodeMemoTooLarge
	CodeInsufficientFee   = module.CodeInsufficientFee
	CodeTooManySignatures = module.CodeTooManySignatures
	CodeNoSignatures      = module.CodeNoSignatures
	CodeInvalidRequest    = module.CodeInvalidRequest
	CodeTxInMempool       = module.CodeTxInMempool
	CodeMempoolFull       = module.CodeMempoolFull
	CodeTxTooLarge        = module.CodeTxTooLarge
	CodeInvalidSigner     = module.CodeInvalidSigner
	CodeTxTimeoutHeight   = module.CodeTxTimeoutHeight
	CodeWrongSequence     = module.CodeWrongSequence
	CodeInvalidGasLimit   = module.CodeInvalidGasLimit
)

// Staking module error codes (x/staking/types/errors.go).
const (
	CodeStakingNoValidator     = staking.CodeNoValidator
	CodeStakingOperatorExists  = staking.CodeOperatorExists
	CodeStakingPubKeyExists    = staking.CodePubKeyExists
	CodeStakingBadPubKeyType   = staking.CodeBadPubKeyType
	CodeStakingNoDelegation    = staking.CodeNoDelegation
	CodeStakingNotEnoughShares = staking.CodeNotEnoughShares
	CodeStakingBadDelegation   = staking.CodeBadDelegation
)

// Error is a refusal with its Cosmos code (see module.Error).
type Error = module.Error

// sdkErr is a codespace-sdk error wrapped with a formatted detail.
func sdkErr(code uint32, format string, args ...any) *Error {
	return module.SDKError(code, format, args...)
}

// AsError returns err as an *Error, classifying an unknown error as an
// invalid request.
func AsError(err error) *Error { return module.AsError(err) }
