package slashing

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
)

// Name is the module's name, its `message.module` event value and its
// app_state section.
const Name = "slashing"

// Module is the slashing module: evidence and the liveness window at the
// start of each block, MsgUnjail, and its parameters at genesis.
type Module struct {
	Staking Staking
}

// Name implements module.Module.
func (Module) Name() string { return Name }

// Msgs implements module.Module.
func (m Module) Msgs() []*module.MsgHandler {
	return []*module.MsgHandler{m.msgUnjail(), msgUpdateParams()}
}

// BeginBlock handles the block's evidence, then its last commit's votes,
// in the SDK's order (x/evidence's BeginBlocker runs after x/slashing's,
// but a tombstoned validator is jailed, and a jailed one's votes are not
// counted, so handling evidence first spares the punished validator a
// downtime slash for the same blocks, which the SDK's order also spares it
// once jailed).
func (m Module) BeginBlock(st module.State, b *module.Block) error {
	if b.Info == nil || !Enabled(st) {
		return nil
	}
	ensureAccount(st)
	p := GetParams(st)
	if err := m.handleEvidence(st, b, p); err != nil {
		return fmt.Errorf("evidence: %w", err)
	}
	if err := m.handleVotes(st, b, p); err != nil {
		return fmt.Errorf("liveness: %w", err)
	}
	return nil
}

// InitGenesis writes the parameters of app_state.slashing (the SDK's
// defaults for an absent field). Without the section it writes nothing:
// the module is off (see Enabled) and GetParams reads the defaults.
func (Module) InitGenesis(g *module.Genesis) error {
	var section *GenesisState
	if err := g.Section(Name, &section); err != nil || section == nil {
		return err
	}
	gs := *section
	if len(gs.SigningInfos) > 0 || len(gs.MissedBlocks) > 0 {
		return fmt.Errorf("app_state.slashing: signing_infos and missed_blocks must be empty: a validator's record starts with its first signed block")
	}
	p, err := gs.Params.Params()
	if err != nil {
		return fmt.Errorf("app_state.slashing.params: %w", err)
	}
	return Init(g.State(), p)
}

// Init switches the module on with the parameters p.
func Init(st module.State, p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	setParams(st, p)
	return nil
}

// consBech32 is a CometBFT address spelled embervalcons1….
func consBech32(prefix string, cons common.Address) string {
	s, _ := accounts.NewPrefixes(prefix).Encode(accounts.KindConsensus, cons[:])
	return s
}
