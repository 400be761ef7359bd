package slashing

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// slashCall is one call of Keeper.Slash.
type slashCall struct {
	cons                            common.Address
	infractionHeight, currentHeight int64
	power                           int64
	fraction                        dec.Dec
}

// fakeValidator is a validator of fakeStaking.
type fakeValidator struct {
	op, cons  common.Address
	tokens    *big.Int
	self, min *big.Int
	jailed    bool
}

// fakeStaking follows the contract's semantics over Go values and records
// every call: Slash burns power × 10^18 × fraction capped at the tokens.
type fakeStaking struct {
	vals    []*fakeValidator
	slashes []slashCall
	jails   []common.Address
	unjails []common.Address
}

func (f *fakeStaking) byCons(cons common.Address) *fakeValidator {
	for _, v := range f.vals {
		if v.cons == cons {
			return v
		}
	}
	return nil
}

func (f *fakeStaking) byOp(op common.Address) *fakeValidator {
	for _, v := range f.vals {
		if v.op == op {
			return v
		}
	}
	return nil
}

func (f *fakeStaking) Slash(_ module.State, _ *module.Events, cons common.Address, infraction, current int64, _ time.Time, power int64, fraction dec.Dec) (*big.Int, error) {
	f.slashes = append(f.slashes, slashCall{cons, infraction, current, power, fraction})
	v := f.byCons(cons)
	amount := fraction.MulInt(new(big.Int).Mul(big.NewInt(power), e18(1))).TruncateInt()
	if amount.Cmp(v.tokens) > 0 {
		amount.Set(v.tokens)
	}
	v.tokens.Sub(v.tokens, amount)
	return amount, nil
}

func (f *fakeStaking) Jail(_ module.State, cons common.Address) error {
	f.jails = append(f.jails, cons)
	f.byCons(cons).jailed = true
	return nil
}

func (f *fakeStaking) Unjail(_ module.State, cons common.Address) error {
	f.unjails = append(f.unjails, cons)
	f.byCons(cons).jailed = false
	return nil
}

// staking wires f as the module's Staking.
func (f *fakeStaking) staking() Staking {
	return Staking{
		Keeper: f,
		OperatorByCons: func(_ module.Reader, cons common.Address) (common.Address, bool) {
			if v := f.byCons(cons); v != nil {
				return v.op, true
			}
			return common.Address{}, false
		},
		ConsAddress: func(_ module.Reader, op common.Address) (common.Address, bool) {
			if v := f.byOp(op); v != nil {
				return v.cons, true
			}
			return common.Address{}, false
		},
		IsJailed: func(_ module.Reader, op common.Address) bool { v := f.byOp(op); return v != nil && v.jailed },
		SelfDelegationTokens: func(_ module.Reader, op common.Address) *big.Int {
			if v := f.byOp(op); v != nil {
				return new(big.Int).Set(v.self)
			}
			return new(big.Int)
		},
		MinSelfDelegation: func(_ module.Reader, op common.Address) *big.Int { return new(big.Int).Set(f.byOp(op).min) },
		ValidatorTokens: func(_ module.Reader, op common.Address) (*big.Int, dec.Dec, bool) {
			if v := f.byOp(op); v != nil {
				return new(big.Int).Set(v.tokens), dec.FromInt(v.tokens), true
			}
			return nil, dec.Zero(), false
		},
	}
}

func e18(n int64) *big.Int {
	return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000_000_000_000_000))
}
