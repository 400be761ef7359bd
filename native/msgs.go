package native

import (
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	upgradev1beta1 "cosmossdk.io/api/cosmos/upgrade/v1beta1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/feemarket"
	"github.com/emberchain/ember/gov"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/paramchange"
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
// hooks (see package module, "Order"), the SDK's begin- and end-block
// orders: mint mints into the fee collector, distribution allocates it
// with the fees to the previous block's signers, slashing handles evidence
// and missed blocks, staking matures unbonding entries; at the end of the
// block gov ends its periods and runs passed proposals before staking
// computes the validator set, so a passed change of max_validators shapes
// that very set. The fee market only holds parameters; upgrade only has
// pre-block work (a plan due at the block's height). Their handlers decode
// and execute every message a native transaction carries.
var Modules = module.NewManager(
	bank.Module{},
	feemarket.Module{},
	mint.Module{Collector: distribution.FeeCollector, BondedPool: staking.BondedPool},
	distribution.Module{Keeper: Distribution},
	slashing.Module{Staking: slashing.Staking{
		Keeper:         stakingKeeper,
		OperatorByCons: staking.OperatorByCons, ConsAddress: staking.ConsAddress, IsJailed: staking.IsJailed,
		SelfDelegationTokens: staking.SelfDelegationTokens, MinSelfDelegation: staking.MinSelfDelegation,
		ValidatorTokens: staking.ValidatorTokens,
	}},
	Gov,
	staking.Module{Keeper: stakingKeeper},
	upgrade.Module{},
)

// Gov is the gov module; its Router is the manager's, set once the
// manager exists (the manager holds the module: no initializer cycle).
// Content wires the legacy proposal contents of other modules.
var Gov = &gov.Module{Content: map[string]gov.ContentExec{
	paramchange.ContentType: func(st module.State, c proto.Message, _ *module.Env) error { return paramchange.Exec(st, c) },
	"/cosmos.distribution.v1beta1.CommunityPoolSpendProposal": func(st module.State, c proto.Message, env *module.Env) error {
		return distribution.SpendProposal(st, c.(*distrv1beta1.CommunityPoolSpendProposal), env.Prefix, env.Denom)
	},
	"/cosmos.upgrade.v1beta1.SoftwareUpgradeProposal": func(st module.State, c proto.Message, env *module.Env) error {
		p := c.(*upgradev1beta1.SoftwareUpgradeProposal).GetPlan()
		return upgrade.Schedule(st, upgrade.Plan{Name: p.GetName(), Height: p.GetHeight(), Info: p.GetInfo()}, env.Height)
	},
	"/cosmos.upgrade.v1beta1.CancelSoftwareUpgradeProposal": func(st module.State, _ proto.Message, _ *module.Env) error {
		return upgrade.Cancel(st)
	},
}}

func init() { Gov.Router = Modules.Router }

// decodeMsg decodes a message with the handler its type URL names.
func decodeMsg(a *anypb.Any, prefix, denom string) (*module.Msg, error) {
	return Modules.Router().Decode(a, module.Codec{Prefix: prefix, Denom: denom})
}
