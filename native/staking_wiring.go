package native

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/staking"
)

// stakingReads is what distribution reads of staking. This branch's
// staking counts one share per token, has no commission and no hooks; the
// merge with the staking rewrite replaces these with the staking package's
// functions of the same names (OperatorByCons, ValidatorTokens, …) and
// passes Distribution as staking's Hooks.
func stakingReads() distribution.Staking {
	return distribution.Staking{
		OperatorByCons: func(st module.Reader, cons common.Address) (common.Address, bool) {
			v, ok := staking.ByConsAddress(st, cons)
			if !ok {
				return common.Address{}, false
			}
			return v.Operator, true
		},
		ValidatorTokens: func(st module.Reader, op common.Address) (*big.Int, dec.Dec, bool) {
			v, ok := staking.Get(st, op)
			if !ok {
				return nil, dec.Zero(), false
			}
			return v.Tokens, dec.FromInt(v.Tokens), true
		},
		CommissionRate: func(module.Reader, common.Address) dec.Dec { return dec.Zero() },
		DelegationShares: func(st module.Reader, del, op common.Address) (dec.Dec, bool) {
			d := staking.Delegation(st, del, op)
			return dec.FromInt(d), d.Sign() > 0
		},
		DelegatorValidators: func(st module.Reader, del common.Address) []common.Address {
			var out []common.Address
			for _, v := range staking.All(st) {
				if staking.Delegation(st, del, v.Operator).Sign() > 0 {
					out = append(out, v.Operator)
				}
			}
			return out
		},
	}
}

// stakingModule is staking without MsgSetWithdrawAddress, which
// distribution now handles; the staking rewrite drops the message itself.
type stakingModule struct{ staking.Module }

// Msgs implements module.Module.
func (m stakingModule) Msgs() []*module.MsgHandler {
	var out []*module.MsgHandler
	for _, h := range m.Module.Msgs() {
		if h.TypeURL != distribution.TypeMsgSetWithdrawAddress {
			out = append(out, h)
		}
	}
	return out
}
