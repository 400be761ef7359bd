package staking

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Hooks are what staking tells other modules, at the points the SDK's
// StakingHooks fire. An error from a hook fails the operation.
type Hooks interface {
	AfterValidatorCreated(st module.State, val common.Address) error
	BeforeDelegationCreated(st module.State, del, val common.Address) error
	BeforeDelegationSharesModified(st module.State, del, val common.Address) error
	AfterDelegationModified(st module.State, del, val common.Address) error
	BeforeValidatorSlashed(st module.State, val common.Address, fraction dec.Dec) error
}

// Keeper is staking with its hooks; the module, and other modules, call it.
type Keeper struct {
	Hooks Hooks // nil: none
	// Tombstoned tells whether the validator with CometBFT address cons is
	// tombstoned (slashing keeps tombstones); nil: never. Delegations and
	// redelegations to a tombstoned validator are refused.
	Tombstoned func(st module.Reader, cons common.Address) bool
}

type noHooks struct{}

func (noHooks) AfterValidatorCreated(module.State, common.Address) error { return nil }
func (noHooks) BeforeDelegationCreated(module.State, common.Address, common.Address) error {
	return nil
}
func (noHooks) BeforeDelegationSharesModified(module.State, common.Address, common.Address) error {
	return nil
}
func (noHooks) AfterDelegationModified(module.State, common.Address, common.Address) error {
	return nil
}
func (noHooks) BeforeValidatorSlashed(module.State, common.Address, dec.Dec) error { return nil }

func (k *Keeper) hooks() Hooks {
	if k == nil || k.Hooks == nil {
		return noHooks{}
	}
	return k.Hooks
}

func (k *Keeper) tombstoned(st module.Reader, v *Validator) bool {
	return k != nil && k.Tombstoned != nil && k.Tombstoned(st, v.ConsAddress())
}

// OperatorByCons is the operator of the validator with CometBFT address cons.
func OperatorByCons(st module.Reader, cons common.Address) (op common.Address, ok bool) {
	w := store.Get(st, slots.Map(slots.AddrWord(cons), slots.Word(slotByCons)))
	return slots.WordAddr(w), w != (common.Hash{})
}

// ConsAddress is the CometBFT address of op's validator.
func ConsAddress(st module.Reader, op common.Address) (cons common.Address, ok bool) {
	v, ok := Get(st, op)
	if !ok {
		return common.Address{}, false
	}
	return v.ConsAddress(), true
}

// IsJailed tells whether op's validator is jailed.
func IsJailed(st module.Reader, op common.Address) bool {
	v, ok := Get(st, op)
	return ok && v.Jailed
}

// ValidatorTokens are op's validator's tokens and delegator shares.
func ValidatorTokens(st module.Reader, op common.Address) (tokens *big.Int, shares dec.Dec, ok bool) {
	v, ok := Get(st, op)
	if !ok {
		return new(big.Int), dec.Zero(), false
	}
	return v.Tokens, v.DelegatorShares, true
}

// CommissionRate is op's validator's commission rate (0 without validator).
func CommissionRate(st module.Reader, op common.Address) dec.Dec {
	return store.Dec(st, slots.Offset(validatorSlot(op), 8))
}

// MinSelfDelegation is op's validator's minimum self-delegation.
func MinSelfDelegation(st module.Reader, op common.Address) *big.Int {
	return store.Big(st, slots.Offset(validatorSlot(op), 12))
}

func sharesSlot(del, op common.Address) common.Hash { return mapSlot2(del, op, slotShares) }

// DelegationShares are del's shares of op's validator; ok is false without
// a delegation.
func DelegationShares(st module.Reader, del, op common.Address) (dec.Dec, bool) {
	s := store.Dec(st, sharesSlot(del, op))
	return s, s.IsPositive()
}

// SelfDelegationTokens is op's own delegation in tokens (truncated).
func SelfDelegationTokens(st module.Reader, op common.Address) *big.Int {
	v, ok := Get(st, op)
	s, has := DelegationShares(st, op, op)
	if !ok || !has {
		return new(big.Int)
	}
	return v.TokensFromShares(s).TruncateInt()
}

// DelegatorValidators are the validators del has a delegation with, in the
// order of its index (see addrSet).
func DelegatorValidators(st module.Reader, del common.Address) []common.Address {
	return setOf(slotDelVals, del).List(st)
}

// ValidatorDelegators are the delegators of op's validator, in the order
// of its index.
func ValidatorDelegators(st module.Reader, op common.Address) []common.Address {
	return setOf(slotValDels, op).List(st)
}
