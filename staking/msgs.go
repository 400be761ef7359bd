package staking

import (
	"math/big"
	"strings"
	"time"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	ed25519pb "cosmossdk.io/api/cosmos/crypto/ed25519"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/module"
)

// Message type URLs the module executes.
const (
	TypeMsgCreateValidator    = "/cosmos.staking.v1beta1.MsgCreateValidator"
	TypeMsgEditValidator      = "/cosmos.staking.v1beta1.MsgEditValidator"
	TypeMsgDelegate           = "/cosmos.staking.v1beta1.MsgDelegate"
	TypeMsgUndelegate         = "/cosmos.staking.v1beta1.MsgUndelegate"
	TypeMsgSetWithdrawAddress = "/cosmos.distribution.v1beta1.MsgSetWithdrawAddress"
)

// Fixed gas of the messages.
const (
	GasMsgCreateValidator = 100_000
	GasMsgDelegate        = 50_000 // MsgDelegate and MsgUndelegate
	GasMsgEdit            = 20_000 // MsgEditValidator and MsgSetWithdrawAddress
)

// ConsensusPubKeyType is the type URL of a validator's ed25519 consensus key.
const ConsensusPubKeyType = "/cosmos.crypto.ed25519.PubKey"

// DoNotModify is the description value MsgEditValidator uses for "leave
// this field as it is", as in the Cosmos SDK.
const DoNotModify = "[do-not-modify]"

// MaxMonikerLength is Cosmos's bound on a moniker.
const MaxMonikerLength = 70

// distributionModule is the `message.module` of MsgSetWithdrawAddress, a
// distribution message in Cosmos that sets the staking state's reward
// address here.
const distributionModule = "distribution"

func amount(m *module.Msg) *big.Int { return m.Amount }

var msgCreateValidator = &module.MsgHandler{
	TypeURL: TypeMsgCreateValidator, Module: Name, Gas: GasMsgCreateValidator,
	New:    func() proto.Message { return new(stakingv1beta1.MsgCreateValidator) },
	Decode: decodeCreateValidator,
	Spend:  amount,
	Check: func(st module.Reader, m *module.Msg) error {
		return coded(CheckCreate(st, m.Validator, m.ConsKey, m.Amount))
	},
	Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
		if err := fundsFor(st, m.Signer, m.Amount, c.Env.Denom); err != nil {
			return err
		}
		if err := Create(st, m.Validator, m.ConsKey, *m.Moniker, m.Amount); err != nil {
			return coded(err)
		}
		ev := c.Events
		ev.Coins(m.Signer, BondedPool, m.Amount, c.Index)
		ev.Add("create_validator", "validator", ev.Valoper(m.Validator), "amount", ev.Coin(m.Amount), "msg_index", c.Index)
		return nil
	},
}

func decodeCreateValidator(p proto.Message, m *module.Msg, c module.Codec) error {
	msg := p.(*stakingv1beta1.MsgCreateValidator)
	var err error
	if m.Signer, err = c.Operator(msg.ValidatorAddress); err != nil {
		return err
	}
	m.Validator = m.Signer
	if msg.DelegatorAddress != "" { // deprecated field; when set it must be the operator
		if d, err := c.Account("delegator_address", msg.DelegatorAddress); err != nil || d != m.Signer {
			return module.SDKError(module.CodeInvalidAddress, "delegator_address %q is not the operator's account", msg.DelegatorAddress)
		}
	}
	if msg.Pubkey == nil || msg.Pubkey.TypeUrl != ConsensusPubKeyType {
		return codedErr(CodeBadPubKeyType, "validator pubkey type is not supported").WithDetail("want %s", ConsensusPubKeyType)
	}
	var pk ed25519pb.PubKey
	if err := module.StrictUnmarshal(msg.Pubkey.Value, &pk); err != nil || len(pk.Key) != 32 {
		return module.SDKError(module.CodeInvalidPubKey, "consensus pubkey: want a 32-byte ed25519 key")
	}
	m.ConsKey = pk.Key
	if m.Amount, err = module.CoinAmount(msg.Value, c.Denom); err != nil {
		return err
	}
	if m.Amount.Cmp(PowerReduction) < 0 {
		return module.SDKError(module.CodeInvalidRequest, "self-bond %v%s is below 1 voting power (10^18%s)", m.Amount, c.Denom, c.Denom)
	}
	moniker := msg.GetDescription().GetMoniker()
	if strings.TrimSpace(moniker) == "" || len(moniker) > MaxMonikerLength {
		return module.SDKError(module.CodeInvalidRequest, "moniker must be 1 to %d characters", MaxMonikerLength)
	}
	m.Moniker = &moniker
	return nil
}

// checkOperated refuses a message to a validator that does not exist or
// has no operator.
func checkOperated(st module.Reader, m *module.Msg) error {
	if v, ok := Get(st, m.Validator); !ok || !v.HasOperator {
		return coded(ErrNoValidator)
	}
	return nil
}

var msgEditValidator = &module.MsgHandler{
	TypeURL: TypeMsgEditValidator, Module: Name, Gas: GasMsgEdit,
	New: func() proto.Message { return new(stakingv1beta1.MsgEditValidator) },
	Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
		msg := p.(*stakingv1beta1.MsgEditValidator)
		var err error
		if m.Signer, err = c.Operator(msg.ValidatorAddress); err != nil {
			return err
		}
		m.Validator = m.Signer
		if mon := msg.GetDescription().GetMoniker(); mon != "" && mon != DoNotModify {
			if len(mon) > MaxMonikerLength {
				return module.SDKError(module.CodeInvalidRequest, "moniker longer than %d characters", MaxMonikerLength)
			}
			m.Moniker = &mon
		}
		return nil
	},
	Check: checkOperated,
	Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
		if err := Edit(st, m.Validator, m.Moniker, nil); err != nil {
			return coded(err)
		}
		v, _ := Get(st, m.Validator)
		c.Events.Add("edit_validator", "validator", c.Events.Valoper(m.Validator), "moniker", v.Moniker, "msg_index", c.Index)
		return nil
	},
}

var msgSetWithdrawAddress = &module.MsgHandler{
	TypeURL: TypeMsgSetWithdrawAddress, Module: distributionModule, Gas: GasMsgEdit,
	New: func() proto.Message { return new(distrv1beta1.MsgSetWithdrawAddress) },
	Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
		msg := p.(*distrv1beta1.MsgSetWithdrawAddress)
		var err error
		if m.Signer, err = c.Account("delegator_address", msg.DelegatorAddress); err != nil {
			return err
		}
		m.Validator = m.Signer
		m.To, err = c.Account("withdraw_address", msg.WithdrawAddress)
		return err
	},
	Check: checkOperated,
	Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
		if err := Edit(st, m.Validator, nil, &m.To); err != nil {
			return coded(err)
		}
		c.Events.Add("set_withdraw_address", "withdraw_address", c.Events.Acc(m.To), "msg_index", c.Index)
		return nil
	},
}

var msgDelegate = &module.MsgHandler{
	TypeURL: TypeMsgDelegate, Module: Name, Gas: GasMsgDelegate,
	New: func() proto.Message { return new(stakingv1beta1.MsgDelegate) },
	Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
		msg := p.(*stakingv1beta1.MsgDelegate)
		return decodeDelegation(m, c, msg.DelegatorAddress, msg.ValidatorAddress, msg.Amount)
	},
	Spend: amount,
	Check: func(st module.Reader, m *module.Msg) error {
		return coded(CheckDelegate(st, m.Validator, m.Amount))
	},
	Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
		if err := fundsFor(st, m.Signer, m.Amount, c.Env.Denom); err != nil {
			return err
		}
		if err := Delegate(st, m.Signer, m.Validator, m.Amount); err != nil {
			return coded(err)
		}
		ev := c.Events
		ev.Coins(m.Signer, BondedPool, m.Amount, c.Index)
		ev.Add("delegate", "validator", ev.Valoper(m.Validator), "delegator", ev.Acc(m.Signer), "amount", ev.Coin(m.Amount), "new_shares", m.Amount.String(), "msg_index", c.Index)
		return nil
	},
}

var msgUndelegate = &module.MsgHandler{
	TypeURL: TypeMsgUndelegate, Module: Name, Gas: GasMsgDelegate,
	New: func() proto.Message { return new(stakingv1beta1.MsgUndelegate) },
	Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
		msg := p.(*stakingv1beta1.MsgUndelegate)
		return decodeDelegation(m, c, msg.DelegatorAddress, msg.ValidatorAddress, msg.Amount)
	},
	Check: func(st module.Reader, m *module.Msg) error {
		return coded(CheckUndelegate(st, m.Signer, m.Validator, m.Amount))
	},
	Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
		done, err := Undelegate(st, m.Signer, m.Validator, m.Amount, c.Env.Time)
		if err != nil {
			return coded(err)
		}
		ev := c.Events
		ev.Coins(BondedPool, UnbondingPool, m.Amount, c.Index)
		ev.Add("unbond", "validator", ev.Valoper(m.Validator), "delegator", ev.Acc(m.Signer), "amount", ev.Coin(m.Amount), "completion_time", done.UTC().Format(time.RFC3339), "msg_index", c.Index)
		return nil
	},
}

// decodeDelegation decodes the fields MsgDelegate and MsgUndelegate share.
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
	if !ok || a.Sign() <= 0 || a.BitLen() > 256 || amount.GetDenom() != c.Denom {
		return module.SDKError(module.CodeInvalidRequest, "invalid delegation amount %s%s: want a positive amount of %s", amount.GetAmount(), amount.GetDenom(), c.Denom)
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
