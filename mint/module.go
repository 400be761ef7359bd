package mint

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Module is the mint module the app runs: it mints into Collector,
// reading the bonded tokens from the balance of BondedPool.
type Module struct {
	Collector  common.Address
	BondedPool common.Address
}

// Name implements module.Module.
func (Module) Name() string { return Name }

// Msgs implements module.Module: governance's MsgUpdateParams.
func (Module) Msgs() []*module.MsgHandler { return []*module.MsgHandler{msgUpdateParams()} }

// BeginBlock updates the minter and mints the block provision, emitting
// the SDK's `mint` event when it mints anything.
func (m Module) BeginBlock(st module.State, b *module.Block) error {
	if !Enabled(st) {
		return nil
	}
	p := GetParams(st)
	ratio := BondedRatio(st, m.BondedPool)
	minter := GetMinter(st)
	minter.Inflation = minter.NextInflation(p, ratio)
	minter.AnnualProvisions = minter.Inflation.MulInt(bank.Supply(st))
	setMinter(st, minter)
	amount := minter.BlockProvision(p)
	if amount.Sign() == 0 {
		return nil // nothing minted, no event: an idle block without inflation stays silent
	}
	if err := bank.Mint(st, m.Collector, amount); err != nil {
		return fmt.Errorf("mint: %w", err)
	}
	ev := b.Events
	ev.Add("coinbase", "minter", ev.Acc(StateAddress), "amount", ev.Coin(amount))
	ev.Add("coin_received", "receiver", ev.Acc(m.Collector), "amount", ev.Coin(amount))
	ev.Add("mint", "bonded_ratio", ratio.String(), "inflation", minter.Inflation.String(),
		"annual_provisions", minter.AnnualProvisions.String(), "amount", amount.String())
	return nil
}

// GenesisState is app_state.mint in the SDK's JSON.
type GenesisState struct {
	Minter MinterJSON `json:"minter"`
	Params ParamsJSON `json:"params"`
}

// MinterJSON is Minter as the SDK writes it.
type MinterJSON struct {
	Inflation        string `json:"inflation"`
	AnnualProvisions string `json:"annual_provisions"`
}

// ParamsJSON is Params as the SDK writes them.
type ParamsJSON struct {
	MintDenom           string `json:"mint_denom"`
	InflationRateChange string `json:"inflation_rate_change"`
	InflationMax        string `json:"inflation_max"`
	InflationMin        string `json:"inflation_min"`
	GoalBonded          string `json:"goal_bonded"`
	BlocksPerYear       string `json:"blocks_per_year"`
}

// DefaultGenesis is the SDK's default genesis in denom: inflation 13%.
func DefaultGenesis(denom string) *GenesisState {
	p := DefaultParams()
	return &GenesisState{
		Minter: MinterJSON{Inflation: dec.MustParse("0.13").String(), AnnualProvisions: dec.Zero().String()},
		Params: ParamsJSON{
			MintDenom: denom, InflationRateChange: p.InflationRateChange.String(), InflationMax: p.InflationMax.String(),
			InflationMin: p.InflationMin.String(), GoalBonded: p.GoalBonded.String(), BlocksPerYear: fmt.Sprint(p.BlocksPerYear),
		},
	}
}

// ZeroGenesis is DefaultGenesis with the inflation held at 0 (minimum and
// maximum 0): nothing is ever minted, and an idle block changes nothing.
func ZeroGenesis(denom string) *GenesisState {
	g := DefaultGenesis(denom)
	zero := dec.Zero().String()
	g.Minter.Inflation, g.Params.InflationMin, g.Params.InflationMax = zero, zero, zero
	return g
}

// parse reads and checks g for a chain whose coin is denom.
func (g *GenesisState) parse(denom string) (Params, Minter, error) {
	if g.Params.MintDenom != denom {
		return Params{}, Minter{}, fmt.Errorf("params.mint_denom %q: the chain's coin is %s", g.Params.MintDenom, denom)
	}
	var p Params
	var m Minter
	var err error
	for _, f := range []struct {
		name, s string
		to      *dec.Dec
	}{
		{"params.inflation_rate_change", g.Params.InflationRateChange, &p.InflationRateChange},
		{"params.inflation_max", g.Params.InflationMax, &p.InflationMax},
		{"params.inflation_min", g.Params.InflationMin, &p.InflationMin},
		{"params.goal_bonded", g.Params.GoalBonded, &p.GoalBonded},
		{"minter.inflation", g.Minter.Inflation, &m.Inflation},
		{"minter.annual_provisions", g.Minter.AnnualProvisions, &m.AnnualProvisions},
	} {
		if *f.to, err = dec.Parse(f.s); err != nil {
			return Params{}, Minter{}, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if _, err := fmt.Sscan(g.Params.BlocksPerYear, &p.BlocksPerYear); err != nil {
		return Params{}, Minter{}, fmt.Errorf("params.blocks_per_year %q: %w", g.Params.BlocksPerYear, err)
	}
	return p, m, p.Validate()
}

// InitGenesis turns the module on when app_state has a mint section.
func (Module) InitGenesis(g *module.Genesis) error {
	var gs *GenesisState
	if err := g.Section(Name, &gs); err != nil {
		return err
	}
	if gs == nil {
		return nil
	}
	denom := "aember" // app_state.denom's default
	if err := g.Section("denom", &denom); err != nil {
		return err
	}
	p, m, err := gs.parse(denom)
	if err != nil {
		return fmt.Errorf("app_state.mint: %w", err)
	}
	return Init(g.State(), p, m)
}
