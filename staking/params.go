package staking

import (
	"time"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
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

func paramSlot(n uint64) [32]byte { return offset(word(slotParams), n) }

// GetParams reads the parameters; a state without them has the defaults.
func GetParams(st module.Reader) Params {
	p := DefaultParams()
	if s := getUint(st, paramSlot(0)); s > 0 {
		p.UnbondingTime = time.Duration(s) * time.Second
	}
	if n := getUint(st, paramSlot(1)); n > 0 {
		p.MaxValidators = n
	}
	if n := getUint(st, paramSlot(2)); n > 0 {
		p.MaxEntries = n
	}
	p.HistoricalEntries = getUint(st, paramSlot(3))
	p.MinCommissionRate = getDec(st, paramSlot(4))
	p.BondDenom = readString(st, paramSlot(5))
	return p
}

func setParams(st module.State, p Params) {
	setUint(st, paramSlot(0), uint64(p.UnbondingTime/time.Second))
	setUint(st, paramSlot(1), p.MaxValidators)
	setUint(st, paramSlot(2), p.MaxEntries)
	setUint(st, paramSlot(3), p.HistoricalEntries)
	setDec(st, paramSlot(4), p.MinCommissionRate)
	writeString(st, paramSlot(5), p.BondDenom)
}

// UnbondingTime is the unbonding period, whole seconds.
func UnbondingTime(st module.Reader) time.Duration { return GetParams(st).UnbondingTime }
