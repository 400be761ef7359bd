package distribution

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// CommunityPool is the community pool.
func CommunityPool(st module.Reader) dec.Dec { return store.Dec(st, slots.Word(slotCommunityPool)) }

func addCommunityPool(st module.State, d dec.Dec) {
	store.SetDec(st, slots.Word(slotCommunityPool), CommunityPool(st).Add(d))
}

// Outstanding are a validator's outstanding rewards: what was allocated to
// it (commission included) and not yet paid out.
func Outstanding(st module.Reader, op common.Address) dec.Dec {
	return store.Dec(st, validatorSlot(op, valOutstanding))
}

func setOutstanding(st module.State, op common.Address, d dec.Dec) {
	store.SetDec(st, validatorSlot(op, valOutstanding), d)
}

// Commission is a validator's accumulated, unwithdrawn commission.
func Commission(st module.Reader, op common.Address) dec.Dec {
	return store.Dec(st, validatorSlot(op, valCommission))
}

func setCommission(st module.State, op common.Address, d dec.Dec) {
	store.SetDec(st, validatorSlot(op, valCommission), d)
}

// CurrentRewards are the rewards of a validator's current period and that
// period (0 for a validator distribution has not initialised).
func CurrentRewards(st module.Reader, op common.Address) (dec.Dec, uint64) {
	return store.Dec(st, validatorSlot(op, valCurrent)), store.Uint(st, validatorSlot(op, valPeriod))
}

func setCurrentRewards(st module.State, op common.Address, rewards dec.Dec, period uint64) {
	store.SetDec(st, validatorSlot(op, valCurrent), rewards)
	store.SetUint(st, validatorSlot(op, valPeriod), period)
}

// Historical is one period's record of a validator: the cumulative
// reward ratio (rewards per token since the validator began) and how many
// delegations and slash events still refer to it.
type Historical struct {
	CumulativeRatio dec.Dec
	ReferenceCount  uint64
}

// HistoricalRewards reads period's record of op.
func HistoricalRewards(st module.Reader, op common.Address, period uint64) Historical {
	s := historicalSlot(op, period)
	return Historical{CumulativeRatio: store.Dec(st, s), ReferenceCount: store.Uint(st, slots.Offset(s, 1))}
}

func setHistorical(st module.State, op common.Address, period uint64, h Historical) {
	s := historicalSlot(op, period)
	store.SetDec(st, s, h.CumulativeRatio)
	store.SetUint(st, slots.Offset(s, 1), h.ReferenceCount)
}

// StartingInfo is where a delegation's rewards are counted from: the
// period before it began, its stake in tokens then, and the block height.
type StartingInfo struct {
	PreviousPeriod uint64
	Stake          dec.Dec
	Height         uint64
}

// Starting reads the starting info of del's delegation to op.
func Starting(st module.Reader, del, op common.Address) (StartingInfo, bool) {
	s := startingSlot(del, op)
	p := store.Uint(st, s)
	if p == 0 {
		return StartingInfo{}, false
	}
	return StartingInfo{PreviousPeriod: p - 1, Stake: store.Dec(st, slots.Offset(s, 1)), Height: store.Uint(st, slots.Offset(s, 2))}, true
}

func setStarting(st module.State, del, op common.Address, si StartingInfo) {
	s := startingSlot(del, op)
	store.SetUint(st, s, si.PreviousPeriod+1)
	store.SetDec(st, slots.Offset(s, 1), si.Stake)
	store.SetUint(st, slots.Offset(s, 2), si.Height)
}

func deleteStarting(st module.State, del, op common.Address) {
	s := startingSlot(del, op)
	for i := uint64(0); i < 3; i++ {
		store.Set(st, slots.Offset(s, i), common.Hash{})
	}
}

// WithdrawAddress is where del's rewards are paid: the address it set, or
// itself.
func WithdrawAddress(st module.Reader, del common.Address) common.Address {
	v := store.Get(st, slots.Map(slots.AddrWord(del), slots.Word(slotWithdrawAddr)))
	if v == (common.Hash{}) {
		return del
	}
	return common.BytesToAddress(v[:])
}

// setWithdrawAddress records w, clearing the slot when w is del itself.
func setWithdrawAddress(st module.State, del, w common.Address) {
	v := slots.AddrWord(w)
	if w == del {
		v = common.Hash{}
	}
	store.Set(st, slots.Map(slots.AddrWord(del), slots.Word(slotWithdrawAddr)), v)
}

// SlashEvent is a slash of a validator, as F1 records it: the period it
// ended and the fraction of stake it took.
type SlashEvent struct {
	Height   uint64
	Period   uint64
	Fraction dec.Dec
}

// SlashEvents are op's slash events, oldest first.
func SlashEvents(st module.Reader, op common.Address) []SlashEvent {
	n := store.Uint(st, validatorSlot(op, valSlashCount))
	out := make([]SlashEvent, 0, n)
	for i := uint64(0); i < n; i++ {
		s := slashSlot(op, i)
		out = append(out, SlashEvent{Height: store.Uint(st, s), Period: store.Uint(st, slots.Offset(s, 1)), Fraction: store.Dec(st, slots.Offset(s, 2))})
	}
	return out
}

func appendSlashEvent(st module.State, op common.Address, e SlashEvent) {
	n := store.Uint(st, validatorSlot(op, valSlashCount))
	s := slashSlot(op, n)
	store.SetUint(st, s, e.Height)
	store.SetUint(st, slots.Offset(s, 1), e.Period)
	store.SetDec(st, slots.Offset(s, 2), e.Fraction)
	store.SetUint(st, validatorSlot(op, valSlashCount), n+1)
}
