package staking

import (
	"strings"

	"github.com/emberchain/ember/module"
)

// CodespaceStaking is the codespace of the staking module's errors.
const CodespaceStaking = "staking"

// Staking module error codes (x/staking/types/errors.go).
const (
	CodeNoValidator     uint32 = 3
	CodeOperatorExists  uint32 = 4
	CodePubKeyExists    uint32 = 5
	CodeBadPubKeyType   uint32 = 6
	CodeNoDelegation    uint32 = 19
	CodeNotEnoughShares uint32 = 24
	CodeBadDelegation   uint32 = 18 // bad delegation amount; Ember also: empty set, power cap
)

func codedErr(code uint32, desc string) *module.Error {
	return &module.Error{Codespace: CodespaceStaking, Code: code, Desc: desc}
}

// coded gives a staking error its Cosmos code (nil for nil).
func coded(err error) error {
	if err == nil {
		return nil
	}
	switch err {
	case ErrNoValidator:
		return codedErr(CodeNoValidator, err.Error())
	case ErrOperatorExists:
		return codedErr(CodeOperatorExists, err.Error())
	case ErrPubKeyExists:
		return codedErr(CodePubKeyExists, err.Error())
	case ErrNoDelegation:
		return codedErr(CodeNoDelegation, err.Error())
	case ErrNotEnoughShares:
		return codedErr(CodeNotEnoughShares, err.Error())
	case ErrEmptySet, ErrPowerTooHigh:
		return codedErr(CodeBadDelegation, "invalid delegation amount").WithDetail("%v", err)
	}
	if e, ok := err.(*module.Error); ok {
		return e
	}
	return module.SDKError(module.CodeInsufficientFunds, "%v", strings.TrimSuffix(err.Error(), ": "+ErrInsufficientFund.Error()))
}
