package slashing

import (
	"time"

	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/module"
)

// TypeMsgUnjail is the type URL of MsgUnjail.
const TypeMsgUnjail = "/cosmos.slashing.v1beta1.MsgUnjail"

// GasMsgUnjail is the fixed gas of MsgUnjail.
const GasMsgUnjail = 30_000

// CodespaceSlashing is the codespace of the module's errors.
const CodespaceSlashing = "slashing"

// Slashing module error codes (x/slashing/types/errors.go).
const (
	CodeNoValidator        uint32 = 2
	CodeValidatorJailed    uint32 = 4
	CodeValidatorNotJailed uint32 = 5
	CodeNoSelfDelegation   uint32 = 6
	CodeSelfDelegationLow  uint32 = 7
)

var errDesc = map[uint32]string{
	CodeNoValidator:        "address is not associated with any known validator",
	CodeValidatorJailed:    "validator still jailed; cannot be unjailed",
	CodeValidatorNotJailed: "validator not jailed; cannot be unjailed",
	CodeNoSelfDelegation:   "validator has no self-delegation; cannot be unjailed",
	CodeSelfDelegationLow:  "validator's self delegation less than minimum; cannot be unjailed",
}

// NewError is the module's error of code with its registered description.
func NewError(code uint32) *module.Error {
	return &module.Error{Codespace: CodespaceSlashing, Code: code, Desc: errDesc[code]}
}

func (m Module) msgUnjail() *module.MsgHandler {
	return &module.MsgHandler{
		TypeURL: TypeMsgUnjail, Module: Name, Gas: GasMsgUnjail,
		New: func() proto.Message { return new(slashingv1beta1.MsgUnjail) },
		Decode: func(p proto.Message, msg *module.Msg, c module.Codec) error {
			var err error
			msg.Signer, err = c.Operator(p.(*slashingv1beta1.MsgUnjail).ValidatorAddr)
			msg.Validator = msg.Signer
			return err
		},
		Check: func(st module.Reader, msg *module.Msg) error {
			_, err := m.checkUnjail(st, msg.Validator, time.Time{})
			return err
		},
		Exec: func(st module.State, msg *module.Msg, c *module.MsgContext) error {
			cons, err := m.checkUnjail(st, msg.Validator, c.Env.Time)
			if err != nil {
				return err
			}
			return m.Staking.Keeper.Unjail(st, cons)
		},
	}
}

// checkUnjail runs the SDK's checks of an unjail, in its order, and
// returns the validator's CometBFT address. A zero now skips the jail-time
// check (CheckTx knows no block time; execution checks it).
func (m Module) checkUnjail(st module.Reader, op common.Address, now time.Time) (common.Address, error) {
	s := m.Staking
	cons, ok := s.ConsAddress(st, op)
	if _, _, known := s.ValidatorTokens(st, op); !ok || !known {
		return common.Address{}, NewError(CodeNoValidator)
	}
	self := s.SelfDelegationTokens(st, op)
	if self == nil || self.Sign() == 0 {
		return common.Address{}, NewError(CodeNoSelfDelegation)
	}
	if min := s.MinSelfDelegation(st, op); self.Cmp(min) < 0 {
		return common.Address{}, NewError(CodeSelfDelegationLow).WithDetail("%s less than %s", self, min)
	}
	if !s.IsJailed(st, op) {
		return common.Address{}, NewError(CodeValidatorNotJailed)
	}
	// A jailed validator without signing info never signed a block: it was
	// jailed for its self-delegation alone and may leave at any time.
	if info, ok := GetSigningInfo(st, cons); ok {
		if info.Tombstoned || (!now.IsZero() && now.Before(info.JailedUntil)) {
			return common.Address{}, NewError(CodeValidatorJailed)
		}
	}
	return cons, nil
}
