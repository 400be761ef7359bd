package staking

import (
	"math/big"
	"strconv"
	"time"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/module"
)

// Message type URLs the module executes.
const (
	TypeMsgCreateValidator = "/cosmos.staking.v1beta1.MsgCreateValidator"
	TypeMsgEditValidator   = "/cosmos.staking.v1beta1.MsgEditValidator"
	TypeMsgDelegate        = "/cosmos.staking.v1beta1.MsgDelegate"
	TypeMsgUndelegate      = "/cosmos.staking.v1beta1.MsgUndelegate"
	TypeMsgBeginRedelegate = "/cosmos.staking.v1beta1.MsgBeginRedelegate"
	TypeMsgCancelUnbonding = "/cosmos.staking.v1beta1.MsgCancelUnbondingDelegation"
)

// Fixed gas of the messages.
const (
	GasMsgCreateValidator = 100_000
	GasMsgDelegate        = 50_000 // MsgDelegate, MsgUndelegate, MsgCancelUnbondingDelegation
	GasMsgRedelegate      = 75_000
	GasMsgEdit            = 20_000
)

// ConsensusPubKeyType is the type URL of a validator's ed25519 consensus key.
const ConsensusPubKeyType = "/cosmos.crypto.ed25519.PubKey"

func amount(m *module.Msg) *big.Int { return m.Amount }

func (k *Keeper) msgDelegate() *module.MsgHandler {
	return &module.MsgHandler{
		TypeURL: TypeMsgDelegate, Module: Name, Gas: GasMsgDelegate,
		New: func() proto.Message { return new(stakingv1beta1.MsgDelegate) },
		Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
			msg := p.(*stakingv1beta1.MsgDelegate)
			return decodeDelegation(m, c, msg.DelegatorAddress, msg.ValidatorAddress, msg.Amount)
		},
		Spend: amount,
		Check: func(st module.Reader, m *module.Msg) error { return k.CheckDelegate(st, m.Validator, m.Amount) },
		Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
			if err := fundsFor(st, m.Signer, m.Amount, c.Env.Denom); err != nil {
				return err
			}
			shares, err := k.Delegate(st, m.Signer, m.Validator, m.Amount)
			if err != nil {
				return err
			}
			v, _ := Get(st, m.Validator)
			ev := c.Events
			ev.Coins(m.Signer, v.pool(), m.Amount, c.Index)
			ev.Add("delegate", "validator", ev.Valoper(m.Validator), "delegator", ev.Acc(m.Signer), "amount", ev.Coin(m.Amount), "new_shares", shares, "msg_index", c.Index)
			return nil
		},
	}
}

func (k *Keeper) msgUndelegate() *module.MsgHandler {
	return &module.MsgHandler{
		TypeURL: TypeMsgUndelegate, Module: Name, Gas: GasMsgDelegate,
		New: func() proto.Message { return new(stakingv1beta1.MsgUndelegate) },
		Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
			msg := p.(*stakingv1beta1.MsgUndelegate)
			return decodeDelegation(m, c, msg.DelegatorAddress, msg.ValidatorAddress, msg.Amount)
		},
		Check: func(st module.Reader, m *module.Msg) error {
			return CheckUndelegate(st, m.Signer, m.Validator, m.Amount)
		},
		Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
			v, ok := Get(st, m.Validator)
			if !ok {
				return Err(CodeNoValidator)
			}
			bonded := v.IsBonded()
			done, out, err := k.Undelegate(st, m.Signer, m.Validator, m.Amount, c.Env.Height, c.Env.Time)
			if err != nil {
				return err
			}
			ev := c.Events
			if bonded && out.Sign() > 0 {
				ev.Coins(BondedPool, NotBondedPool, out, c.Index)
			}
			ev.Add("unbond", "validator", ev.Valoper(m.Validator), "delegator", ev.Acc(m.Signer), "amount", ev.Coin(out), "completion_time", done.UTC().Format(time.RFC3339), "msg_index", c.Index)
			return nil
		},
	}
}

func (k *Keeper) msgRedelegate() *module.MsgHandler {
	return &module.MsgHandler{
		TypeURL: TypeMsgBeginRedelegate, Module: Name, Gas: GasMsgRedelegate,
		New: func() proto.Message { return new(stakingv1beta1.MsgBeginRedelegate) },
		Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
			msg := p.(*stakingv1beta1.MsgBeginRedelegate)
			if err := decodeDelegation(m, c, msg.DelegatorAddress, msg.ValidatorSrcAddress, msg.Amount); err != nil {
				return err
			}
			var err error
			m.To, err = c.Operator(msg.ValidatorDstAddress) // To: the destination
			return err
		},
		Check: func(st module.Reader, m *module.Msg) error {
			return k.CheckRedelegate(st, m.Signer, m.Validator, redelegateDst(m), m.Amount)
		},
		Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
			dst := redelegateDst(m)
			done, err := k.Redelegate(st, m.Signer, m.Validator, dst, m.Amount, c.Env.Height, c.Env.Time)
			if err != nil {
				return err
			}
			ev := c.Events
			ev.Add("redelegate", "source_validator", ev.Valoper(m.Validator), "destination_validator", ev.Valoper(dst),
				"amount", ev.Coin(m.Amount), "completion_time", done.UTC().Format(time.RFC3339), "msg_index", c.Index)
			return nil
		},
	}
}

// redelegateDst is the destination of a decoded MsgBeginRedelegate.
func redelegateDst(m *module.Msg) common.Address { return m.To }

func (k *Keeper) msgCancelUnbonding() *module.MsgHandler {
	return &module.MsgHandler{
		TypeURL: TypeMsgCancelUnbonding, Module: Name, Gas: GasMsgDelegate,
		New: func() proto.Message { return new(stakingv1beta1.MsgCancelUnbondingDelegation) },
		Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
			msg := p.(*stakingv1beta1.MsgCancelUnbondingDelegation)
			if err := decodeDelegation(m, c, msg.DelegatorAddress, msg.ValidatorAddress, msg.Amount); err != nil {
				return err
			}
			if msg.CreationHeight <= 0 {
				return module.SDKError(module.CodeInvalidRequest, "invalid height")
			}
			return nil
		},
		Check: func(st module.Reader, m *module.Msg) error {
			return k.CheckCancelUnbonding(st, m.Signer, m.Validator, m.Amount, cancelHeight(m), time.Time{})
		},
		Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
			h := cancelHeight(m)
			if err := k.CancelUnbonding(st, m.Signer, m.Validator, m.Amount, h, c.Env.Time); err != nil {
				return err
			}
			v, _ := Get(st, m.Validator)
			ev := c.Events
			if v.IsBonded() {
				ev.Coins(NotBondedPool, BondedPool, m.Amount, c.Index)
			}
			ev.Add("cancel_unbonding_delegation", "amount", ev.Coin(m.Amount), "validator", ev.Valoper(m.Validator),
				"delegator", ev.Acc(m.Signer), "creation_height", strconv.FormatInt(h, 10), "msg_index", c.Index)
			return nil
		},
	}
}

func cancelHeight(m *module.Msg) int64 {
	return m.Proto.(*stakingv1beta1.MsgCancelUnbondingDelegation).CreationHeight
}

// decodeDelegation decodes the fields the delegation messages share.
func decodeDelegation(m *module.Msg, c module.Codec, del, val string, amount *basev1beta1.Coin) error {
	var err error
	if m.Signer, err = c.Account("delegator_address", del); err != nil {
		return err
	}
	if m.Validator, err = c.Operator(val); err != nil {
		return err
	}
	if amount == nil || amount.GetDenom() == "" {
		return module.SDKError(module.CodeInvalidRequest, "invalid delegation amount")
	}
	a, ok := new(big.Int).SetString(amount.GetAmount(), 10)
	if !ok || a.Sign() <= 0 || a.BitLen() > 256 {
		return module.SDKError(module.CodeInvalidRequest, "invalid delegation amount")
	}
	if amount.GetDenom() != c.Denom {
		return module.SDKError(module.CodeInvalidRequest, "invalid coin denomination: got %s, expected %s", amount.GetDenom(), c.Denom)
	}
	m.Amount = a
	return nil
}

// fundsFor refuses a bond above the signer's balance.
func fundsFor(st module.State, from common.Address, amount *big.Int, denom string) error {
	if bal := st.GetBalance(from).ToBig(); bal.Cmp(amount) < 0 {
		return module.FundsError(bal, amount, denom)
	}
	return nil
}

// CheckDelegate reports why op's validator cannot take amount more.
func (k *Keeper) CheckDelegate(st module.Reader, op common.Address, amount *big.Int) error {
	v, ok := Get(st, op)
	if !ok || !v.HasOperator {
		return Err(CodeNoValidator)
	}
	if k.tombstoned(st, v) {
		return Err(CodeValidatorJailed).WithDetail("validator is tombstoned")
	}
	if v.invalidExRate() {
		return Err(CodeDelegatorShareExRateZero)
	}
	if Power(new(big.Int).Add(v.Tokens, amount)) >= MaxPower {
		return amountErr(ErrPowerTooHigh)
	}
	return nil
}

// Delegate bonds amount of del's balance to op and returns the shares it
// bought.
func (k *Keeper) Delegate(st module.State, del, op common.Address, amount *big.Int) (string, error) {
	if err := k.CheckDelegate(st, op, amount); err != nil {
		return "", err
	}
	v, _ := Get(st, op)
	shares, err := k.delegate(st, del, v, amount, Unbonded, true)
	if err != nil {
		return "", err
	}
	return shares.String(), nil
}
