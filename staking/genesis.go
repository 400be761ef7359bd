package staking

import (
	"fmt"
	"math/big"

	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Genesis is one validator bonded at genesis.
type Genesis struct {
	Moniker           string
	Operator          common.Address // zero with HasOperator false: taken from CometBFT's genesis
	HasOperator       bool
	ConsPubKey        []byte
	Tokens            *big.Int
	RewardAddress     common.Address
	Commission        Commission
	MinSelfDelegation *big.Int
}

// InitGenesis writes the params and the genesis validator set, bonded.
// The self-bonds of validators with an operator are minted into the bonded
// pool and recorded as their operator's delegation, with the hooks the
// SDK's InitGenesis calls (AfterValidatorCreated, BeforeDelegationCreated,
// AfterDelegationModified); a validator without an operator has unbacked
// tokens (power × 10^18) that nobody can unbond.
func (k *Keeper) InitGenesis(st module.State, vals []Genesis, p Params) error {
	ensureSystemAccounts(st)
	setParams(st, p)
	for _, g := range vals {
		if len(g.ConsPubKey) != ed25519.PubKeySize {
			return fmt.Errorf("validator %q: consensus key has %d bytes, want %d", g.Moniker, len(g.ConsPubKey), ed25519.PubKeySize)
		}
		if err := k.initValidator(st, g); err != nil {
			return fmt.Errorf("validator %q: %w", g.Moniker, err)
		}
	}
	return nil
}

func (k *Keeper) initValidator(st module.State, g Genesis) error {
	op := g.Operator
	if !g.HasOperator {
		op = common.BytesToAddress(ed25519.PubKey(g.ConsPubKey).Address())
	}
	if err := CheckCreate(st, op, g.ConsPubKey, g.Tokens, g.Commission.Rate); err != nil {
		return err
	}
	minSelf := g.MinSelfDelegation
	if minSelf == nil {
		minSelf = big.NewInt(1)
	}
	comm := g.Commission
	if comm.Rate.IsZero() && comm.MaxRate.IsZero() && comm.MaxChangeRate.IsZero() {
		comm = Commission{Rate: dec.Zero(), MaxRate: dec.One(), MaxChangeRate: dec.One(), UpdateTime: comm.UpdateTime}
	}
	v := &Validator{Operator: op, HasOperator: g.HasOperator, ConsPubKey: g.ConsPubKey, Status: Bonded, Tokens: new(big.Int), DelegatorShares: dec.Zero(),
		Description: Description{Moniker: g.Moniker}, Commission: comm, MinSelfDelegation: minSelf, RewardAddress: g.RewardAddress,
		ReportedPower: Power(g.Tokens)}
	if !g.HasOperator {
		v.Tokens = new(big.Int).Set(g.Tokens)
		add(st, v)
		return nil
	}
	add(st, v)
	if err := k.hooks().AfterValidatorCreated(st, op); err != nil {
		return err
	}
	if err := bank.Mint(st, op, g.Tokens); err != nil {
		return err
	}
	_, err := k.delegate(st, op, v, g.Tokens, Unbonded, true)
	return err
}
