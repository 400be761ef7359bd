package staking

import (
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Slash burns fraction of the tokens the validator with CometBFT address
// cons had at infractionHeight, when its power was power (SDK
// keeper.Slash): amount = power × 10^18 × fraction. When the infraction
// is older than currentHeight, the unbonding entries from the validator
// and the redelegations from it created at or after the infraction, not
// yet mature, are cut first by fraction of their initial balance; the
// rest, capped at the validator's tokens, is burned from them in the pool
// its status names. It returns what it burned of the validator's own
// tokens, as the SDK's Slash does (the slashing module reports it as
// burned_coins; the entries' cuts are burned too, not counted in it). now
// is the block time (entries mature at it are not cut). An unknown or
// unbonded validator is not an error: it burns nothing (the SDK's evidence
// handler skips unbonded validators before it slashes, and an error here
// would halt the chain).
func (k *Keeper) Slash(st module.State, _ *module.Events, cons common.Address, infractionHeight, currentHeight int64, now time.Time, power int64, fraction dec.Dec) (*big.Int, error) {
	if fraction.IsNegative() || fraction.GT(dec.One()) {
		return nil, fmt.Errorf("slash fraction %s out of [0, 1]", fraction)
	}
	if infractionHeight > currentHeight {
		return nil, fmt.Errorf("impossible attempt to slash future infraction at height %d but we are at height %d", infractionHeight, currentHeight)
	}
	op, ok := OperatorByCons(st, cons)
	if !ok {
		return new(big.Int), nil
	}
	v, _ := Get(st, op)
	if v.Status == Unbonded {
		return new(big.Int), nil
	}
	amount := dec.FromInt(new(big.Int).Mul(big.NewInt(power), PowerReduction)).Mul(fraction).TruncateInt()
	remaining := new(big.Int).Set(amount)
	if infractionHeight < currentHeight {
		for _, del := range UnbondingDelegators(st, op) {
			asked, b := slashUnbonding(st, del, op, infractionHeight, fraction, now)
			remaining.Sub(remaining, asked)
			if err := burn(st, NotBondedPool, b); err != nil {
				return nil, err
			}
		}
		for _, red := range RedelegationsFrom(st, op) {
			asked, err := k.slashRedelegation(st, red, infractionHeight, fraction, now)
			if err != nil {
				return nil, err
			}
			remaining.Sub(remaining, asked)
		}
	}
	v, _ = Get(st, op) // a redelegation's unbond may have jailed it
	toBurn := new(big.Int).Set(remaining)
	if toBurn.Cmp(v.Tokens) > 0 {
		toBurn.Set(v.Tokens)
	}
	if toBurn.Sign() <= 0 {
		return new(big.Int), nil
	}
	// The SDK's effective fraction: what is burned of what the validator
	// has now, rounded up.
	if err := k.hooks().BeforeValidatorSlashed(st, op, dec.Min(quoRoundUp(toBurn, v.Tokens), dec.One())); err != nil {
		return nil, err
	}
	v.Tokens = new(big.Int).Sub(v.Tokens, toBurn)
	setValidator(st, v)
	if v.HasOperator {
		if err := burn(st, v.pool(), toBurn); err != nil {
			return nil, err
		}
	}
	return toBurn, nil
}

// quoRoundUp is a ÷ b as a Dec rounded up (SDK QuoRoundUp).
func quoRoundUp(a, b *big.Int) dec.Dec {
	n := new(big.Int).Mul(a, PowerReduction)
	q, r := new(big.Int).QuoRem(n, b, new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return dec.FromRaw(q)
}

func burn(st module.State, pool common.Address, amount *big.Int) error {
	if amount.Sign() == 0 {
		return nil
	}
	return bank.Burn(st, pool, amount)
}

// slashRedelegation unbonds fraction of each eligible entry's shares at
// the destination and burns the tokens (SDK SlashRedelegation); it
// returns the total asked for.
func (k *Keeper) slashRedelegation(st module.State, red Redelegation, infraction int64, fraction dec.Dec, now time.Time) (asked *big.Int, err error) {
	asked = new(big.Int)
	for _, e := range red.Entries {
		if e.CreationHeight < infraction || (!now.IsZero() && !e.CompletionTime.After(now)) {
			continue
		}
		asked.Add(asked, fraction.MulInt(e.InitialBalance).TruncateInt())
		shares := fraction.Mul(e.SharesDst)
		have, ok := DelegationShares(st, red.Delegator, red.Dst)
		if shares.IsZero() || !ok {
			continue
		}
		shares = dec.Min(shares, have)
		dv, _ := Get(st, red.Dst)
		pool := dv.pool()
		out, err := k.unbond(st, red.Delegator, dv, shares)
		if err != nil {
			return nil, err
		}
		if dv.HasOperator {
			if err := burn(st, pool, out); err != nil {
				return nil, err
			}
		}
	}
	return asked, nil
}

// Jail jails the validator with CometBFT address cons: the next EndBlock
// takes it out of the bonded set.
func (k *Keeper) Jail(st module.State, cons common.Address) error {
	return setJailed(st, cons, true)
}

// Unjail lets the validator with CometBFT address cons back into the set.
func (k *Keeper) Unjail(st module.State, cons common.Address) error {
	return setJailed(st, cons, false)
}

func setJailed(st module.State, cons common.Address, jailed bool) error {
	v, ok := ByConsAddress(st, cons)
	if !ok {
		return Err(CodeNoValidator)
	}
	if v.Jailed == jailed {
		if jailed {
			return Err(CodeValidatorJailed)
		}
		return module.SDKError(module.CodeInvalidRequest, "validator not jailed")
	}
	v.Jailed = jailed
	setValidator(st, v)
	return nil
}
