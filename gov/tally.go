package gov

import (
	"math/big"

	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/staking"
)

// Staking is what the tally reads of the staking module.
type Staking interface {
	// BondedValidators are the validators of the bonded set.
	BondedValidators(st module.Reader) []BondedValidator
	// Delegations are delegator's delegations.
	Delegations(st module.Reader, delegator common.Address) []Delegation
	// TotalBonded is the bonded pool's balance.
	TotalBonded(st module.Reader) *big.Int
}

// BondedValidator is a bonded validator's operator, tokens and shares.
type BondedValidator struct {
	Operator        common.Address
	Tokens          *big.Int
	DelegatorShares dec.Dec
}

// Delegation is one delegation's validator and shares.
type Delegation struct {
	Validator common.Address
	Shares    dec.Dec
}

// stakingState reads package staking's state.
type stakingState struct{}

func (stakingState) BondedValidators(st module.Reader) []BondedValidator {
	var out []BondedValidator
	for _, v := range staking.All(st) {
		if v.IsBonded() {
			out = append(out, BondedValidator{Operator: v.Operator, Tokens: v.Tokens, DelegatorShares: v.DelegatorShares})
		}
	}
	return out
}

func (stakingState) Delegations(st module.Reader, del common.Address) []Delegation {
	var out []Delegation
	for _, op := range staking.DelegatorValidators(st, del) {
		if sh, ok := staking.DelegationShares(st, del, op); ok {
			out = append(out, Delegation{Validator: op, Shares: sh})
		}
	}
	return out
}

func (stakingState) TotalBonded(st module.Reader) *big.Int {
	return st.GetBalance(staking.BondedPool).ToBig()
}

// outcome is a tally: whether the proposal passes, whether its deposits
// are burned, and the counts.
type outcome struct {
	passes, burn bool
	result       *govv1.TallyResult
}

// valInfo is a bonded validator during a tally (the SDK's ValidatorGovInfo).
type valInfo struct {
	BondedValidator
	deductions dec.Dec
	vote       []*govv1.WeightedVoteOption
}

// tally counts the votes on proposal id as the SDK's Keeper.Tally does:
// each voter's delegations to bonded validators count for the voter and
// are deducted from their validator, whose own vote counts for the
// delegated shares left; quorum is on the bonded tokens, then veto, then
// the threshold on the non-abstaining power.
func tally(st module.Reader, sk Staking, p Params, id uint64) outcome {
	results := map[govv1.VoteOption]dec.Dec{}
	total := dec.Zero()
	vals := map[common.Address]*valInfo{}
	for _, v := range sk.BondedValidators(st) {
		vals[v.Operator] = &valInfo{BondedValidator: v, deductions: dec.Zero()}
	}
	add := func(power dec.Dec, opts []*govv1.WeightedVoteOption) {
		for _, o := range opts {
			w, _ := dec.Parse(o.Weight) // checked when the vote was cast
			results[o.Option] = results[o.Option].Add(power.Mul(w))
		}
		total = total.Add(power)
	}
	for _, v := range Votes(st, id) {
		if val, ok := vals[v.Voter]; ok {
			val.vote = v.Options
		}
		for _, d := range sk.Delegations(st, v.Voter) {
			val, ok := vals[d.Validator]
			if !ok {
				continue
			}
			val.deductions = val.deductions.Add(d.Shares)
			add(d.Shares.MulInt(val.Tokens).Quo(val.DelegatorShares), v.Options)
		}
	}
	for _, val := range vals {
		if len(val.vote) == 0 {
			continue
		}
		add(val.DelegatorShares.Sub(val.deductions).MulInt(val.Tokens).Quo(val.DelegatorShares), val.vote)
	}
	out := outcome{result: &govv1.TallyResult{
		YesCount:        results[govv1.VoteOption_VOTE_OPTION_YES].TruncateInt().String(),
		AbstainCount:    results[govv1.VoteOption_VOTE_OPTION_ABSTAIN].TruncateInt().String(),
		NoCount:         results[govv1.VoteOption_VOTE_OPTION_NO].TruncateInt().String(),
		NoWithVetoCount: results[govv1.VoteOption_VOTE_OPTION_NO_WITH_VETO].TruncateInt().String(),
	}}
	bonded := sk.TotalBonded(st)
	if bonded.Sign() == 0 {
		return out
	}
	if total.Quo(dec.FromInt(bonded)).LT(p.Quorum) {
		out.burn = p.BurnVoteQuorum
		return out
	}
	voting := total.Sub(results[govv1.VoteOption_VOTE_OPTION_ABSTAIN])
	if voting.IsZero() {
		return out
	}
	if results[govv1.VoteOption_VOTE_OPTION_NO_WITH_VETO].Quo(total).GT(p.VetoThreshold) {
		out.burn = p.BurnVoteVeto
		return out
	}
	out.passes = results[govv1.VoteOption_VOTE_OPTION_YES].Quo(voting).GT(p.Threshold)
	return out
}

// emptyTally is the tally of a proposal nobody voted on yet.
func emptyTally() *govv1.TallyResult {
	return &govv1.TallyResult{YesCount: "0", AbstainCount: "0", NoCount: "0", NoWithVetoCount: "0"}
}
