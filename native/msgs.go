package native

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slashing"
	"github.com/emberchain/ember/staking"
)

// Modules are the chain's native modules, in the order the app calls their
// hooks (see package module, "Order"): bank, slashing, then staking. Their
// handlers decode and execute every message a native transaction carries.
var Modules = module.NewManager(
	bank.Module{},
	slashing.Module{Staking: slashingStaking},
	staking.Module{},
)

// slashingStaking is slashing's view of today's staking, which has no
// slashing, jailing, shares or minimum self-delegation yet: the reads map
// onto it and the Keeper punishes nothing (noPunishment). The wiring of
// issue 32 replaces it with the staking Keeper and read functions.
var slashingStaking = slashing.Staking{
	Keeper: noPunishment{},
	OperatorByCons: func(st module.Reader, cons common.Address) (common.Address, bool) {
		v, ok := staking.ByConsAddress(st, cons)
		if !ok {
			return common.Address{}, false
		}
		return v.Operator, true
	},
	ConsAddress: func(st module.Reader, op common.Address) (common.Address, bool) {
		v, ok := staking.Get(st, op)
		if !ok {
			return common.Address{}, false
		}
		return v.ConsAddress(), true
	},
	IsJailed:             func(module.Reader, common.Address) bool { return false },
	SelfDelegationTokens: func(st module.Reader, op common.Address) *big.Int { return staking.Delegation(st, op, op) },
	MinSelfDelegation:    func(module.Reader, common.Address) *big.Int { return big.NewInt(1) },
	ValidatorTokens: func(st module.Reader, op common.Address) (*big.Int, dec.Dec, bool) {
		v, ok := staking.Get(st, op)
		if !ok {
			return nil, dec.Zero(), false
		}
		return v.Tokens, dec.FromInt(v.Tokens), true // one share per token
	},
}

// noPunishment is a staking Keeper that slashes and jails nothing.
type noPunishment struct{}

func (noPunishment) Slash(module.State, *module.Events, common.Address, int64, int64, int64, dec.Dec) (*big.Int, error) {
	return new(big.Int), nil
}
func (noPunishment) Jail(module.State, common.Address) error   { return nil }
func (noPunishment) Unjail(module.State, common.Address) error { return nil }

// decodeMsg decodes a message with the handler its type URL names.
func decodeMsg(a *anypb.Any, prefix, denom string) (*module.Msg, error) {
	return Modules.Router().Decode(a, module.Codec{Prefix: prefix, Denom: denom})
}
