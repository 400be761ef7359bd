package staking

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// setShares writes del's shares of op, keeping both indexes.
func setShares(st module.State, del, op common.Address, s dec.Dec) {
	store.SetDec(st, sharesSlot(del, op), s)
	if s.IsPositive() {
		setOf(slotValDels, op).Add(st, del)
		setOf(slotDelVals, del).Add(st, op)
		return
	}
	setOf(slotValDels, op).Remove(st, del)
	setOf(slotDelVals, del).Remove(st, op)
}

// movePools moves amount between the pools when a delegation's tokens
// change pool: from where they are (src) to where v keeps its tokens.
func movePools(st module.State, src BondStatus, v *Validator, amount *big.Int) error {
	from := NotBondedPool
	if src == Bonded {
		from = BondedPool
	}
	if from == v.pool() || amount.Sign() == 0 {
		return nil
	}
	return transfer(st, from, v.pool(), amount)
}

// delegate bonds amount to v for del (SDK keeper.Delegate). With
// fromAccount the tokens come from del's balance; else they are already in
// the pool src names (a redelegation) and move if v's differs. It writes v.
func (k *Keeper) delegate(st module.State, del common.Address, v *Validator, amount *big.Int, src BondStatus, fromAccount bool) (dec.Dec, error) {
	if v.invalidExRate() {
		return dec.Zero(), Err(CodeDelegatorShareExRateZero)
	}
	old, exists := DelegationShares(st, del, v.Operator)
	var err error
	if exists {
		err = k.hooks().BeforeDelegationSharesModified(st, del, v.Operator)
	} else {
		err = k.hooks().BeforeDelegationCreated(st, del, v.Operator)
	}
	if err != nil {
		return dec.Zero(), err
	}
	if fromAccount {
		err = transfer(st, del, v.pool(), amount)
	} else {
		err = movePools(st, src, v, amount)
	}
	if err != nil {
		return dec.Zero(), err
	}
	issued := dec.FromInt(amount)
	if v.DelegatorShares.IsPositive() {
		issued, _ = v.SharesFromTokens(amount)
	}
	v.Tokens = new(big.Int).Add(v.Tokens, amount)
	v.DelegatorShares = v.DelegatorShares.Add(issued)
	setValidator(st, v)
	setShares(st, del, v.Operator, old.Add(issued))
	return issued, k.hooks().AfterDelegationModified(st, del, v.Operator)
}

// unbond takes shares from del's delegation to v and from v (SDK
// keeper.Unbond) and returns the tokens they held; the caller moves them.
// An operator whose self-delegation falls below its minimum is jailed. It
// writes v.
func (k *Keeper) unbond(st module.State, del common.Address, v *Validator, shares dec.Dec) (*big.Int, error) {
	have, ok := DelegationShares(st, del, v.Operator)
	if !ok {
		return nil, Err(CodeNoDelegatorForAddress)
	}
	if err := k.hooks().BeforeDelegationSharesModified(st, del, v.Operator); err != nil {
		return nil, err
	}
	if have.LT(shares) {
		return nil, Err(CodeNotEnoughShares).WithDetail("%s", have)
	}
	left := have.Sub(shares)
	if del == v.Operator && !v.Jailed && v.TokensFromShares(left).TruncateInt().Cmp(v.MinSelfDelegation) < 0 {
		v.Jailed = true
	}
	setShares(st, del, v.Operator, left)
	if err := k.hooks().AfterDelegationModified(st, del, v.Operator); err != nil {
		return nil, err
	}
	remaining := v.DelegatorShares.Sub(shares)
	var out *big.Int
	if remaining.IsZero() {
		out = v.Tokens
		v.Tokens = new(big.Int)
	} else {
		out = v.TokensFromShares(shares).TruncateInt()
		v.Tokens = new(big.Int).Sub(v.Tokens, out)
	}
	v.DelegatorShares = remaining
	setValidator(st, v)
	return out, nil
}

// sharesToUnbond converts a token amount to the shares of del's delegation
// to v it takes (SDK ValidateUnbondAmount).
func sharesToUnbond(st module.Reader, del common.Address, v *Validator, amount *big.Int) (dec.Dec, error) {
	have, ok := DelegationShares(st, del, v.Operator)
	if !ok {
		return dec.Zero(), Err(CodeNoDelegation)
	}
	shares, ok := v.SharesFromTokens(amount)
	if !ok {
		return dec.Zero(), Err(CodeInsufficientShares)
	}
	truncated, _ := v.SharesFromTokensTruncated(amount)
	if truncated.GT(have) {
		return dec.Zero(), module.SDKError(module.CodeInvalidRequest, "invalid shares amount")
	}
	return dec.Min(shares, have), nil
}
