package native

import (
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slashing"
	"github.com/emberchain/ember/staking"
	"github.com/emberchain/ember/upgrade"
)

// Distribution is the distribution keeper: staking fires its hooks.
var Distribution = &distribution.Keeper{Staking: distribution.Staking{
	OperatorByCons: staking.OperatorByCons, ValidatorTokens: staking.ValidatorTokens,
	CommissionRate: staking.CommissionRate, DelegationShares: staking.DelegationShares,
	DelegatorValidators: staking.DelegatorValidators,
}}

// stakingKeeper is the one staking keeper: the staking module executes
// with it and slashing punishes through it, so both fire the same hooks
// (distribution's), and it refuses delegations to validators slashing
// tombstoned.
var stakingKeeper = &staking.Keeper{Hooks: Distribution, Tombstoned: slashing.IsTombstoned}

// Modules are the chain's native modules, in the order the app calls their
// hooks (see package module, "Order"), the SDK's begin-block order: mint
// mints into the fee collector, distribution allocates it with the fees
// to the previous block's signers, slashing handles evidence and missed
// blocks, staking matures unbonding entries (and at the end of the block
// computes the validator set). Their handlers decode and execute every
// message a native transaction carries.
var Modules = module.NewManager(
	bank.Module{},
	mint.Module{Collector: distribution.FeeCollector, BondedPool: staking.BondedPool},
	distribution.Module{Keeper: Distribution},
	slashing.Module{Staking: slashing.Staking{
		Keeper:         stakingKeeper,
		OperatorByCons: staking.OperatorByCons, ConsAddress: staking.ConsAddress, IsJailed: staking.IsJailed,
		SelfDelegationTokens: staking.SelfDelegationTokens, MinSelfDelegation: staking.MinSelfDelegation,
		ValidatorTokens: staking.ValidatorTokens,
	}},
	staking.Module{Keeper: stakingKeeper},
	upgrade.Module{},
)

// decodeMsg decodes a message with the handler its type URL names.
func decodeMsg(a *anypb.Any, prefix, denom string) (*module.Msg, error) {
	return Modules.Router().Decode(a, module.Codec{Prefix: prefix, Denom: denom})
}
