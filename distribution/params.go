package distribution

import (
	"fmt"

	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Params are the module's parameters (the SDK's distribution Params).
type Params struct {
	CommunityTax        dec.Dec
	BaseProposerReward  dec.Dec
	BonusProposerReward dec.Dec
	WithdrawAddrEnabled bool
}

// DefaultParams are the SDK's defaults, with both proposer rewards 0 as the
// SDK has had them since it deprecated them.
func DefaultParams() Params {
	return Params{CommunityTax: dec.MustParse("0.02"), BaseProposerReward: dec.Zero(), BonusProposerReward: dec.Zero(), WithdrawAddrEnabled: true}
}

// Validate checks the SDK's bounds: each rate in [0, 1] and the three
// together at most 1.
func (p Params) Validate() error {
	for _, r := range []struct {
		name string
		v    dec.Dec
	}{{"community_tax", p.CommunityTax}, {"base_proposer_reward", p.BaseProposerReward}, {"bonus_proposer_reward", p.BonusProposerReward}} {
		if r.v.IsNegative() || r.v.GT(dec.One()) {
			return fmt.Errorf("%s %s: want a value in [0, 1]", r.name, r.v)
		}
	}
	if sum := p.CommunityTax.Add(p.BaseProposerReward).Add(p.BonusProposerReward); sum.GT(dec.One()) {
		return fmt.Errorf("community_tax + base_proposer_reward + bonus_proposer_reward is %s: want at most 1", sum)
	}
	return nil
}

// GetParams reads the parameters.
func GetParams(st module.Reader) Params {
	return Params{
		CommunityTax:        store.Dec(st, slots.Word(slotCommunityTax)),
		BaseProposerReward:  store.Dec(st, slots.Word(slotBaseProposer)),
		BonusProposerReward: store.Dec(st, slots.Word(slotBonusProposer)),
		WithdrawAddrEnabled: store.Uint(st, slots.Word(slotWithdrawDisabled)) == 0,
	}
}

func setParams(st module.State, p Params) {
	store.SetDec(st, slots.Word(slotCommunityTax), p.CommunityTax)
	store.SetDec(st, slots.Word(slotBaseProposer), p.BaseProposerReward)
	store.SetDec(st, slots.Word(slotBonusProposer), p.BonusProposerReward)
	disabled := uint64(0)
	if !p.WithdrawAddrEnabled {
		disabled = 1
	}
	store.SetUint(st, slots.Word(slotWithdrawDisabled), disabled)
}

// GenesisState is app_state.distribution, in the SDK's JSON (decimals as
// strings); only the parameters are read, every record starts empty.
type GenesisState struct {
	Params ParamsJSON `json:"params"`
}

// ParamsJSON is Params as the SDK writes them in JSON.
type ParamsJSON struct {
	CommunityTax        string `json:"community_tax"`
	BaseProposerReward  string `json:"base_proposer_reward"`
	BonusProposerReward string `json:"bonus_proposer_reward"`
	WithdrawAddrEnabled bool   `json:"withdraw_addr_enabled"`
}

// JSON is p in the SDK's JSON form.
func (p Params) JSON() ParamsJSON {
	return ParamsJSON{
		CommunityTax: p.CommunityTax.String(), BaseProposerReward: p.BaseProposerReward.String(),
		BonusProposerReward: p.BonusProposerReward.String(), WithdrawAddrEnabled: p.WithdrawAddrEnabled,
	}
}

// Params parses and checks j.
func (j ParamsJSON) Params() (Params, error) {
	var p Params
	var err error
	for _, f := range []struct {
		name string
		s    string
		to   *dec.Dec
	}{{"community_tax", j.CommunityTax, &p.CommunityTax}, {"base_proposer_reward", j.BaseProposerReward, &p.BaseProposerReward}, {"bonus_proposer_reward", j.BonusProposerReward, &p.BonusProposerReward}} {
		if *f.to, err = dec.Parse(f.s); err != nil {
			return Params{}, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	p.WithdrawAddrEnabled = j.WithdrawAddrEnabled
	return p, p.Validate()
}

// DefaultGenesis is the section a new chain's genesis gets.
func DefaultGenesis() *GenesisState { return &GenesisState{Params: DefaultParams().JSON()} }

// InitGenesis creates the module's accounts and writes the parameters when
// app_state has a distribution section; without one the module stays off
// (see Enabled).
func (Module) InitGenesis(g *module.Genesis) error {
	var gs *GenesisState
	if err := g.Section(Name, &gs); err != nil {
		return err
	}
	if gs == nil {
		return nil
	}
	p, err := gs.Params.Params()
	if err != nil {
		return fmt.Errorf("app_state.distribution.params: %w", err)
	}
	st := g.State()
	if err := Init(st, p); err != nil {
		return err
	}
	// Block 1 records its proposer for block 2's allocation. Recording the
	// first genesis validator now makes that write change nothing on a
	// single-validator chain, whose first idle block must leave the
	// AppHash as it was (or CometBFT makes empty blocks to prove it).
	if len(g.Validators) > 0 {
		if pk := g.Validators[0].PubKey.GetEd25519(); len(pk) == ed25519.PubKeySize {
			store.Set(st, slots.Word(slotPrevProposer), slots.AddrWord(common.BytesToAddress(ed25519.PubKey(pk).Address())))
		}
	}
	return nil
}

// Init turns the module on in st with parameters p.
func Init(st module.State, p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	ensureAccounts(st)
	setParams(st, p)
	return nil
}

// previousProposer is the proposer of the previous block, whom the fees
// allocated now were collected in (the SDK's PreviousProposer).
func previousProposer(st module.Reader) common.Address {
	return common.BytesToAddress(store.Get(st, slots.Word(slotPrevProposer)).Bytes())
}
