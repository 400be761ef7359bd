package slashing

import (
	"strconv"

	"github.com/emberchain/ember/module"
)

// handleVotes counts each vote of the block's last commit in its
// validator's window, as the SDK's HandleValidatorSignature does, and
// slashes and jails a validator that missed too many: the cost is a few
// storage words per validator in the commit.
func (m Module) handleVotes(st module.State, b *module.Block, p Params) error {
	for _, v := range b.Info.Votes {
		if err := m.handleVote(st, b, p, v); err != nil {
			return err
		}
	}
	return nil
}

// signingInfoSeen is the validator's signing info, made the first time the
// validator is in a block's votes with start_height that block's height.
// The SDK makes it when the validator is bonded (AfterValidatorBonded) and
// resets start_height when it is bonded again; the votes name exactly the
// validators that were bonded, so a first appearance, or one after a gap
// (the validator left the set: jailed, or out-ranked), is that bonding
// seen a few blocks later (the update delay). Until then the validator
// signs nothing and misses nothing, so its window and counter are the same;
// only the grace period before downtime counts starts those few blocks
// later.
func signingInfoSeen(st module.State, v module.Vote, height int64) SigningInfo {
	info, ok := GetSigningInfo(st, v.Validator)
	switch {
	case !ok:
		info = newSigningInfo(v.Validator, height)
	case info.lastSeen != height-1:
		info.StartHeight = height
	}
	info.lastSeen = height
	return info
}

func (m Module) handleVote(st module.State, b *module.Block, p Params, v module.Vote) error {
	known, jailed := m.Staking.jailedByCons(st, v.Validator)
	if !known {
		return nil // not a validator staking knows: nothing to count or punish
	}
	height := b.Env.Height
	info := signingInfoSeen(st, v, height)
	if jailed { // a jailed validator's misses are not counted, as in the SDK
		setSigningInfo(st, &info)
		return nil
	}
	index := info.IndexOffset % p.SignedBlocksWindow
	info.IndexOffset++
	previous, missed := Missed(st, v.Validator, index), !v.Signed
	switch {
	case !previous && missed:
		setMissed(st, v.Validator, index, true)
		info.MissedBlocksCounter++
	case previous && !missed:
		setMissed(st, v.Validator, index, false)
		info.MissedBlocksCounter--
	}
	ev, cons := b.Events, consBech32(b.Env.Prefix, v.Validator)
	if missed {
		ev.Add("liveness", "address", cons, "missed_blocks", strconv.FormatInt(info.MissedBlocksCounter, 10), "height", strconv.FormatInt(height, 10))
	}
	if height > info.StartHeight+p.SignedBlocksWindow && info.MissedBlocksCounter > p.MaxMissedBlocks() {
		if err := m.punishDowntime(st, b, p, v, &info); err != nil {
			return err
		}
	}
	setSigningInfo(st, &info)
	return nil
}

// punishDowntime slashes and jails a validator for missing too many blocks
// and restarts its window, so it is not punished again the moment it is
// back.
func (m Module) punishDowntime(st module.State, b *module.Block, p Params, v module.Vote, info *SigningInfo) error {
	// The stake that signed the last commit is that of the block before
	// the previous one: minus the validator update delay, minus one.
	distributionHeight := b.Env.Height - validatorUpdateDelay - 1
	burned, err := m.Staking.Keeper.Slash(st, b.Events, v.Validator, distributionHeight, b.Env.Height, b.Env.Time, v.Power, p.SlashFractionDowntime)
	if err != nil {
		return err
	}
	cons := consBech32(b.Env.Prefix, v.Validator)
	b.Events.Add("slash", "address", cons, "power", strconv.FormatInt(v.Power, 10), "reason", reasonDowntime, "jailed", cons, "burned_coins", burned.String())
	if err := m.Staking.Keeper.Jail(st, v.Validator); err != nil {
		return err
	}
	info.JailedUntil = b.Env.Time.Add(p.DowntimeJailDuration).UTC()
	clearMissed(st, v.Validator, p.SignedBlocksWindow, info.MissedBlocksCounter)
	info.MissedBlocksCounter, info.IndexOffset = 0, 0
	return nil
}
