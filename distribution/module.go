package distribution

import (
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Name is the module's name, its `message.module` event value and its
// app_state section.
const Name = "distribution"

// Module is the distribution module the app runs (see package module):
// begin-block allocation, its four messages and its genesis parameters.
type Module struct {
	Keeper *Keeper
}

// Name implements module.Module.
func (Module) Name() string { return Name }

// Msgs implements module.Module.
func (m Module) Msgs() []*module.MsgHandler { return append(m.Keeper.msgs(), govMsgs()...) }

// BeginBlock implements module.BeginBlocker.
func (m Module) BeginBlock(st module.State, b *module.Block) error { return m.Keeper.BeginBlock(st, b) }

// EndBlock implements module.EndBlocker: it clears the block height
// begin-block recorded for the hooks (see height).
func (m Module) EndBlock(st module.State, _ *module.Block) ([]abci.ValidatorUpdate, error) {
	if Enabled(st) {
		store.Set(st, slots.Word(slotHeight), common.Hash{})
	}
	return nil, nil
}

// PendingRewards are del's rewards from op as a withdrawal now would
// compute them (before truncation). It closes op's period in st, so a
// query passes a state it discards. ok is false when op is no validator
// or del has no delegation to it.
func (k *Keeper) PendingRewards(st module.State, del, op common.Address) (rewards dec.Dec, ok bool, err error) {
	if _, _, ok := k.Staking.ValidatorTokens(st, op); !ok {
		return dec.Zero(), false, nil
	}
	if _, ok := k.Staking.DelegationShares(st, del, op); !ok {
		return dec.Zero(), false, nil
	}
	if _, has := Starting(st, del, op); !has {
		return dec.Zero(), true, nil
	}
	end, err := k.incrementPeriod(st, op)
	if err != nil {
		return dec.Zero(), true, err
	}
	r, err := k.delegationRewards(st, del, op, end)
	return r, true, err
}
