package staking

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/module"
)

// bondedSet is the validators that should be bonded: the top
// MaxValidators non-jailed validators by power (power at least 1), ties
// to the lower operator address, as the SDK's power index orders them.
func bondedSet(st module.Reader, all []*Validator) map[*Validator]bool {
	var cands []*Validator
	for _, v := range all {
		if !v.Jailed && v.Power() >= 1 {
			cands = append(cands, v)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if pi, pj := cands[i].Power(), cands[j].Power(); pi != pj {
			return pi > pj
		}
		return bytes.Compare(cands[i].Operator[:], cands[j].Operator[:]) < 0
	})
	if max := GetParams(st).MaxValidators; uint64(len(cands)) > max {
		cands = cands[:max]
	}
	top := make(map[*Validator]bool, len(cands))
	for _, v := range cands {
		top[v] = true
	}
	return top
}

// setStatus changes v's status, moving its tokens between the pools.
func setStatus(st module.State, b *module.Block, v *Validator, s BondStatus) error {
	from := v.pool()
	v.Status = s
	if v.HasOperator && from != v.pool() && v.Tokens.Sign() > 0 {
		if err := transfer(st, from, v.pool(), v.Tokens); err != nil {
			return fmt.Errorf("validator %s: %w", v.Operator.Hex(), err)
		}
		if b != nil && b.Events != nil {
			b.Events.Coins(from, v.pool(), v.Tokens, "")
		}
	}
	return nil
}

// ApplyValidatorSet makes the bonded set the top validators (see
// bondedSet): one entering is bonded, one leaving starts unbonding until
// now + the unbonding time. It returns the power changes CometBFT is to
// be told (power 0 removes), in creation order. A set that would be empty
// is not applied: CometBFT halts on an empty set.
func ApplyValidatorSet(st module.State, b *module.Block, height int64, now time.Time) ([]abci.ValidatorUpdate, error) {
	all := All(st)
	top := bondedSet(st, all)
	if len(top) == 0 {
		return nil, nil
	}
	var out []abci.ValidatorUpdate
	for _, v := range all {
		power := int64(0)
		switch {
		case top[v] && !v.IsBonded():
			if err := setStatus(st, b, v, Bonded); err != nil {
				return nil, err
			}
		case !top[v] && v.IsBonded():
			if err := setStatus(st, b, v, Unbonding); err != nil {
				return nil, err
			}
			v.UnbondingTime, v.UnbondingHeight = now.Add(GetParams(st).UnbondingTime), height
			enqueue(st, v.UnbondingTime, queueItem{Kind: itemValidator, Val: v.Operator})
		}
		if top[v] {
			power = v.Power()
		}
		changed := power != v.ReportedPower
		v.ReportedPower = power
		if changed || top[v] != v.IsBonded() {
			setValidator(st, v)
		}
		if changed {
			out = append(out, abci.Ed25519ValidatorUpdate(v.ConsPubKey, power))
		}
	}
	return out, nil
}

// Matured is what a maturity pass completed.
type Matured struct {
	Unbondings    []Completed
	Redelegations []Completed // Operator is the source, Dst the destination
}

// Completed is a completed unbonding delegation or redelegation.
type Completed struct {
	Delegator, Operator, Dst common.Address
	Amount                   *big.Int
}

// Mature completes every unbonding entry, redelegation entry and
// unbonding validator whose time is at or before now (SDK
// DequeueAllMature* and UnbondAllMatureValidators).
func Mature(st module.State, now time.Time) (*Matured, error) {
	out := &Matured{}
	for _, it := range dequeueMature(st, now) {
		switch it.Kind {
		case itemUBD:
			paid, any, err := completeUnbonding(st, it.Delegator, it.Val, now)
			if err != nil {
				return nil, fmt.Errorf("unbonding of %s from %s: %w", it.Delegator.Hex(), it.Val.Hex(), err)
			}
			if any {
				out.Unbondings = append(out.Unbondings, Completed{Delegator: it.Delegator, Operator: it.Val, Amount: paid})
			}
		case itemRed:
			amt, any := completeRedelegation(st, it.Delegator, it.Val, it.Dst, now)
			if !any {
				continue
			}
			out.Redelegations = append(out.Redelegations, Completed{Delegator: it.Delegator, Operator: it.Val, Dst: it.Dst, Amount: amt})
		case itemValidator:
			v, ok := Get(st, it.Val)
			if ok && v.Status == Unbonding && !v.UnbondingTime.After(now) {
				v.Status = Unbonded
				setValidator(st, v)
			}
		}
	}
	return out, nil
}
