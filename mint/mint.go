// Package mint is the Cosmos SDK's x/mint on Ember's state trie: at the
// start of each block it moves the inflation rate toward the bonded-ratio
// goal, derives the annual provisions from the total supply and mints one
// block's share of them into the fee collector, where distribution
// allocates it with the fees.
package mint

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Name is the module's name and its app_state section.
const Name = "mint"

// StateAddress holds the minter and the parameters in its storage (nonce
// 1, so EIP-161 never clears it):
//
//	uint256 inflationRateChange; // slot 0, Dec raw
//	uint256 inflationMax;        // slot 1, Dec raw
//	uint256 inflationMin;        // slot 2, Dec raw
//	uint256 goalBonded;          // slot 3, Dec raw
//	uint256 blocksPerYear;       // slot 4
//	uint256 inflation;           // slot 5, Dec raw (the minter)
//	uint256 annualProvisions;    // slot 6, Dec raw (the minter)
//
// The mint denom is the chain's only coin and is not stored.
var StateAddress = common.HexToAddress("0x0000000000000000000000000000000000000B20")

const (
	slotRateChange = iota
	slotMax
	slotMin
	slotGoal
	slotBlocksPerYear
	slotInflation
	slotProvisions
)

// Params are the SDK's mint parameters but the denom.
type Params struct {
	InflationRateChange dec.Dec
	InflationMax        dec.Dec
	InflationMin        dec.Dec
	GoalBonded          dec.Dec
	BlocksPerYear       uint64
}

// Minter is the state mint carries from block to block.
type Minter struct {
	Inflation        dec.Dec
	AnnualProvisions dec.Dec
}

// DefaultParams are the SDK's defaults.
func DefaultParams() Params {
	return Params{
		InflationRateChange: dec.MustParse("0.13"), InflationMax: dec.MustParse("0.2"),
		InflationMin: dec.MustParse("0.07"), GoalBonded: dec.MustParse("0.67"), BlocksPerYear: 6311520,
	}
}

// Validate checks the SDK's bounds.
func (p Params) Validate() error {
	for _, r := range []struct {
		name string
		v    dec.Dec
	}{{"inflation_rate_change", p.InflationRateChange}, {"inflation_max", p.InflationMax}, {"inflation_min", p.InflationMin}, {"goal_bonded", p.GoalBonded}} {
		if r.v.IsNegative() || r.v.GT(dec.One()) {
			return fmt.Errorf("%s %s: want a value in [0, 1]", r.name, r.v)
		}
	}
	switch {
	case !p.GoalBonded.IsPositive():
		return fmt.Errorf("goal_bonded must be positive")
	case p.InflationMax.LT(p.InflationMin):
		return fmt.Errorf("inflation_max %s is below inflation_min %s", p.InflationMax, p.InflationMin)
	case p.BlocksPerYear == 0:
		return fmt.Errorf("blocks_per_year must be positive")
	}
	return nil
}

// store is StateAddress's storage: one decimal per slot.
var store = slots.Account(StateAddress)

func get(st module.Reader, slot uint64) dec.Dec { return store.Dec(st, slots.Word(slot)) }

func set(st module.State, slot uint64, d dec.Dec) { store.SetDec(st, slots.Word(slot), d) }

// Enabled tells whether the genesis had a mint section.
func Enabled(st module.Reader) bool { return st.GetNonce(StateAddress) != 0 }

// GetParams reads the parameters.
func GetParams(st module.Reader) Params {
	return Params{
		InflationRateChange: get(st, slotRateChange), InflationMax: get(st, slotMax), InflationMin: get(st, slotMin),
		GoalBonded: get(st, slotGoal), BlocksPerYear: get(st, slotBlocksPerYear).Raw().Uint64(),
	}
}

// GetMinter reads the minter.
func GetMinter(st module.Reader) Minter {
	return Minter{Inflation: get(st, slotInflation), AnnualProvisions: get(st, slotProvisions)}
}

// Init turns the module on in st.
func Init(st module.State, p Params, m Minter) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if m.Inflation.IsNegative() || m.AnnualProvisions.IsNegative() {
		return fmt.Errorf("minter: negative inflation or annual provisions")
	}
	if st.GetNonce(StateAddress) == 0 {
		st.SetNonce(StateAddress, 1, tracing.NonceChangeGenesis)
	}
	set(st, slotRateChange, p.InflationRateChange)
	set(st, slotMax, p.InflationMax)
	set(st, slotMin, p.InflationMin)
	set(st, slotGoal, p.GoalBonded)
	set(st, slotBlocksPerYear, dec.FromRaw(new(big.Int).SetUint64(p.BlocksPerYear)))
	setMinter(st, m)
	return nil
}

func setMinter(st module.State, m Minter) {
	set(st, slotInflation, m.Inflation)
	set(st, slotProvisions, m.AnnualProvisions)
}

// NextInflation moves the inflation by rate_change × (1 − bonded/goal) a
// year, spread over the year's blocks, within [min, max] (the SDK's
// NextInflationRate).
func (m Minter) NextInflation(p Params, bondedRatio dec.Dec) dec.Dec {
	perYear := dec.One().Sub(bondedRatio.Quo(p.GoalBonded)).Mul(p.InflationRateChange)
	next := m.Inflation.Add(perYear.Quo(dec.FromInt(new(big.Int).SetUint64(p.BlocksPerYear))))
	if next.GT(p.InflationMax) {
		return p.InflationMax
	}
	if next.LT(p.InflationMin) {
		return p.InflationMin
	}
	return next
}

// BlockProvision is the annual provisions over the year's blocks,
// truncated.
func (m Minter) BlockProvision(p Params) *big.Int {
	return m.AnnualProvisions.QuoInt(new(big.Int).SetUint64(p.BlocksPerYear)).TruncateInt()
}

// BondedRatio is the bonded pool's balance over the total supply (0 when
// there is no supply).
func BondedRatio(st module.Reader, bondedPool common.Address) dec.Dec {
	supply := bank.Supply(st)
	if supply.Sign() == 0 {
		return dec.Zero()
	}
	return dec.FromInt(st.GetBalance(bondedPool).ToBig()).QuoInt(supply)
}
