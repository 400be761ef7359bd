package distribution

import (
	"math/big"
	"sort"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// bonded is where the fake staking keeps delegated tokens.
var bonded = common.HexToAddress("0x0000000000000000000000000000000000000B0D")

// fakeValidator is a validator of fakeStaking.
type fakeValidator struct {
	cons   common.Address
	tokens *big.Int
	shares dec.Dec
	rate   dec.Dec
}

// fakeStaking follows staking's semantics as CONTRACT.md states them:
// shares issued at tokens/shares, the hooks at the SDK's points, slashes
// that fire BeforeValidatorSlashed before the tokens change.
type fakeStaking struct {
	t      *testing.T
	hooks  *Keeper
	vals   map[common.Address]*fakeValidator
	delegs map[common.Address]map[common.Address]dec.Dec
}

func newFake(t *testing.T) (*fakeStaking, *Keeper) {
	f := &fakeStaking{t: t, vals: map[common.Address]*fakeValidator{}, delegs: map[common.Address]map[common.Address]dec.Dec{}}
	k := &Keeper{Staking: Staking{
		OperatorByCons: func(_ module.Reader, cons common.Address) (common.Address, bool) {
			for op, v := range f.vals {
				if v.cons == cons {
					return op, true
				}
			}
			return common.Address{}, false
		},
		ValidatorTokens: func(_ module.Reader, op common.Address) (*big.Int, dec.Dec, bool) {
			v, ok := f.vals[op]
			if !ok {
				return nil, dec.Zero(), false
			}
			return new(big.Int).Set(v.tokens), v.shares, true
		},
		CommissionRate: func(_ module.Reader, op common.Address) dec.Dec { return f.vals[op].rate },
		DelegationShares: func(_ module.Reader, del, op common.Address) (dec.Dec, bool) {
			s, ok := f.delegs[del][op]
			return s, ok
		},
		DelegatorValidators: func(_ module.Reader, del common.Address) []common.Address {
			var out []common.Address
			for op := range f.delegs[del] {
				out = append(out, op)
			}
			sort.Slice(out, func(i, j int) bool { return out[i].Cmp(out[j]) < 0 })
			return out
		},
	}}
	f.hooks = k
	return f, k
}

func (f *fakeStaking) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// create makes a validator op with a self-delegation of tokens.
func (f *fakeStaking) create(st module.State, op, cons common.Address, tokens *big.Int, rate string) {
	f.t.Helper()
	f.vals[op] = &fakeValidator{cons: cons, tokens: new(big.Int), shares: dec.Zero(), rate: dec.MustParse(rate)}
	f.must(f.hooks.AfterValidatorCreated(st, op))
	f.delegate(st, op, op, tokens)
}

// delegate adds amount of del's balance to op.
func (f *fakeStaking) delegate(st module.State, del, op common.Address, amount *big.Int) {
	f.t.Helper()
	v := f.vals[op]
	if _, ok := f.delegs[del][op]; ok {
		f.must(f.hooks.BeforeDelegationSharesModified(st, del, op))
	} else {
		f.must(f.hooks.BeforeDelegationCreated(st, del, op))
	}
	issued := dec.FromInt(amount)
	if v.tokens.Sign() > 0 {
		issued = v.shares.MulInt(amount).QuoInt(v.tokens)
	}
	if f.delegs[del] == nil {
		f.delegs[del] = map[common.Address]dec.Dec{}
	}
	f.delegs[del][op] = f.delegs[del][op].Add(issued)
	v.shares = v.shares.Add(issued)
	v.tokens.Add(v.tokens, amount)
	a := uint256.MustFromBig(amount)
	st.SubBalance(del, a, tracing.BalanceChangeTransfer)
	st.AddBalance(bonded, a, tracing.BalanceChangeTransfer)
	f.must(f.hooks.AfterDelegationModified(st, del, op))
}

// undelegate removes shares of del from op and pays their tokens back
// at once (the fake has no unbonding time).
func (f *fakeStaking) undelegate(st module.State, del, op common.Address, shares dec.Dec) {
	f.t.Helper()
	v := f.vals[op]
	f.must(f.hooks.BeforeDelegationSharesModified(st, del, op))
	amount := shares.MulInt(v.tokens).QuoTruncate(v.shares).TruncateInt()
	f.delegs[del][op] = f.delegs[del][op].Sub(shares)
	if f.delegs[del][op].IsZero() {
		delete(f.delegs[del], op)
	}
	v.shares = v.shares.Sub(shares)
	v.tokens.Sub(v.tokens, amount)
	a := uint256.MustFromBig(amount)
	st.SubBalance(bonded, a, tracing.BalanceChangeTransfer)
	st.AddBalance(del, a, tracing.BalanceChangeTransfer)
	f.must(f.hooks.AfterDelegationModified(st, del, op))
}

// slash burns fraction of op's tokens.
func (f *fakeStaking) slash(st module.State, op common.Address, fraction string) {
	f.t.Helper()
	v := f.vals[op]
	fr := dec.MustParse(fraction)
	f.must(f.hooks.BeforeValidatorSlashed(st, op, fr))
	burn := fr.MulInt(v.tokens).TruncateInt()
	v.tokens.Sub(v.tokens, burn)
	st.SubBalance(bonded, uint256.MustFromBig(burn), tracing.BalanceChangeUnspecified)
}

func newState(t *testing.T) *state.StateDB {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func fund(st module.State, a common.Address, n *big.Int) {
	st.AddBalance(a, uint256.MustFromBig(n), tracing.BalanceChangeUnspecified)
}

func e18(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }
