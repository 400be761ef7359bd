package distribution

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Keeper is the distribution module's state machine over the staking
// module it reads; it implements staking's Hooks (hooks.go).
type Keeper struct {
	Staking Staking
}

// height is the height of the block being executed: begin-block writes it
// and end-block clears it, so that it changes no state root (an idle
// block must leave the AppHash as it was, or a chain without empty blocks
// would make them without end). 0 at genesis and between blocks.
func height(st module.Reader) uint64 { return store.Uint(st, slots.Word(slotHeight)) }

// initializeValidator starts op's records: period 0 with a zero ratio
// referenced once (by period 1), period 1 current with no rewards.
func initializeValidator(st module.State, op common.Address) {
	setHistorical(st, op, 0, Historical{CumulativeRatio: dec.Zero(), ReferenceCount: 1})
	setCurrentRewards(st, op, dec.Zero(), 1)
	setCommission(st, op, dec.Zero())
	setOutstanding(st, op, dec.Zero())
}

// ensureValidator initialises op if staking never told distribution of
// it (a validator from before the module was on).
func ensureValidator(st module.State, op common.Address) {
	if _, period := CurrentRewards(st, op); period == 0 {
		initializeValidator(st, op)
	}
}

// incrementPeriod closes op's current period: its rewards per token are
// added to the cumulative ratio of the new historical record, which the
// next period starts from. A validator without tokens cannot spread
// rewards over them: they go to the community pool.
func (k *Keeper) incrementPeriod(st module.State, op common.Address) (uint64, error) {
	ensureValidator(st, op)
	rewards, period := CurrentRewards(st, op)
	tokens, _, _ := k.Staking.ValidatorTokens(st, op)
	current := dec.Zero()
	if tokens == nil || tokens.Sign() == 0 {
		addCommunityPool(st, rewards)
		setOutstanding(st, op, Outstanding(st, op).Sub(rewards))
	} else {
		current = rewards.QuoTruncate(dec.FromInt(tokens))
	}
	prev := HistoricalRewards(st, op, period-1)
	if err := decrementReference(st, op, period-1); err != nil {
		return 0, err
	}
	setHistorical(st, op, period, Historical{CumulativeRatio: prev.CumulativeRatio.Add(current), ReferenceCount: 1})
	setCurrentRewards(st, op, dec.Zero(), period+1)
	return period, nil
}

func incrementReference(st module.State, op common.Address, period uint64) {
	h := HistoricalRewards(st, op, period)
	h.ReferenceCount++
	setHistorical(st, op, period, h)
}

// decrementReference drops one reference to a period's record and deletes
// the record when none is left.
func decrementReference(st module.State, op common.Address, period uint64) error {
	h := HistoricalRewards(st, op, period)
	if h.ReferenceCount == 0 {
		return fmt.Errorf("distribution: historical rewards %s period %d: no reference to drop", op.Hex(), period)
	}
	h.ReferenceCount--
	if h.ReferenceCount == 0 {
		h.CumulativeRatio = dec.Zero()
	}
	setHistorical(st, op, period, h)
	return nil
}

// initializeDelegation starts counting del's rewards from op's previous
// period, with its stake in tokens now.
func (k *Keeper) initializeDelegation(st module.State, del, op common.Address) {
	_, period := CurrentRewards(st, op)
	prev := period - 1
	incrementReference(st, op, prev)
	tokens, total, _ := k.Staking.ValidatorTokens(st, op)
	shares, _ := k.Staking.DelegationShares(st, del, op)
	setStarting(st, del, op, StartingInfo{PreviousPeriod: prev, Stake: tokensFromSharesTruncated(tokens, total, shares), Height: height(st)})
}

// rewardsBetween are the rewards of stake from period start to end:
// (ratio(end) − ratio(start)) × stake, truncated.
func rewardsBetween(st module.Reader, op common.Address, start, end uint64, stake dec.Dec) (dec.Dec, error) {
	if start > end || stake.IsNegative() {
		return dec.Dec{}, fmt.Errorf("distribution: rewards of %s from period %d to %d, stake %s", op.Hex(), start, end, stake)
	}
	diff := HistoricalRewards(st, op, end).CumulativeRatio.Sub(HistoricalRewards(st, op, start).CumulativeRatio)
	if diff.IsNegative() {
		return dec.Dec{}, fmt.Errorf("distribution: negative rewards of %s from period %d to %d", op.Hex(), start, end)
	}
	return diff.MulTruncate(stake), nil
}

// delegationRewards are del's rewards from op up to period end (which the
// caller just closed), walking the slash events since the delegation
// began: each ends a stretch at the stake before it and cuts the stake.
func (k *Keeper) delegationRewards(st module.Reader, del, op common.Address, end uint64) (dec.Dec, error) {
	si, _ := Starting(st, del, op)
	rewards := dec.Zero()
	start, stake := si.PreviousPeriod, si.Stake
	// A slash before the delegation ended a period at or before its
	// start: the periods alone pick the slashes it took part in.
	for _, ev := range SlashEvents(st, op) {
		if ev.Period <= start {
			continue
		}
		r, err := rewardsBetween(st, op, start, ev.Period, stake)
		if err != nil {
			return dec.Dec{}, err
		}
		rewards = rewards.Add(r)
		stake = stake.MulTruncate(dec.One().Sub(ev.Fraction))
		start = ev.Period
	}
	tokens, total, _ := k.Staking.ValidatorTokens(st, op)
	shares, _ := k.Staking.DelegationShares(st, del, op)
	current := tokensFromShares(tokens, total, shares)
	if stake.GT(current) {
		// Slashing period by period truncates differently from staking's
		// one computation: a few units in the last place are tolerated.
		if stake.GT(current.Add(dec.FromRaw(big.NewInt(3)))) {
			return dec.Dec{}, fmt.Errorf("distribution: %s's stake in %s is %s, above the %s it holds", del.Hex(), op.Hex(), stake, current)
		}
		stake = current
	}
	r, err := rewardsBetween(st, op, start, end, stake)
	if err != nil {
		return dec.Dec{}, err
	}
	return rewards.Add(r), nil
}

// withdrawDelegation pays del's rewards from op to its withdraw address,
// truncated to whole units; the fraction left goes to the community pool.
// It ends the delegation's starting info (the caller starts a new one if
// the delegation goes on). It returns what it paid.
func (k *Keeper) withdrawDelegation(st module.State, ev *module.Events, del, op common.Address, idx string) (*big.Int, error) {
	si, ok := Starting(st, del, op)
	if !ok {
		return nil, errNoDelegationDistInfo
	}
	end, err := k.incrementPeriod(st, op)
	if err != nil {
		return nil, err
	}
	raw, err := k.delegationRewards(st, del, op, end)
	if err != nil {
		return nil, err
	}
	outstanding := Outstanding(st, op)
	rewards := dec.Min(raw, outstanding) // never pay more than was allocated
	paid := rewards.TruncateInt()
	setOutstanding(st, op, outstanding.Sub(rewards))
	addCommunityPool(st, rewards.Sub(dec.FromInt(paid)))
	if paid.Sign() > 0 {
		if err := pay(st, ev, WithdrawAddress(st, del), paid, idx); err != nil {
			return nil, err
		}
	}
	if err := decrementReference(st, op, si.PreviousPeriod); err != nil {
		return nil, err
	}
	deleteStarting(st, del, op)
	ev.Add("withdraw_rewards", "amount", ev.Coin(paid), "validator", ev.Valoper(op), "delegator", ev.Acc(del), "msg_index", idx)
	return paid, nil
}

// withdrawCommission pays op's accumulated commission, truncated, to the
// operator's withdraw address; the fraction stays accumulated.
func withdrawCommission(st module.State, ev *module.Events, op common.Address, idx string) (*big.Int, error) {
	acc := Commission(st, op)
	if acc.IsZero() {
		return nil, errNoValidatorCommission
	}
	paid := acc.TruncateInt()
	setCommission(st, op, acc.Sub(dec.FromInt(paid)))
	setOutstanding(st, op, Outstanding(st, op).Sub(dec.FromInt(paid)))
	if paid.Sign() > 0 {
		if err := pay(st, ev, WithdrawAddress(st, op), paid, idx); err != nil {
			return nil, err
		}
	}
	ev.Add("withdraw_commission", "amount", coinsString(ev, paid), "msg_index", idx)
	return paid, nil
}

// coinsString is an amount as the SDK's Coins print it: empty for zero.
func coinsString(ev *module.Events, a *big.Int) string {
	if a.Sign() == 0 {
		return ""
	}
	return ev.Coin(a)
}
