package staking

import (
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/emberchain/ember/module"
)

// Name is the module's name, its `message.module` event value and its
// app_state section.
const Name = "staking"

// Module is the staking module: the validator and delegation messages,
// maturity of unbonding entries, redelegations and unbonding validators
// at the start of each block, the bonded set and validator updates at its
// end, the genesis validator set and the queries. Keeper carries the hooks
// (nil: none).
type Module struct{ Keeper *Keeper }

func (m Module) keeper() *Keeper {
	if m.Keeper == nil {
		return &Keeper{}
	}
	return m.Keeper
}

// Name implements module.Module.
func (Module) Name() string { return Name }

// Msgs implements module.Module.
func (m Module) Msgs() []*module.MsgHandler {
	k := m.keeper()
	return []*module.MsgHandler{k.msgCreateValidator(), k.msgEditValidator(), k.msgDelegate(), k.msgUndelegate(),
		k.msgRedelegate(), k.msgCancelUnbonding(), k.msgUpdateParams()}
}

// BeginBlock completes the unbonding entries, redelegations and unbonding
// validators whose time the block's time has reached.
func (Module) BeginBlock(st module.State, b *module.Block) error {
	done, err := Mature(st, b.Env.Time)
	if err != nil {
		return fmt.Errorf("staking maturity: %w", err)
	}
	ev := b.Events
	for _, e := range done.Unbondings {
		if e.Amount.Sign() > 0 {
			ev.Coins(NotBondedPool, e.Delegator, e.Amount, "")
		}
		ev.Add("complete_unbonding", "amount", ev.Coin(e.Amount), "validator", ev.Valoper(e.Operator), "delegator", ev.Acc(e.Delegator))
	}
	for _, e := range done.Redelegations {
		ev.Add("complete_redelegation", "amount", ev.Coin(e.Amount), "delegator", ev.Acc(e.Delegator),
			"source_validator", ev.Valoper(e.Operator), "destination_validator", ev.Valoper(e.Dst))
	}
	return nil
}

// EndBlock applies the bonded set and reports the validators whose power
// changed since CometBFT was last told.
func (Module) EndBlock(st module.State, b *module.Block) ([]abci.ValidatorUpdate, error) {
	return ApplyValidatorSet(st, b, b.Env.Height, b.Env.Time)
}

// Queries implements module.Querier.
func (Module) Queries() []module.Query {
	return []module.Query{{Path: QueryValidators, Answer: queryValidators}}
}
