package eth

import (
	"errors"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/vm"
)

// The error codes of eth_simulateV1, go-ethereum's (internal/ethapi/errors.go
// in v1.17) so clients that branch on them work unchanged.
const (
	codeNonceTooLow             = -38010
	codeNonceTooHigh            = -38011
	codeBaseFeeTooLow           = -38012
	codeIntrinsicGas            = -38013
	codeInsufficientFunds       = -38014
	codeBlockGasLimitReached    = -38015
	codeBlockNumberInvalid      = -38020
	codeBlockTimestampInvalid   = -38021
	codeSenderIsNotEOA          = -38024
	codeMaxInitCodeSizeExceeded = -38025
	codeClientLimitExceeded     = -38026
	codeInternalError           = -32603
	codeInvalidParams           = -32602
	codeVMError                 = -32015
)

// simError is a JSON-RPC error with one of the codes above.
type simError struct {
	msg  string
	code int
}

func (e *simError) Error() string  { return e.msg }
func (e *simError) ErrorCode() int { return e.code }

// txCodes maps why a call could not be executed to its code; anything else
// is an internal error (-32603), as on geth.
var txCodes = []struct {
	err  error
	code int
}{
	{core.ErrNonceTooHigh, codeNonceTooHigh},
	{core.ErrNonceTooLow, codeNonceTooLow},
	{core.ErrSenderNoEOA, codeSenderIsNotEOA},
	{core.ErrFeeCapVeryHigh, codeInvalidParams},
	{core.ErrTipVeryHigh, codeInvalidParams},
	{core.ErrTipAboveFeeCap, codeInvalidParams},
	{core.ErrFeeCapTooLow, codeBaseFeeTooLow},
	{core.ErrInsufficientFunds, codeInsufficientFunds},
	{core.ErrIntrinsicGas, codeIntrinsicGas},
	{core.ErrInsufficientFundsForTransfer, codeInsufficientFunds},
	{vm.ErrMaxInitCodeSizeExceeded, codeMaxInitCodeSizeExceeded},
}

// txValidationError is the error of a call that could not be executed.
func txValidationError(err error) error {
	for _, c := range txCodes {
		if errors.Is(err, c.err) {
			return &simError{err.Error(), c.code}
		}
	}
	return &simError{err.Error(), codeInternalError}
}

// callError is the "error" of a call that ran and failed: code 3 with the
// revert data for a revert, -32015 for any other VM error.
type callError struct {
	Message string `json:"message"`
	Code    int    `json:"code"`
	Data    string `json:"data,omitempty"`
}
