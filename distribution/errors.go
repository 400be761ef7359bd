package distribution

import "github.com/emberchain/ember/module"

// Codespace is the codespace of the module's errors.
const Codespace = "distribution"

// Error codes of x/distribution/types/errors.go.
const (
	CodeEmptyDelegationDistInfo uint32 = 5
	CodeNoValidatorDistInfo     uint32 = 6
	CodeNoValidatorCommission   uint32 = 7
	CodeSetWithdrawAddrDisabled uint32 = 8
	CodeNoValidatorExists       uint32 = 12
	CodeNoDelegationExists      uint32 = 13
)

func codedErr(code uint32, desc string) *module.Error {
	return &module.Error{Codespace: Codespace, Code: code, Desc: desc}
}

// The module's errors, shared values: never wrap them with WithDetail.
var (
	errNoDelegationDistInfo    = codedErr(CodeEmptyDelegationDistInfo, "no delegation distribution info")
	errNoValidatorDistInfo     = codedErr(CodeNoValidatorDistInfo, "no validator distribution info")
	errNoValidatorCommission   = codedErr(CodeNoValidatorCommission, "no validator commission to withdraw")
	errSetWithdrawAddrDisabled = codedErr(CodeSetWithdrawAddrDisabled, "set withdraw address disabled")
	errNoValidatorExists       = codedErr(CodeNoValidatorExists, "validator does not exist")
	errNoDelegationExists      = codedErr(CodeNoDelegationExists, "delegation does not exist")
)
