package e2e

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// The reference distribution of TestRewardsMatchReference, written from
// the Cosmos SDK's x/distribution specification ("F1 fee distribution",
// the spec's begin-block allocation and hooks), not from Ember's
// distribution package: its own 18-place decimal arithmetic on big.Int and
// its own per-validator records.

// ref18 is 10^18, the scale of an SDK LegacyDec.
var ref18 = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)

// refDec is an SDK LegacyDec: an integer scaled by 10^18. The reference
// holds only non-negative amounts.
type refDec struct{ v *big.Int }

func refInt(i *big.Int) refDec { return refDec{new(big.Int).Mul(i, ref18)} }
func refZero() refDec          { return refDec{new(big.Int)} }

// refParse reads an SDK decimal string ("0.050000000000000000").
func refParse(s string) (refDec, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 18 {
		return refDec{}, fmt.Errorf("decimal %q has more than 18 places", s)
	}
	v, ok := new(big.Int).SetString(whole+(frac + strings.Repeat("0", 18))[:18], 10)
	if !ok || v.Sign() < 0 {
		return refDec{}, fmt.Errorf("decimal %q", s)
	}
	return refDec{v}, nil
}

func (d refDec) add(o refDec) refDec { return refDec{new(big.Int).Add(d.v, o.v)} }
func (d refDec) sub(o refDec) refDec { return refDec{new(big.Int).Sub(d.v, o.v)} }
func (d refDec) isZero() bool        { return d.v.Sign() == 0 }

// mulTruncate is the SDK's MulTruncate: the product, the digits beyond
// 18 places dropped.
func (d refDec) mulTruncate(o refDec) refDec {
	p := new(big.Int).Mul(d.v, o.v)
	return refDec{p.Quo(p, ref18)}
}

// mul is the SDK's Mul: the product rounded half to even at 18 places
// (chopPrecisionAndRound).
func (d refDec) mul(o refDec) refDec {
	q, r := new(big.Int).QuoRem(new(big.Int).Mul(d.v, o.v), ref18, new(big.Int))
	half := new(big.Int).Rsh(ref18, 1)
	switch c := r.Cmp(half); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	return refDec{q}
}

// quoTruncate is the SDK's QuoTruncate: d × 10^18 / o, truncated.
func (d refDec) quoTruncate(o refDec) refDec {
	p := new(big.Int).Mul(d.v, ref18)
	return refDec{p.Quo(p, o.v)}
}

// truncateInt is the whole part.
func (d refDec) truncateInt() *big.Int { return new(big.Int).Quo(d.v, ref18) }

// String is the SDK's JSON form: 18 places, always.
func (d refDec) String() string {
	q, r := new(big.Int).QuoRem(d.v, ref18, new(big.Int))
	return fmt.Sprintf("%s.%018s", q, r)
}

// refValidator is a validator's distribution records: the cumulative
// reward ratio of its last ended period, the rewards of its current one,
// its tokens, its commission rate and what it holds.
type refValidator struct {
	Rate        refDec
	Tokens      *big.Int
	Cumulative  refDec // Σ rewards/tokens of the ended periods
	Current     refDec // the current period's rewards (after commission)
	Commission  refDec // accumulated, not yet withdrawn
	Outstanding refDec // all it was allocated and nobody withdrew
}

// refDelegation is a delegation's starting info: its stake and the
// cumulative ratio of the period before it began.
type refDelegation struct {
	Stake refDec
	Start refDec
}

type refPair struct{ Del, Val common.Address }

// refChain is the reference state of the whole distribution.
type refChain struct {
	Vals        map[common.Address]*refValidator
	Dels        map[refPair]*refDelegation
	Community   refDec
	Tax         refDec
	Carry       *big.Int // in the fee collector, not yet allocated
	Collected   *big.Int // Σ allocated
	CommissionΣ refDec   // Σ commission allocated
	SharedΣ     refDec   // Σ rewards allocated to delegators' periods
	// AbsentShares are the shares of validators absent from a last
	// commit that went to the community pool instead (payAbsent off).
	AbsentShares refDec
	// AllocatedPool is what allocations gave the community pool (the tax,
	// truncations, absent shares); withdrawals add their fractions too.
	AllocatedPool refDec
}

func newRefChain(tax refDec) *refChain {
	return &refChain{Vals: map[common.Address]*refValidator{}, Dels: map[refPair]*refDelegation{}, Community: refZero(), Tax: tax,
		Carry: new(big.Int), Collected: new(big.Int), CommissionΣ: refZero(), SharedΣ: refZero(), AbsentShares: refZero(), AllocatedPool: refZero()}
}

// refVote is one entry of a block's last commit: the validator of that
// power in the previous block's set, and whether it signed.
type refVote struct {
	Val    common.Address
	Power  int64
	Signed bool
}

// refAllocation is what one block's allocation gave a validator.
type refAllocation struct {
	Reward, Commission refDec
}

// allocate is the SDK's AllocateTokens with the proposer reward gone (its
// parameters are 0, deprecated): the fee collector's whole balance comes
// in; each validator of the last commit gets collected × (1 − tax),
// truncated, × power/total (truncated), truncated; the commission is that
// × rate (rounded), the rest joins the current period; what the
// truncations leave, and the tax, go to the community pool. payAbsent is
// the SDK's rule that a validator in the commit gets its share whether or
// not it signed; without it an absent validator's share stays with the
// community.
func (c *refChain) allocate(votes []refVote, payAbsent bool) map[common.Address]refAllocation {
	collected := c.Carry
	c.Carry = new(big.Int)
	out := map[common.Address]refAllocation{}
	if collected.Sign() == 0 {
		return out
	}
	c.Collected.Add(c.Collected, collected)
	fees := refInt(collected)
	var total int64
	for _, v := range votes {
		total += v.Power
	}
	if total == 0 {
		c.Community = c.Community.add(fees)
		return out
	}
	remaining := fees
	perPower := fees.mulTruncate(refInt(big.NewInt(1)).sub(c.Tax))
	for _, v := range votes {
		reward := perPower.mulTruncate(refInt(big.NewInt(v.Power)).quoTruncate(refInt(big.NewInt(total))))
		if !v.Signed && !payAbsent {
			c.AbsentShares = c.AbsentShares.add(reward)
			continue
		}
		val := c.Vals[v.Val]
		commission := reward.mul(val.Rate)
		val.Commission = val.Commission.add(commission)
		val.Current = val.Current.add(reward.sub(commission))
		val.Outstanding = val.Outstanding.add(reward)
		c.CommissionΣ = c.CommissionΣ.add(commission)
		c.SharedΣ = c.SharedΣ.add(reward.sub(commission))
		out[v.Val] = refAllocation{Reward: reward, Commission: commission}
		remaining = remaining.sub(reward)
	}
	c.Community = c.Community.add(remaining)
	c.AllocatedPool = c.AllocatedPool.add(remaining)
	return out
}

// endPeriod is IncrementValidatorPeriod: the current rewards over the
// tokens, truncated, join the cumulative ratio (a validator without
// tokens gives them to the community pool).
func (c *refChain) endPeriod(val common.Address) {
	v := c.Vals[val]
	if v.Tokens.Sign() == 0 {
		c.Community = c.Community.add(v.Current)
		v.Outstanding = v.Outstanding.sub(v.Current)
	} else {
		v.Cumulative = v.Cumulative.add(v.Current.quoTruncate(refInt(v.Tokens)))
	}
	v.Current = refZero()
}

// pending is what a delegation has earned up to the last ended period.
func (c *refChain) earned(p refPair) refDec {
	d := c.Dels[p]
	return c.Vals[p.Val].Cumulative.sub(d.Start).mulTruncate(d.Stake)
}

// queryRewards is the delegation rewards query: the current period ended
// in a scratch copy, then earned.
func (c *refChain) queryRewards(p refPair) refDec {
	v := c.Vals[p.Val]
	cum := v.Cumulative.add(v.Current.quoTruncate(refInt(v.Tokens)))
	d := c.Dels[p]
	return cum.sub(d.Start).mulTruncate(d.Stake)
}

// withdraw is withdrawDelegationRewards: the period ends, the delegation's
// rewards leave the outstanding rewards, their whole part is paid, the
// fraction goes to the community pool. It returns what it paid; the
// delegation's record is gone (the caller starts a new one).
func (c *refChain) withdraw(p refPair) *big.Int {
	c.endPeriod(p.Val)
	r := c.earned(p)
	v := c.Vals[p.Val]
	v.Outstanding = v.Outstanding.sub(r)
	paid := r.truncateInt()
	c.Community = c.Community.add(r.sub(refInt(paid)))
	delete(c.Dels, p)
	return paid
}

// start is initializeDelegation: the delegation counts from the period
// just ended, with stake tokens (shares are tokens while no slash has cut
// the exchange rate).
func (c *refChain) start(p refPair, stake *big.Int) {
	c.Dels[p] = &refDelegation{Stake: refInt(stake), Start: c.Vals[p.Val].Cumulative}
}

// delegate is staking's Delegate with distribution's hooks: a new
// delegation ends the validator's period (BeforeDelegationCreated), an
// existing one is withdrawn first (BeforeDelegationSharesModified); the
// tokens grow and the delegation starts again (AfterDelegationModified).
// It returns the rewards paid by the withdrawal.
func (c *refChain) delegate(p refPair, amount *big.Int) *big.Int {
	paid, stake := new(big.Int), new(big.Int).Set(amount)
	if d, ok := c.Dels[p]; ok {
		stake.Add(stake, d.Stake.truncateInt())
		paid = c.withdraw(p)
	} else {
		c.endPeriod(p.Val)
	}
	v := c.Vals[p.Val]
	v.Tokens = new(big.Int).Add(v.Tokens, amount)
	c.start(p, stake)
	return paid
}

// withdrawRewards is MsgWithdrawDelegatorReward: withdraw, then start
// again at the same stake.
func (c *refChain) withdrawRewards(p refPair) *big.Int {
	stake := c.Dels[p].Stake.truncateInt()
	paid := c.withdraw(p)
	c.start(p, stake)
	return paid
}

// withdrawCommission is MsgWithdrawValidatorCommission: the whole part of
// the accumulated commission is paid, the fraction stays.
func (c *refChain) withdrawCommission(val common.Address) *big.Int {
	v := c.Vals[val]
	paid := v.Commission.truncateInt()
	v.Commission = v.Commission.sub(refInt(paid))
	v.Outstanding = v.Outstanding.sub(refInt(paid))
	return paid
}
