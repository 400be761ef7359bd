package native

import (
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/staking"
)

// Distribution is the distribution keeper: staking's hooks.
var Distribution = &distribution.Keeper{Staking: stakingReads()}

// Modules are the chain's native modules, in the order the app calls their
// hooks (see package module, "Order"): bank, mint, distribution, (slashing,)
// staking — the SDK's begin-block order: mint mints into the fee
// collector, distribution allocates it with the fees, staking matures
// unbondings. Their handlers decode and execute every message a native
// transaction carries.
var Modules = module.NewManager(
	bank.Module{},
	mint.Module{Collector: distribution.FeeCollector, BondedPool: staking.BondedPool},
	distribution.Module{Keeper: Distribution},
	stakingModule{staking.Module{}},
)

// decodeMsg decodes a message with the handler its type URL names.
func decodeMsg(a *anypb.Any, prefix, denom string) (*module.Msg, error) {
	return Modules.Router().Decode(a, module.Codec{Prefix: prefix, Denom: denom})
}
