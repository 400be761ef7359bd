package slashing

import (
	"strconv"
	"time"

	"github.com/emberchain/ember/module"
)

// Evidence age limits: evidence older than both is ignored, as the SDK's
// x/evidence ignores it against the consensus parameters. The modules are
// not told the chain's consensus parameters, so these are CometBFT's
// defaults (evidence.max_age_num_blocks and max_age_duration), which every
// genesis Ember writes keeps; CometBFT itself refuses older evidence
// against the chain's own values before a block carries it.
const (
	MaxEvidenceAgeBlocks   = 100000
	MaxEvidenceAgeDuration = 48 * time.Hour
)

// validatorUpdateDelay is the number of blocks between a validator set
// change at the end of a block and the block CometBFT signs with it
// (the SDK's ValidatorUpdateDelay).
const validatorUpdateDelay = 1

// DoubleSignJailEndTime is the jailed_until of a tombstoned validator: the
// end of year 9999, for ever.
var DoubleSignJailEndTime = time.Unix(253402300799, 0).UTC()

// Reasons of the slash event.
const (
	reasonDoubleSign = "double_sign"
	reasonDowntime   = "missing_signature"
)

// handleEvidence punishes each double sign the block carries, as x/evidence
// handles an Equivocation.
func (m Module) handleEvidence(st module.State, b *module.Block, p Params) error {
	for _, e := range b.Info.Misbehavior {
		if err := m.handleEquivocation(st, b, p, e); err != nil {
			return err
		}
	}
	return nil
}

// tooOld tells evidence older than both age limits.
func tooOld(b *module.Block, e module.Misbehavior) bool {
	return b.Env.Time.Sub(e.Time) > MaxEvidenceAgeDuration && b.Env.Height-e.Height > MaxEvidenceAgeBlocks
}

func (m Module) handleEquivocation(st module.State, b *module.Block, p Params, e module.Misbehavior) error {
	// A light-client attack is not told apart from an unknown kind in
	// module.Misbehavior, so only duplicate votes are handled.
	if !e.DuplicateVote || tooOld(b, e) {
		return nil
	}
	known, jailed := m.Staking.jailedByCons(st, e.Validator)
	if !known {
		return nil
	}
	info, ok := GetSigningInfo(st, e.Validator)
	if !ok { // evidence may come before the validator's first vote is counted
		info = newSigningInfo(e.Validator, b.Env.Height)
	}
	if info.Tombstoned {
		return nil
	}
	// The stake that signed at the infraction height is that of the block
	// before it (the validator update delay).
	distributionHeight := e.Height - validatorUpdateDelay
	burned, err := m.Staking.Keeper.Slash(st, b.Events, e.Validator, distributionHeight, b.Env.Height, b.Env.Time, e.Power, p.SlashFractionDoubleSign)
	if err != nil {
		return err
	}
	cons := consBech32(b.Env.Prefix, e.Validator)
	b.Events.Add("slash", "address", cons, "power", strconv.FormatInt(e.Power, 10), "reason", reasonDoubleSign, "burned_coins", burned.String())
	if !jailed {
		if err := m.Staking.Keeper.Jail(st, e.Validator); err != nil {
			return err
		}
		b.Events.Add("slash", "jailed", cons)
	}
	info.JailedUntil, info.Tombstoned = DoubleSignJailEndTime, true
	setSigningInfo(st, &info)
	return nil
}
