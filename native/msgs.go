package native

import (
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/staking"
)

// Modules are the chain's native modules, in the order the app calls their
// hooks (see package module, "Order"): bank, then staking. Their handlers
// decode and execute every message a native transaction carries.
var Modules = module.NewManager(
	bank.Module{},
	staking.Module{},
)

// decodeMsg decodes a message with the handler its type URL names.
func decodeMsg(a *anypb.Any, prefix, denom string) (*module.Msg, error) {
	return Modules.Router().Decode(a, module.Codec{Prefix: prefix, Denom: denom})
}
