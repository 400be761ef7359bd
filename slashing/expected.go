package slashing

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Keeper is the part of staking's keeper that punishes a validator, by its
// CometBFT (consensus) address: *staking.Keeper satisfies it. As the SDK's
// "expected keepers", it lets slashing compile and be tested without
// importing staking.
type Keeper interface {
	// Slash burns power × 10^18 × fraction of the stake the validator had at
	// infractionHeight (unbonding entries and redelegations begun since
	// included) and returns what it burned; it emits nothing.
	Slash(st module.State, ev *module.Events, cons common.Address, infractionHeight, currentHeight int64, now time.Time, power int64, fraction dec.Dec) (burned *big.Int, err error)
	// Jail takes the validator out of the bonded set at the block's end.
	Jail(st module.State, cons common.Address) error
	// Unjail lets it back.
	Unjail(st module.State, cons common.Address) error
}

// Staking is what slashing needs of staking: its Keeper and the read
// functions of package staking, as function values so the wiring
// (native.Modules) passes staking.OperatorByCons and the others as they are.
type Staking struct {
	Keeper Keeper
	// OperatorByCons is the operator of the validator with CometBFT
	// address cons.
	OperatorByCons func(st module.Reader, cons common.Address) (op common.Address, ok bool)
	// ConsAddress is the CometBFT address of operator op's validator.
	ConsAddress func(st module.Reader, op common.Address) (cons common.Address, ok bool)
	// IsJailed tells whether op's validator is jailed.
	IsJailed func(st module.Reader, op common.Address) bool
	// SelfDelegationTokens is the operator's own delegation in tokens.
	SelfDelegationTokens func(st module.Reader, op common.Address) *big.Int
	// MinSelfDelegation is the validator's minimum self-delegation.
	MinSelfDelegation func(st module.Reader, op common.Address) *big.Int
	// ValidatorTokens are the validator's tokens and shares; ok is false
	// for an unknown operator.
	ValidatorTokens func(st module.Reader, op common.Address) (tokens *big.Int, shares dec.Dec, ok bool)
}

// jailedByCons tells whether the validator of cons exists and whether it
// is jailed.
func (s *Staking) jailedByCons(st module.Reader, cons common.Address) (known, jailed bool) {
	op, ok := s.OperatorByCons(st, cons)
	if !ok {
		return false, false
	}
	return true, s.IsJailed(st, op)
}
