package genutil

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	ed25519pb "cosmossdk.io/api/cosmos/crypto/ed25519"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
)

// Commission is a validator's commission as the SDK's gentx flags give it:
// decimal fractions ("0.1") and an integer minimum self-delegation.
type Commission struct {
	Rate, MaxRate, MaxChangeRate string
	MinSelfDelegation            string
}

// DefaultCommission is the SDK's gentx default.
var DefaultCommission = Commission{Rate: "0.1", MaxRate: "0.2", MaxChangeRate: "0.01", MinSelfDelegation: "1"}

// rates checks c as the SDK's CommissionRates.Validate does and returns the
// protobuf form of its rates (cosmos.Dec: the fraction scaled by 10^18).
func (c Commission) rates() (*stakingv1beta1.CommissionRates, error) {
	var r [3]dec.Dec
	for i, s := range []string{c.Rate, c.MaxRate, c.MaxChangeRate} {
		d, err := dec.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("commission %q: %w", s, err)
		}
		r[i] = d
	}
	rate, maxRate, maxChange := r[0], r[1], r[2]
	switch {
	case maxRate.IsNegative():
		return nil, errors.New("commission parameter must be positive") // the SDK's ErrCommissionNegative
	case maxRate.GT(dec.One()):
		return nil, errors.New("commission cannot be more than 100%")
	case rate.IsNegative():
		return nil, errors.New("commission parameter must be positive")
	case rate.GT(maxRate):
		return nil, errors.New("commission cannot be more than the max rate")
	case maxChange.IsNegative():
		return nil, errors.New("commission change rate must be positive")
	case maxChange.GT(maxRate):
		return nil, errors.New("commission change rate cannot be more than the max rate")
	}
	return &stakingv1beta1.CommissionRates{Rate: rate.Raw().String(), MaxRate: maxRate.Raw().String(), MaxChangeRate: maxChange.Raw().String()}, nil
}

// Validator is what an operator's gentx declares.
type Validator struct {
	Operator   common.Address
	ConsKey    []byte // 32-byte ed25519 key of priv_validator_key.json
	Moniker    string
	SelfBond   *big.Int
	Commission Commission
}

// Msg is the MsgCreateValidator of v, its addresses spelled with prefix.
func (v Validator) Msg(prefix, denom string) (proto.Message, error) {
	rates, err := v.Commission.rates()
	if err != nil {
		return nil, err
	}
	minSelf, ok := new(big.Int).SetString(v.Commission.MinSelfDelegation, 10)
	if !ok || minSelf.Sign() <= 0 {
		return nil, fmt.Errorf("minimum self delegation must be a positive integer: %q", v.Commission.MinSelfDelegation)
	}
	if v.SelfBond == nil || v.SelfBond.Cmp(minSelf) < 0 {
		return nil, fmt.Errorf("self delegation %v is below the minimum self delegation %v", v.SelfBond, minSelf)
	}
	if v.SelfBond.Cmp(staking.PowerReduction) < 0 {
		return nil, fmt.Errorf("self-bond %v%s is below 1 voting power (10^18%s)", v.SelfBond, denom, denom)
	}
	if len(v.ConsKey) != 32 {
		return nil, fmt.Errorf("consensus key has %d bytes, want a 32-byte ed25519 key", len(v.ConsKey))
	}
	valoper, err := accounts.NewPrefixes(prefix).Encode(accounts.KindValidator, v.Operator[:])
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.MsgCreateValidator{
		Description:       &stakingv1beta1.Description{Moniker: v.Moniker},
		Commission:        rates,
		MinSelfDelegation: minSelf.String(),
		ValidatorAddress:  valoper,
		Pubkey:            native.Pack(&ed25519pb.PubKey{Key: v.ConsKey}),
		Value:             native.Coin(v.SelfBond, denom),
	}, nil
}

// Sign is the gentx of v signed by key (v's operator): one
// MsgCreateValidator, account number 0 and sequence 0, no fee, the gas it
// is charged, and memo (the node's <id>@<ip>:<port>). It returns the JSON
// a gentx file holds.
func Sign(key *ecdsa.PrivateKey, v Validator, chainID, memo, prefix, denom string) (json.RawMessage, error) {
	msg, err := v.Msg(prefix, denom)
	if err != nil {
		return nil, err
	}
	msgs := []proto.Message{msg}
	opts := native.SignOptions{ChainID: chainID, Denom: denom, Memo: memo}
	if opts.GasLimit, err = native.EstimateGas(key, msgs, opts, prefix, denom); err != nil {
		return nil, err
	}
	raw, err := native.Sign(key, msgs, opts)
	if err != nil {
		return nil, err
	}
	return EncodeJSON(raw)
}
