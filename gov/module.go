package gov

import (
	"encoding/json"
	"fmt"

	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Name is the module's name and its app_state section.
const Name = "gov"

// EventModule is the `message.module` event value of gov's messages: the
// SDK's gov module account name, which its message events carry.
const EventModule = "governance"

// Module is the gov module. Router is the chain's message router, which
// decodes and executes proposal messages; it is a function, set by the
// chain's wiring after its module manager exists, because that manager
// holds this module. Content executes the legacy contents other than
// TextProposal, by type URL. Staking is what the tally reads (nil:
// package staking's state).
type Module struct {
	Router  func() *module.Router
	Content map[string]ContentExec
	Staking Staking
}

// Name implements module.Module.
func (*Module) Name() string { return Name }

func (m *Module) staking() Staking {
	if m.Staking == nil {
		return stakingState{}
	}
	return m.Staking
}

// GenesisState is app_state.gov in the SDK's v1 JSON (params and
// starting_proposal_id; deposits, votes and proposals must be empty: a new
// chain has none).
type GenesisState struct {
	StartingProposalID uint64
	Params             *govv1.Params
}

// MarshalJSON implements json.Marshaler: the SDK's v1 GenesisState JSON.
func (g GenesisState) MarshalJSON() ([]byte, error) {
	b, err := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}.Marshal(
		&govv1.GenesisState{StartingProposalId: g.StartingProposalID, Params: g.Params})
	if err != nil {
		return nil, err
	}
	var v json.RawMessage = b
	return json.Marshal(v) // compact: protojson's spacing varies
}

// UnmarshalJSON implements json.Unmarshaler.
func (g *GenesisState) UnmarshalJSON(b []byte) error {
	var gs govv1.GenesisState
	if err := (protojson.UnmarshalOptions{DiscardUnknown: false}).Unmarshal(b, &gs); err != nil {
		return err
	}
	if len(gs.Deposits) > 0 || len(gs.Votes) > 0 || len(gs.Proposals) > 0 {
		return fmt.Errorf("deposits, votes and proposals must be empty: a new chain has none")
	}
	g.StartingProposalID, g.Params = gs.StartingProposalId, gs.Params
	return nil
}

// DefaultGenesis is the SDK's default section, in the chain's prefix and
// denomination.
func DefaultGenesis(prefix, denom string) *GenesisState {
	return &GenesisState{StartingProposalID: 1, Params: DefaultParams().Proto(prefix, denom)}
}

// InitGenesis stores the section's parameters and starting proposal id.
// Without the section nothing is written and the SDK's defaults apply.
func (m *Module) InitGenesis(g *module.Genesis) error {
	var gs *GenesisState
	if err := g.Section(Name, &gs); err != nil {
		return Err(CodeInvalidGenesis).WithDetail("app_state.gov: %v", err)
	}
	if gs == nil {
		return nil
	}
	var c struct {
		Prefix string `json:"bech32_prefix"`
		Denom  string `json:"denom"`
	}
	if err := json.Unmarshal(g.AppState, &c); err != nil {
		return err
	}
	p := DefaultParams()
	if gs.Params != nil {
		var err error
		if p, err = ParamsFromProto(gs.Params, module.Codec{Prefix: c.Prefix, Denom: c.Denom}); err != nil {
			return Err(CodeInvalidGenesis).WithDetail("app_state.gov.params: %v", err)
		}
	}
	st := g.State()
	if err := SetParams(st, p); err != nil {
		return err
	}
	if gs.StartingProposalID > 1 {
		store.SetUint(st, slots.Word(slotNextID), gs.StartingProposalID)
	}
	return nil
}
