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

// Message type URLs the chain executes.
const (
	TypeMsgSend               = bank.TypeMsgSend
	TypeMsgCreateValidator    = staking.TypeMsgCreateValidator
	TypeMsgEditValidator      = staking.TypeMsgEditValidator
	TypeMsgDelegate           = staking.TypeMsgDelegate
	TypeMsgUndelegate         = staking.TypeMsgUndelegate
	TypeMsgSetWithdrawAddress = staking.TypeMsgSetWithdrawAddress
)

// DoNotModify is the description value MsgEditValidator uses for "leave
// this field as it is", as in the Cosmos SDK.
const DoNotModify = staking.DoNotModify

// MaxMonikerLength is Cosmos's bound on a moniker.
const MaxMonikerLength = staking.MaxMonikerLength

// Msg is one decoded message (see module.Msg).
type Msg = module.Msg

// decodeMsg decodes a message with the handler its type URL names.
func decodeMsg(a *anypb.Any, prefix, denom string) (*Msg, error) {
	return Modules.Router().Decode(a, module.Codec{Prefix: prefix, Denom: denom})
}
