package module

import (
	"errors"
	"fmt"
	"math/big"
)

// CodespaceSDK is the codespace of the Cosmos SDK's own errors.
const CodespaceSDK = "sdk"

// Cosmos SDK error codes (types/errors) in codespace sdk.
const (
	CodeTxDecode          uint32 = 2
	CodeUnauthorized      uint32 = 4
	CodeInsufficientFunds uint32 = 5
	CodeUnknownRequest    uint32 = 6
	CodeInvalidAddress    uint32 = 7
	CodeInvalidPubKey     uint32 = 8
	CodeUnknownAddress    uint32 = 9
	CodeInvalidCoins      uint32 = 10
	CodeOutOfGas          uint32 = 11
	CodeMemoTooLarge      uint32 = 12
	CodeInsufficientFee   uint32 = 13
	CodeTooManySignatures uint32 = 14
	CodeNoSignatures      uint32 = 15
	CodeInvalidRequest    uint32 = 18
	CodeTxInMempool       uint32 = 19
	CodeMempoolFull       uint32 = 20
	CodeTxTooLarge        uint32 = 21
	CodeInvalidSigner     uint32 = 24
	CodeTxTimeoutHeight   uint32 = 30
	CodeWrongSequence     uint32 = 32
	CodeInvalidGasLimit   uint32 = 41
)

// Error is a refusal with its Cosmos code. Its text is Cosmos's:
// "<detail>: <description>", e.g. "account sequence mismatch, expected 3,
// got 2: incorrect account sequence".
type Error struct {
	Codespace string
	Code      uint32
	Desc      string // the registered description, e.g. "incorrect account sequence"
	Detail    string // the wrapping text; empty for the bare error
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Desc
	}
	return e.Detail + ": " + e.Desc
}

// WithDetail sets the wrapping text and returns e.
func (e *Error) WithDetail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

var sdkDesc = map[uint32]string{
	CodeTxDecode:          "tx parse error",
	CodeUnauthorized:      "unauthorized",
	CodeInsufficientFunds: "insufficient funds",
	CodeUnknownRequest:    "unknown request",
	CodeInvalidAddress:    "invalid address",
	CodeInvalidPubKey:     "invalid pubkey",
	CodeUnknownAddress:    "unknown address",
	CodeInvalidCoins:      "invalid coins",
	CodeOutOfGas:          "out of gas",
	CodeMemoTooLarge:      "memo too large",
	CodeInsufficientFee:   "insufficient fee",
	CodeTooManySignatures: "maximum number of signatures exceeded",
	CodeNoSignatures:      "no signatures supplied",
	CodeInvalidRequest:    "invalid request",
	CodeTxInMempool:       "tx already in mempool",
	CodeMempoolFull:       "mempool is full",
	CodeTxTooLarge:        "tx too large",
	CodeInvalidSigner:     "tx intended signer does not match the given signer",
	CodeTxTimeoutHeight:   "tx timeout height",
	CodeWrongSequence:     "incorrect account sequence",
	CodeInvalidGasLimit:   "invalid gas limit",
}

// SDKError is a codespace-sdk error wrapped with a formatted detail.
func SDKError(code uint32, format string, args ...any) *Error {
	return &Error{Codespace: CodespaceSDK, Code: code, Desc: sdkDesc[code], Detail: fmt.Sprintf(format, args...)}
}

// AsError returns err as an *Error, classifying an unknown error as an
// invalid request.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return SDKError(CodeInvalidRequest, "%v", err)
}

// FundsError is the refusal of a spend above the spendable balance.
func FundsError(balance, spend *big.Int, denom string) *Error {
	return SDKError(CodeInsufficientFunds, "spendable balance %s%s is smaller than %s%s", balance, denom, spend, denom)
}
