package native

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"

	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	ed25519pb "cosmossdk.io/api/cosmos/crypto/ed25519"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	signingv1beta1 "cosmossdk.io/api/cosmos/tx/signing/v1beta1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/staking"
)

// Pack wraps a message in an Any with the Cosmos type URL "/<full name>".
func Pack(m proto.Message) *anypb.Any {
	v, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		panic(err) // unreachable for the generated message types
	}
	return &anypb.Any{TypeUrl: "/" + string(proto.MessageName(m)), Value: v}
}

// Coin is amount of denom.
func Coin(amount *big.Int, denom string) *basev1beta1.Coin {
	return &basev1beta1.Coin{Denom: denom, Amount: amount.String()}
}

// Builder spells addresses for the messages it builds.
type Builder struct {
	Prefix string
	Denom  string
}

func (b Builder) acc(a common.Address) string { return accounts.Bech32(b.Prefix, a) }

func (b Builder) valoper(a common.Address) string {
	s, _ := accounts.NewPrefixes(b.Prefix).Encode(accounts.KindValidator, a[:])
	return s
}

// Send is a MsgSend.
func (b Builder) Send(from, to common.Address, amount *big.Int) proto.Message {
	return &bankv1beta1.MsgSend{FromAddress: b.acc(from), ToAddress: b.acc(to), Amount: []*basev1beta1.Coin{Coin(amount, b.Denom)}}
}

// Commission is the commission of a new validator, as LegacyDecs in their
// protobuf form (the value × 10^18, e.g. "100000000000000000" for 0.1).
type Commission struct {
	Rate, MaxRate, MaxChangeRate string
}

// DefaultCommission is what CreateValidator sets: 10%, at most 20%,
// changing by at most 1 point a day.
var DefaultCommission = Commission{Rate: "100000000000000000", MaxRate: "200000000000000000", MaxChangeRate: "10000000000000000"}

// CreateValidator is a MsgCreateValidator of operator op with ed25519 key
// consKey and a self-bond of amount, with DefaultCommission and a minimum
// self-delegation of 1.
func (b Builder) CreateValidator(op common.Address, consKey []byte, moniker string, amount *big.Int) proto.Message {
	return b.CreateValidatorWith(op, consKey, moniker, amount, DefaultCommission, big.NewInt(1))
}

// CreateValidatorWith is a MsgCreateValidator with commission c and
// minimum self-delegation minSelf.
func (b Builder) CreateValidatorWith(op common.Address, consKey []byte, moniker string, amount *big.Int, c Commission, minSelf *big.Int) proto.Message {
	return &stakingv1beta1.MsgCreateValidator{
		Description:       &stakingv1beta1.Description{Moniker: moniker},
		Commission:        &stakingv1beta1.CommissionRates{Rate: c.Rate, MaxRate: c.MaxRate, MaxChangeRate: c.MaxChangeRate},
		MinSelfDelegation: minSelf.String(),
		ValidatorAddress:  b.valoper(op),
		Pubkey:            Pack(&ed25519pb.PubKey{Key: consKey}),
		Value:             Coin(amount, b.Denom),
	}
}

// EditValidator is a MsgEditValidator; an empty moniker leaves it unchanged.
func (b Builder) EditValidator(op common.Address, moniker string) proto.Message {
	return b.EditValidatorWith(op, moniker, "", nil)
}

// EditValidatorWith is a MsgEditValidator that also sets the commission
// rate (a LegacyDec's protobuf form; "" leaves it) and the minimum
// self-delegation (nil leaves it).
func (b Builder) EditValidatorWith(op common.Address, moniker, rate string, minSelf *big.Int) proto.Message {
	if moniker == "" {
		moniker = staking.DoNotModify
	}
	m := &stakingv1beta1.MsgEditValidator{
		Description:      &stakingv1beta1.Description{Moniker: moniker, Identity: staking.DoNotModify, Website: staking.DoNotModify, SecurityContact: staking.DoNotModify, Details: staking.DoNotModify},
		ValidatorAddress: b.valoper(op),
		CommissionRate:   rate,
	}
	if minSelf != nil {
		m.MinSelfDelegation = minSelf.String()
	}
	return m
}

// SetRewardAddress is the MsgSetWithdrawAddress that makes reward the fee
// recipient of the blocks op's validator proposes.
func (b Builder) SetRewardAddress(op, reward common.Address) proto.Message {
	return &distrv1beta1.MsgSetWithdrawAddress{DelegatorAddress: b.acc(op), WithdrawAddress: b.acc(reward)}
}

// WithdrawRewards is a MsgWithdrawDelegatorReward.
func (b Builder) WithdrawRewards(del, op common.Address) proto.Message {
	return &distrv1beta1.MsgWithdrawDelegatorReward{DelegatorAddress: b.acc(del), ValidatorAddress: b.valoper(op)}
}

// WithdrawCommission is a MsgWithdrawValidatorCommission.
func (b Builder) WithdrawCommission(op common.Address) proto.Message {
	return &distrv1beta1.MsgWithdrawValidatorCommission{ValidatorAddress: b.valoper(op)}
}

// SetWithdrawAddress is a MsgSetWithdrawAddress: del's rewards go to w.
func (b Builder) SetWithdrawAddress(del, w common.Address) proto.Message {
	return &distrv1beta1.MsgSetWithdrawAddress{DelegatorAddress: b.acc(del), WithdrawAddress: b.acc(w)}
}

// FundCommunityPool is a MsgFundCommunityPool.
func (b Builder) FundCommunityPool(depositor common.Address, amount *big.Int) proto.Message {
	return &distrv1beta1.MsgFundCommunityPool{Depositor: b.acc(depositor), Amount: []*basev1beta1.Coin{Coin(amount, b.Denom)}}
}

// Delegate is a MsgDelegate.
func (b Builder) Delegate(del, op common.Address, amount *big.Int) proto.Message {
	return &stakingv1beta1.MsgDelegate{DelegatorAddress: b.acc(del), ValidatorAddress: b.valoper(op), Amount: Coin(amount, b.Denom)}
}

// Undelegate is a MsgUndelegate.
func (b Builder) Undelegate(del, op common.Address, amount *big.Int) proto.Message {
	return &stakingv1beta1.MsgUndelegate{DelegatorAddress: b.acc(del), ValidatorAddress: b.valoper(op), Amount: Coin(amount, b.Denom)}
}

// Redelegate is a MsgBeginRedelegate of amount from src to dst.
func (b Builder) Redelegate(del, src, dst common.Address, amount *big.Int) proto.Message {
	return &stakingv1beta1.MsgBeginRedelegate{DelegatorAddress: b.acc(del), ValidatorSrcAddress: b.valoper(src), ValidatorDstAddress: b.valoper(dst), Amount: Coin(amount, b.Denom)}
}

// CancelUnbonding is a MsgCancelUnbondingDelegation of amount of the
// unbonding entry from op created at height.
func (b Builder) CancelUnbonding(del, op common.Address, amount *big.Int, height int64) proto.Message {
	return &stakingv1beta1.MsgCancelUnbondingDelegation{DelegatorAddress: b.acc(del), ValidatorAddress: b.valoper(op), Amount: Coin(amount, b.Denom), CreationHeight: height}
}

// Unjail is the MsgUnjail with which operator op asks its jailed validator
// back.
func (b Builder) Unjail(op common.Address) proto.Message {
	return &slashingv1beta1.MsgUnjail{ValidatorAddr: b.valoper(op)}
}

// SignOptions are what a signer fills in besides the messages.
type SignOptions struct {
	ChainID       string
	AccountNumber uint64
	Sequence      uint64
	GasLimit      uint64
	Fee           *big.Int
	Denom         string
	Memo          string
	TimeoutHeight uint64
	// OmitPubKey leaves the public key out of signer_infos (allowed once
	// the chain has recorded the account's key).
	OmitPubKey bool
	// Sig65 appends the recovery byte v, as Ethermint signs; the default
	// is the 64-byte r||s of the Cosmos SDK.
	Sig65 bool
}

// Sign builds the TxRaw bytes of msgs signed by key in SIGN_MODE_DIRECT.
func Sign(key *ecdsa.PrivateKey, msgs []proto.Message, o SignOptions) ([]byte, error) {
	body := &txv1beta1.TxBody{Memo: o.Memo, TimeoutHeight: o.TimeoutHeight}
	for _, m := range msgs {
		body.Messages = append(body.Messages, Pack(m))
	}
	si := &txv1beta1.SignerInfo{
		ModeInfo: &txv1beta1.ModeInfo{Sum: &txv1beta1.ModeInfo_Single_{Single: &txv1beta1.ModeInfo_Single{Mode: signingv1beta1.SignMode_SIGN_MODE_DIRECT}}},
		Sequence: o.Sequence,
	}
	if !o.OmitPubKey {
		si.PublicKey = PackPubKey(crypto.CompressPubkey(&key.PublicKey))
	}
	fee := o.Fee
	if fee == nil {
		fee = new(big.Int)
	}
	auth := &txv1beta1.AuthInfo{SignerInfos: []*txv1beta1.SignerInfo{si}, Fee: &txv1beta1.Fee{GasLimit: o.GasLimit}}
	if fee.Sign() > 0 {
		auth.Fee.Amount = []*basev1beta1.Coin{Coin(fee, o.Denom)}
	}
	det := proto.MarshalOptions{Deterministic: true}
	bodyBytes, err := det.Marshal(body)
	if err != nil {
		return nil, err
	}
	authBytes, err := det.Marshal(auth)
	if err != nil {
		return nil, err
	}
	sig, err := crypto.Sign(SignHash(SignBytes(bodyBytes, authBytes, o.ChainID, o.AccountNumber)), key)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	if !o.Sig65 {
		sig = sig[:64]
	}
	return det.Marshal(&txv1beta1.TxRaw{BodyBytes: bodyBytes, AuthInfoBytes: authBytes, Signatures: [][]byte{sig}})
}

// SizeWithSignature is an upper bound of the signed size of msgs, to
// compute the gas before signing: a signature of 65 bytes and the public
// key are counted.
func SizeWithSignature(key *ecdsa.PrivateKey, msgs []proto.Message, o SignOptions) (int, error) {
	o.Sig65 = true
	if o.Fee == nil || o.Fee.Sign() == 0 {
		o.Fee = new(big.Int).Lsh(big.NewInt(1), 128) // room for any fee
	}
	o.GasLimit = 1 << 62
	raw, err := Sign(key, msgs, o)
	return len(raw), err
}

// EstimateGas is the gas a tx of msgs signed by key will be charged (an
// upper bound: the size is taken with a large fee and gas limit).
func EstimateGas(key *ecdsa.PrivateKey, msgs []proto.Message, o SignOptions, prefix, denom string) (uint64, error) {
	size, err := SizeWithSignature(key, msgs, o)
	if err != nil {
		return 0, err
	}
	decoded := make([]*module.Msg, 0, len(msgs))
	for _, m := range msgs {
		d, err := decodeMsg(Pack(m), prefix, denom)
		if err != nil {
			return 0, err
		}
		decoded = append(decoded, d)
	}
	return GasOf(size, decoded), nil
}
