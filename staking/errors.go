package staking

import (
	"errors"

	"github.com/emberchain/ember/module"
)

// CodespaceStaking is the codespace of the staking module's errors.
const CodespaceStaking = "staking"

// Staking module error codes, as the Cosmos SDK's x/staking/types/errors.go
// registers them.
const (
	CodeNoValidator              uint32 = 3
	CodeOperatorExists           uint32 = 4
	CodePubKeyExists             uint32 = 5
	CodeBadPubKeyType            uint32 = 6
	CodeValidatorJailed          uint32 = 7
	CodeCommissionNegative       uint32 = 9
	CodeCommissionHuge           uint32 = 10
	CodeCommissionGTMaxRate      uint32 = 11
	CodeCommissionUpdateTime     uint32 = 12
	CodeChangeRateNegative       uint32 = 13
	CodeChangeRateGTMaxRate      uint32 = 14
	CodeCommissionGTMaxChange    uint32 = 15
	CodeSelfDelegationBelowMin   uint32 = 16
	CodeMinSelfDelegationDecr    uint32 = 17
	CodeBadDelegation            uint32 = 18 // ErrEmptyDelegatorAddr's code; Ember also: empty set, power cap
	CodeNoDelegation             uint32 = 19
	CodeNoDelegatorForAddress    uint32 = 21
	CodeInsufficientShares       uint32 = 22
	CodeNotEnoughShares          uint32 = 24
	CodeNoUnbondingDelegation    uint32 = 26
	CodeMaxUnbondingEntries      uint32 = 27
	CodeNoRedelegation           uint32 = 28
	CodeSelfRedelegation         uint32 = 29
	CodeTinyRedelegation         uint32 = 30
	CodeBadRedelegationDst       uint32 = 31
	CodeTransitiveRedelegation   uint32 = 32
	CodeMaxRedelegationEntries   uint32 = 33
	CodeDelegatorShareExRateZero uint32 = 34
	CodeCommissionLTMinRate      uint32 = 40
)

var descs = map[uint32]string{
	CodeNoValidator:              "validator does not exist",
	CodeOperatorExists:           "validator already exist for this operator address; must use new validator operator address",
	CodePubKeyExists:             "validator already exist for this pubkey; must use new validator pubkey",
	CodeBadPubKeyType:            "validator pubkey type is not supported",
	CodeValidatorJailed:          "validator for this address is currently jailed",
	CodeCommissionNegative:       "commission must be positive",
	CodeCommissionHuge:           "commission cannot be more than 100%",
	CodeCommissionGTMaxRate:      "commission cannot be more than the max rate",
	CodeCommissionUpdateTime:     "commission cannot be changed more than once in 24h",
	CodeChangeRateNegative:       "commission change rate must be positive",
	CodeChangeRateGTMaxRate:      "commission change rate cannot be more than the max rate",
	CodeCommissionGTMaxChange:    "commission cannot be changed more than max change rate",
	CodeSelfDelegationBelowMin:   "validator's self delegation must be greater than their minimum self delegation",
	CodeMinSelfDelegationDecr:    "minimum self delegation cannot be decrease",
	CodeBadDelegation:            "invalid delegation amount",
	CodeNoDelegation:             "no delegation for (address, validator) tuple",
	CodeNoDelegatorForAddress:    "delegator does not contain delegation",
	CodeInsufficientShares:       "insufficient delegation shares",
	CodeNotEnoughShares:          "not enough delegation shares",
	CodeNoUnbondingDelegation:    "no unbonding delegation found",
	CodeMaxUnbondingEntries:      "too many unbonding delegation entries for (delegator, validator) tuple",
	CodeNoRedelegation:           "no redelegation found",
	CodeSelfRedelegation:         "cannot redelegate to the same validator",
	CodeTinyRedelegation:         "too few tokens to redelegate (truncates to zero tokens)",
	CodeBadRedelegationDst:       "redelegation destination validator not found",
	CodeTransitiveRedelegation:   "redelegation to this validator already in progress; first redelegation to this validator must complete before next redelegation",
	CodeMaxRedelegationEntries:   "too many redelegation entries for (delegator, src-validator, dst-validator) tuple",
	CodeDelegatorShareExRateZero: "cannot delegate to validators with invalid (zero) ex-rate",
	CodeCommissionLTMinRate:      "commission cannot be less than min rate",
}

// Err is a fresh staking error with code's registered text (a fresh one,
// since WithDetail changes it).
func Err(code uint32) *module.Error {
	return &module.Error{Codespace: CodespaceStaking, Code: code, Desc: descs[code]}
}

func codedErr(code uint32, desc string) *module.Error {
	return &module.Error{Codespace: CodespaceStaking, Code: code, Desc: desc}
}

// Ember's own refusals, reported under code 18 (invalid delegation amount).
var (
	ErrEmptySet     = errors.New("the validator set would be empty")
	ErrPowerTooHigh = errors.New("validator power would exceed the maximum")
)

func amountErr(err error) *module.Error { return Err(CodeBadDelegation).WithDetail("%v", err) }

// HasCode tells whether err is a staking error with code.
func HasCode(err error, code uint32) bool {
	var e *module.Error
	return errors.As(err, &e) && e.Codespace == CodespaceStaking && e.Code == code
}
