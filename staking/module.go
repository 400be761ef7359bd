package staking

import (
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/emberchain/ember/module"
)

// Name is the module's name, its `message.module` event value and its
// app_state section.
const Name = "staking"

// Module is the staking module: the validator messages and delegations
// (and MsgSetWithdrawAddress, which sets a validator's reward address),
// unbonding maturity at the start of each block, the validator updates at
// its end, the genesis validator set and the validators query.
type Module struct{}

// Name implements module.Module.
func (Module) Name() string { return Name }

// Msgs implements module.Module.
func (Module) Msgs() []*module.MsgHandler {
	return []*module.MsgHandler{msgCreateValidator, msgEditValidator, msgDelegate, msgUndelegate, msgSetWithdrawAddress}
}

// BeginBlock pays back the unbonding entries whose completion time the
// block's time has reached.
func (Module) BeginBlock(st module.State, b *module.Block) error {
	done, err := Mature(st, b.Env.Time)
	if err != nil {
		return fmt.Errorf("unbonding: %w", err)
	}
	ev := b.Events
	for _, e := range done {
		ev.Coins(UnbondingPool, e.Delegator, e.Amount, "")
		ev.Add("complete_unbonding", "amount", ev.Coin(e.Amount), "validator", ev.Valoper(e.Operator), "delegator", ev.Acc(e.Delegator))
	}
	return nil
}

// EndBlock reports the validators whose power changed since CometBFT was
// last told.
func (Module) EndBlock(st module.State, _ *module.Block) ([]abci.ValidatorUpdate, error) {
	return Updates(st), nil
}

// Queries implements module.Querier.
func (Module) Queries() []module.Query {
	return []module.Query{{Path: QueryValidators, Answer: queryValidators}}
}
