package distribution

import (
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// BeginBlock allocates what the fee collector holds (the previous block's
// priority fees and this block's mint) as the SDK's AllocateTokens does,
// from the second block on (the first has no previous signers), then
// records this block's proposer for the next allocation.
func (k *Keeper) BeginBlock(st module.State, b *module.Block) error {
	if !Enabled(st) {
		return nil
	}
	store.SetUint(st, slots.Word(slotHeight), uint64(max(b.Env.Height, 0)))
	if b.Env.Height > 1 {
		if err := k.allocate(st, b.Events, b.Info.Votes); err != nil {
			return err
		}
	}
	store.Set(st, slots.Word(slotPrevProposer), slots.AddrWord(b.Info.Proposer))
	return nil
}

// allocate moves the fee collector's balance into the pool and splits it:
// the previous proposer's reward (base + bonus × the signed fraction of
// power), then each signer's share of the rest after the community tax,
// by power over the previous block's whole validator set (an absent
// validator's share stays with the community), and the remainder of the
// truncations to the community pool, so the records always sum to what
// came in.
func (k *Keeper) allocate(st module.State, ev *module.Events, votes []module.Vote) error {
	fees := st.GetBalance(FeeCollector).ToBig()
	if fees.Sign() == 0 {
		return nil
	}
	if err := move(st, ev, FeeCollector, Pool, fees, ""); err != nil {
		return err
	}
	collected := dec.FromInt(fees)
	var total, signed int64
	for _, v := range votes {
		total += v.Power
		if v.Signed {
			signed += v.Power
		}
	}
	if total <= 0 {
		addCommunityPool(st, collected)
		return nil
	}
	p := GetParams(st)
	remaining := collected
	fraction := dec.FromInt64(signed).Quo(dec.FromInt64(total))
	proposerMult := p.BaseProposerReward.Add(p.BonusProposerReward.MulTruncate(fraction))
	if op, ok := k.Staking.OperatorByCons(st, previousProposer(st)); ok {
		reward := collected.MulTruncate(proposerMult)
		ev.Add("proposer_reward", "amount", decCoins(ev, reward), "validator", ev.Valoper(op))
		k.allocateTo(st, ev, op, reward)
		remaining = remaining.Sub(reward)
	}
	perPower := collected.MulTruncate(dec.One().Sub(proposerMult).Sub(p.CommunityTax))
	for _, v := range votes {
		op, ok := k.Staking.OperatorByCons(st, v.Validator)
		if !v.Signed || !ok {
			continue
		}
		reward := perPower.MulTruncate(dec.FromInt64(v.Power).QuoTruncate(dec.FromInt64(total)))
		k.allocateTo(st, ev, op, reward)
		remaining = remaining.Sub(reward)
	}
	addCommunityPool(st, remaining)
	return nil
}

// allocateTo splits a validator's reward into its commission and the
// rewards of its current period (the SDK's AllocateTokensToValidator).
func (k *Keeper) allocateTo(st module.State, ev *module.Events, op common.Address, tokens dec.Dec) {
	ensureValidator(st, op)
	commission := tokens.Mul(k.Staking.CommissionRate(st, op))
	shared := tokens.Sub(commission)
	ev.Add("commission", "amount", decCoins(ev, commission), "validator", ev.Valoper(op))
	setCommission(st, op, Commission(st, op).Add(commission))
	rewards, period := CurrentRewards(st, op)
	setCurrentRewards(st, op, rewards.Add(shared), period)
	ev.Add("rewards", "amount", decCoins(ev, tokens), "validator", ev.Valoper(op))
	setOutstanding(st, op, Outstanding(st, op).Add(tokens))
}

// decCoins is d as the SDK's DecCoins print it: "1.500000000000000000aember",
// empty for zero.
func decCoins(ev *module.Events, d dec.Dec) string {
	if d.IsZero() {
		return ""
	}
	return d.String() + strings.TrimPrefix(ev.Coin(new(big.Int)), "0")
}
