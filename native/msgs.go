package native

import (
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slashing"
	"github.com/emberchain/ember/staking"
)

// stakingKeeper is the one staking keeper: the staking module executes
// with it and slashing punishes through it, so both fire the same hooks.
var stakingKeeper = &staking.Keeper{Tombstoned: slashing.IsTombstoned}

// Modules are the chain's native modules, in the order the app calls their
// hooks (see package module, "Order"): bank, slashing, then staking. Their
// handlers decode and execute every message a native transaction carries.
var Modules = module.NewManager(
	bank.Module{},
	slashing.Module{Staking: slashing.Staking{
		Keeper:         stakingKeeper,
		OperatorByCons: staking.OperatorByCons, ConsAddress: staking.ConsAddress, IsJailed: staking.IsJailed,
		SelfDelegationTokens: staking.SelfDelegationTokens, MinSelfDelegation: staking.MinSelfDelegation,
		ValidatorTokens: staking.ValidatorTokens,
	}},
	staking.Module{Keeper: stakingKeeper},
)

// decodeMsg decodes a message with the handler its type URL names.
func decodeMsg(a *anypb.Any, prefix, denom string) (*module.Msg, error) {
	return Modules.Router().Decode(a, module.Codec{Prefix: prefix, Denom: denom})
}
