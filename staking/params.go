package staking

import (
	"time"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Params are the bonding rules (app_state.staking.params), fixed at genesis.
type Params struct {
	UnbondingTime     time.Duration
	MaxValidators     uint64
	MaxEntries        uint64
	HistoricalEntries uint64
	BondDenom         string // "" : the chain's denomination
	MinCommissionRate dec.Dec
}

// Defaults of the SDK's x/staking, but for the unbonding time, which a
// genesis sets.
const (
	DefaultMaxValidators = 100
	DefaultMaxEntries    = 7
	// DefaultUnbondingTime applies to a chain whose genesis recorded none:
	// the SDK's 21 days.
	DefaultUnbondingTime = 21 * 24 * time.Hour
)

// DefaultParams are the SDK's default parameters.
func DefaultParams() Params {
	return Params{UnbondingTime: DefaultUnbondingTime, MaxValidators: DefaultMaxValidators, MaxEntries: DefaultMaxEntries, MinCommissionRate: dec.Zero()}
}

func paramSlot(n uint64) [32]byte { return slots.Offset(slots.Word(slotParams), n) }

// GetParams reads the parameters; a state without them has the defaults.
func GetParams(st module.Reader) Params {
	p := DefaultParams()
	if s := store.Uint(st, paramSlot(0)); s > 0 {
		p.UnbondingTime = time.Duration(s) * time.Second
	}
	if n := store.Uint(st, paramSlot(1)); n > 0 {
		p.MaxValidators = n
	}
	if n := store.Uint(st, paramSlot(2)); n > 0 {
		p.MaxEntries = n
	}
	p.HistoricalEntries = store.Uint(st, paramSlot(3))
	p.MinCommissionRate = store.Dec(st, paramSlot(4))
	p.BondDenom = readString(st, paramSlot(5))
	return p
}

func setParams(st module.State, p Params) {
	store.SetUint(st, paramSlot(0), uint64(p.UnbondingTime/time.Second))
	store.SetUint(st, paramSlot(1), p.MaxValidators)
	store.SetUint(st, paramSlot(2), p.MaxEntries)
	store.SetUint(st, paramSlot(3), p.HistoricalEntries)
	store.SetDec(st, paramSlot(4), p.MinCommissionRate)
	writeString(st, paramSlot(5), p.BondDenom)
}

// UnbondingTime is the unbonding period, whole seconds.
func UnbondingTime(st module.Reader) time.Duration { return GetParams(st).UnbondingTime }
