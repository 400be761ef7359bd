package native

import (
	"fmt"
	"math/big"
	"strings"

	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	ed25519pb "cosmossdk.io/api/cosmos/crypto/ed25519"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
)

// Message type URLs the chain executes.
const (
	TypeMsgSend               = "/cosmos.bank.v1beta1.MsgSend"
	TypeMsgCreateValidator    = "/cosmos.staking.v1beta1.MsgCreateValidator"
	TypeMsgEditValidator      = "/cosmos.staking.v1beta1.MsgEditValidator"
	TypeMsgDelegate           = "/cosmos.staking.v1beta1.MsgDelegate"
	TypeMsgUndelegate         = "/cosmos.staking.v1beta1.MsgUndelegate"
	TypeMsgSetWithdrawAddress = "/cosmos.distribution.v1beta1.MsgSetWithdrawAddress"
)

// DoNotModify is the description value MsgEditValidator uses for "leave
// this field as it is", as in the Cosmos SDK.
const DoNotModify = "[do-not-modify]"

// MaxMonikerLength is Cosmos's bound on a moniker.
const MaxMonikerLength = 70

// Msg is one decoded message: its type URL, the signer it names and the
// fields execution needs, parsed and checked.
type Msg struct {
	TypeURL string
	Proto   proto.Message
	Signer  common.Address
	// Fields, by message type:
	To        common.Address // MsgSend: recipient; MsgSetWithdrawAddress: reward address
	Validator common.Address // staking: the operator
	Amount    *big.Int       // MsgSend, MsgDelegate, MsgUndelegate, MsgCreateValidator (self-bond)
	ConsKey   []byte         // MsgCreateValidator: ed25519 consensus key
	Moniker   *string        // MsgCreateValidator, MsgEditValidator (nil: unchanged)
}

// Action is the message's `message.action` event value: its type URL.
func (m *Msg) Action() string { return m.TypeURL }

// Module is the `message.module` event value.
func (m *Msg) Module() string {
	switch m.TypeURL {
	case TypeMsgSend:
		return "bank"
	case TypeMsgSetWithdrawAddress:
		return "distribution"
	}
	return "staking"
}

// Spend is what the message may take from the signer's balance.
func (m *Msg) Spend() *big.Int {
	switch m.TypeURL {
	case TypeMsgSend, TypeMsgDelegate, TypeMsgCreateValidator:
		return m.Amount
	}
	return new(big.Int)
}

// Gas is the fixed gas of the message (see Gas constants).
func (m *Msg) Gas() uint64 {
	switch m.TypeURL {
	case TypeMsgSend:
		return GasMsgSend
	case TypeMsgCreateValidator:
		return GasMsgCreateValidator
	case TypeMsgDelegate, TypeMsgUndelegate:
		return GasMsgDelegate
	}
	return GasMsgEdit
}

func decodeMsg(a *anypb.Any, prefix, denom string) (*Msg, error) {
	m := &Msg{TypeURL: a.TypeUrl}
	switch a.TypeUrl {
	case TypeMsgSend:
		var msg bankv1beta1.MsgSend
		if err := strictUnmarshal(a.Value, &msg); err != nil {
			return nil, sdkErr(CodeTxDecode, "%s: %v", a.TypeUrl, err)
		}
		m.Proto = &msg
		var err error
		if m.Signer, err = account(prefix, "from_address", msg.FromAddress); err != nil {
			return nil, err
		}
		if m.To, err = account(prefix, "to_address", msg.ToAddress); err != nil {
			return nil, err
		}
		if m.Amount, err = coinsAmount(msg.Amount, denom); err != nil {
			return nil, err
		}
		if len(msg.Amount) == 0 || m.Amount.Sign() == 0 {
			return nil, sdkErr(CodeInvalidCoins, "%s: amount must be positive", a.TypeUrl)
		}
	case TypeMsgCreateValidator:
		var msg stakingv1beta1.MsgCreateValidator
		if err := strictUnmarshal(a.Value, &msg); err != nil {
			return nil, sdkErr(CodeTxDecode, "%s: %v", a.TypeUrl, err)
		}
		m.Proto = &msg
		var err error
		if m.Signer, err = operator(prefix, msg.ValidatorAddress); err != nil {
			return nil, err
		}
		m.Validator = m.Signer
		if msg.DelegatorAddress != "" { // deprecated field; when set it must be the operator
			if d, err := account(prefix, "delegator_address", msg.DelegatorAddress); err != nil || d != m.Signer {
				return nil, sdkErr(CodeInvalidAddress, "delegator_address %q is not the operator's account", msg.DelegatorAddress)
			}
		}
		if msg.Pubkey == nil || msg.Pubkey.TypeUrl != ConsensusPubKeyType {
			return nil, stakingErr(CodeStakingBadPubKeyType, "validator pubkey type is not supported").wrap("want %s", ConsensusPubKeyType)
		}
		var pk ed25519pb.PubKey
		if err := strictUnmarshal(msg.Pubkey.Value, &pk); err != nil || len(pk.Key) != 32 {
			return nil, sdkErr(CodeInvalidPubKey, "consensus pubkey: want a 32-byte ed25519 key")
		}
		m.ConsKey = pk.Key
		if m.Amount, err = coinAmount(msg.Value, denom); err != nil {
			return nil, err
		}
		if m.Amount.Cmp(powerReduction) < 0 {
			return nil, sdkErr(CodeInvalidRequest, "self-bond %v%s is below 1 voting power (10^18%s)", m.Amount, denom, denom)
		}
		moniker := msg.GetDescription().GetMoniker()
		if strings.TrimSpace(moniker) == "" || len(moniker) > MaxMonikerLength {
			return nil, sdkErr(CodeInvalidRequest, "moniker must be 1 to %d characters", MaxMonikerLength)
		}
		m.Moniker = &moniker
	case TypeMsgEditValidator:
		var msg stakingv1beta1.MsgEditValidator
		if err := strictUnmarshal(a.Value, &msg); err != nil {
			return nil, sdkErr(CodeTxDecode, "%s: %v", a.TypeUrl, err)
		}
		m.Proto = &msg
		var err error
		if m.Signer, err = operator(prefix, msg.ValidatorAddress); err != nil {
			return nil, err
		}
		m.Validator = m.Signer
		if mon := msg.GetDescription().GetMoniker(); mon != "" && mon != DoNotModify {
			if len(mon) > MaxMonikerLength {
				return nil, sdkErr(CodeInvalidRequest, "moniker longer than %d characters", MaxMonikerLength)
			}
			m.Moniker = &mon
		}
	case TypeMsgDelegate, TypeMsgUndelegate:
		var del, val string
		var amount interface {
			GetDenom() string
			GetAmount() string
		}
		if a.TypeUrl == TypeMsgDelegate {
			var msg stakingv1beta1.MsgDelegate
			if err := strictUnmarshal(a.Value, &msg); err != nil {
				return nil, sdkErr(CodeTxDecode, "%s: %v", a.TypeUrl, err)
			}
			m.Proto, del, val, amount = &msg, msg.DelegatorAddress, msg.ValidatorAddress, msg.Amount
		} else {
			var msg stakingv1beta1.MsgUndelegate
			if err := strictUnmarshal(a.Value, &msg); err != nil {
				return nil, sdkErr(CodeTxDecode, "%s: %v", a.TypeUrl, err)
			}
			m.Proto, del, val, amount = &msg, msg.DelegatorAddress, msg.ValidatorAddress, msg.Amount
		}
		var err error
		if m.Signer, err = account(prefix, "delegator_address", del); err != nil {
			return nil, err
		}
		if m.Validator, err = operator(prefix, val); err != nil {
			return nil, err
		}
		if amount == nil || amount.GetDenom() == "" {
			return nil, sdkErr(CodeInvalidRequest, "invalid delegation amount")
		}
		a, ok := new(big.Int).SetString(amount.GetAmount(), 10)
		if !ok || a.Sign() <= 0 || a.BitLen() > 256 || amount.GetDenom() != denom {
			return nil, sdkErr(CodeInvalidRequest, "invalid delegation amount %s%s: want a positive amount of %s", amount.GetAmount(), amount.GetDenom(), denom)
		}
		m.Amount = a
	case TypeMsgSetWithdrawAddress:
		var msg distrv1beta1.MsgSetWithdrawAddress
		if err := strictUnmarshal(a.Value, &msg); err != nil {
			return nil, sdkErr(CodeTxDecode, "%s: %v", a.TypeUrl, err)
		}
		m.Proto = &msg
		var err error
		if m.Signer, err = account(prefix, "delegator_address", msg.DelegatorAddress); err != nil {
			return nil, err
		}
		m.Validator = m.Signer
		if m.To, err = account(prefix, "withdraw_address", msg.WithdrawAddress); err != nil {
			return nil, err
		}
	default:
		return nil, sdkErr(CodeTxDecode, "unable to resolve type URL %s", a.TypeUrl)
	}
	return m, nil
}

func (e *Error) wrap(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

// account parses an account address (ember1… or 0x…).
func account(prefix, field, s string) (common.Address, error) {
	a, err := accounts.ParseAddress(prefix, s)
	if err != nil {
		return common.Address{}, sdkErr(CodeInvalidAddress, "invalid %s: %v", field, err)
	}
	return a, nil
}

// operator parses a validator operator address (embervaloper1… or 0x…).
func operator(prefix, s string) (common.Address, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return account(prefix, "validator_address", s)
	}
	kind, b, err := accounts.NewPrefixes(prefix).Decode(s)
	if err != nil || kind != accounts.KindValidator {
		return common.Address{}, sdkErr(CodeInvalidAddress, "invalid validator address %q: want %svaloper1… or 0x…", s, prefix)
	}
	return common.BytesToAddress(b), nil
}

var powerReduction = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
