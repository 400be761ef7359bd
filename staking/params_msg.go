package staking

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"

	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// TypeMsgUpdateParams is governance's message that replaces the params.
const TypeMsgUpdateParams = "/cosmos.staking.v1beta1.MsgUpdateParams"

// GasMsgUpdateParams is its fixed gas.
const GasMsgUpdateParams = 20_000

func (k *Keeper) msgUpdateParams() *module.MsgHandler {
	return module.GovOnly(TypeMsgUpdateParams, Name, GasMsgUpdateParams, func() *stakingv1beta1.MsgUpdateParams { return new(stakingv1beta1.MsgUpdateParams) },
		module.GovSignerError, func(st module.State, msg *stakingv1beta1.MsgUpdateParams, env *module.Env) error {
			p, err := ParamsFromProto(msg.GetParams(), env.Denom)
			if err != nil {
				return err
			}
			return UpdateParams(st, p)
		})
}

// ParamsFromProto checks p as x/staking's Params.Validate does, in its
// order and with its messages, and then Ember's own rule: the bond denom
// is the chain's only coin, chainDenom, and cannot change.
func ParamsFromProto(p *stakingv1beta1.Params, chainDenom string) (Params, error) {
	if p == nil {
		p = &stakingv1beta1.Params{}
	}
	out := Params{
		UnbondingTime: p.GetUnbondingTime().AsDuration(), MaxValidators: uint64(p.MaxValidators),
		MaxEntries: uint64(p.MaxEntries), HistoricalEntries: uint64(p.HistoricalEntries), BondDenom: p.BondDenom,
	}
	rate, rateErr := protoDec(p.MinCommissionRate)
	out.MinCommissionRate = rate
	for _, check := range []func() error{
		func() error { return ValidateUnbondingTime(out.UnbondingTime) },
		func() error { return ValidateMaxValidators(out.MaxValidators) },
		func() error { return ValidateMaxEntries(out.MaxEntries) },
		func() error { return ValidateBondDenom(out.BondDenom) },
		func() error {
			if rateErr != nil {
				return rateErr
			}
			return ValidateMinCommissionRate(out.MinCommissionRate)
		},
	} {
		if err := check(); err != nil {
			return Params{}, module.ValidationError(err)
		}
	}
	if out.BondDenom != chainDenom {
		return Params{}, module.ValidationError(errBondDenomFixed(out.BondDenom, chainDenom))
	}
	return out, nil
}

// protoDec reads a LegacyDec in its protobuf form (the value × 10^18); an
// empty field is the SDK's nil Dec.
func protoDec(s string) (dec.Dec, error) {
	if s == "" {
		return dec.Zero(), fmt.Errorf("minimum commission rate cannot be nil: <nil>")
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return dec.Zero(), fmt.Errorf("invalid minimum commission rate %q: want a LegacyDec (the value × 10^18)", s)
	}
	return dec.FromRaw(n), nil
}

func errBondDenomFixed(got, chain string) error {
	return fmt.Errorf("bond denom %s: the bond denom is the chain's only coin, %s, and cannot change", got, chain)
}

// ValidateUnbondingTime is x/staking's rule for unbonding_time.
func ValidateUnbondingTime(d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("unbonding time must be positive: %d", d)
	}
	return nil
}

// ValidateMaxValidators is x/staking's rule for max_validators.
func ValidateMaxValidators(n uint64) error {
	if n == 0 {
		return fmt.Errorf("max validators must be positive: %d", n)
	}
	return nil
}

// ValidateMaxEntries is x/staking's rule for max_entries.
func ValidateMaxEntries(n uint64) error {
	if n == 0 {
		return fmt.Errorf("max entries must be positive: %d", n)
	}
	return nil
}

// denomPattern is the SDK's coin denomination rule (types/coin.go).
var denomPattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$`)

// ValidateBondDenom is x/staking's rule for bond_denom: not blank, and a
// valid coin denomination.
func ValidateBondDenom(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("bond denom cannot be blank")
	}
	if !denomPattern.MatchString(s) {
		return fmt.Errorf("invalid denom: %s", s)
	}
	return nil
}

// ValidateMinCommissionRate is x/staking's rule for min_commission_rate.
func ValidateMinCommissionRate(r dec.Dec) error {
	if r.IsNegative() {
		return fmt.Errorf("minimum commission rate cannot be negative: %s", r)
	}
	if r.GT(dec.One()) {
		return fmt.Errorf("minimum commission rate cannot be greater than 100%%: %s", r)
	}
	return nil
}

// UpdateParams writes p, which ParamsFromProto (or a caller that applied
// the same rules) checked, after Ember's storage rule: the unbonding time
// is kept in whole seconds. A change takes effect as in the SDK: the next
// end-block's bonded set uses max_validators; an unbonding entry or
// redelegation keeps the completion time it was given, so a new
// unbonding_time applies to new ones only; min_commission_rate binds new
// validators and commission changes.
func UpdateParams(st module.State, p Params) error {
	if err := p.Validate(); err != nil {
		return module.ValidationError(err)
	}
	setParams(st, p)
	return nil
}

// Validate applies x/staking's rules but the bond denom's (an empty bond
// denom is the chain's), and Ember's: the unbonding time is stored in
// whole seconds.
func (p Params) Validate() error {
	for _, err := range []error{ValidateUnbondingTime(p.UnbondingTime), ValidateMaxValidators(p.MaxValidators),
		ValidateMaxEntries(p.MaxEntries), ValidateMinCommissionRate(p.MinCommissionRate)} {
		if err != nil {
			return err
		}
	}
	if p.UnbondingTime%time.Second != 0 {
		return fmt.Errorf("unbonding time must be a whole number of seconds: %s", p.UnbondingTime)
	}
	return nil
}
