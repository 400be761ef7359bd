package eth

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/vm"
)

// revertError is an execution revert: JSON-RPC error code 3 with the revert
// data, as geth reports it.
type revertError struct {
	error
	data string // hex revert data
}

func (e *revertError) ErrorCode() int         { return 3 }
func (e *revertError) ErrorData() interface{} { return e.data }

// newRevertError decodes a Solidity Error(string) or Panic(uint256) reason
// into the message when there is one.
func newRevertError(revert []byte) *revertError {
	err := vm.ErrExecutionReverted
	if reason, errUnpack := abi.UnpackRevert(revert); errUnpack == nil {
		err = fmt.Errorf("%w: %v", vm.ErrExecutionReverted, reason)
	}
	return &revertError{error: err, data: hexutil.Encode(revert)}
}

// invalidParamsError is -32602 with a message naming the parameter.
type invalidParamsError struct{ msg string }

func (e *invalidParamsError) Error() string  { return e.msg }
func (e *invalidParamsError) ErrorCode() int { return -32602 }

func invalidParams(format string, args ...any) error {
	return &invalidParamsError{msg: fmt.Sprintf(format, args...)}
}

// errHeaderNotFound is geth's answer for a state query at an unknown block.
var errHeaderNotFound = errors.New("header not found")

// limitError is a request over a server-side bound: geth's -38026 "client
// limit exceeded".
type limitError struct{ msg string }

func (e *limitError) Error() string  { return e.msg }
func (e *limitError) ErrorCode() int { return -38026 }
