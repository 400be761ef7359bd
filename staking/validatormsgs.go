package staking

import (
	"math/big"
	"strings"
	"time"

	ed25519pb "cosmossdk.io/api/cosmos/crypto/ed25519"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// DoNotModify is the description value MsgEditValidator uses for "leave
// this field as it is", as in the Cosmos SDK.
const DoNotModify = "[do-not-modify]"

// The SDK's bounds on the description fields.
const (
	MaxMonikerLength         = 70
	MaxIdentityLength        = 3000
	MaxWebsiteLength         = 140
	MaxSecurityContactLength = 140
	MaxDetailsLength         = 280
)

// commissionUpdateWait is how long a commission rate stays before it may
// change again.
const commissionUpdateWait = 24 * time.Hour

func (k *Keeper) msgCreateValidator() *module.MsgHandler {
	return &module.MsgHandler{
		TypeURL: TypeMsgCreateValidator, Module: Name, Gas: GasMsgCreateValidator,
		New:    func() proto.Message { return new(stakingv1beta1.MsgCreateValidator) },
		Decode: decodeCreateValidator,
		Spend:  amount,
		Check: func(st module.Reader, m *module.Msg) error {
			return CheckCreate(st, m.Validator, m.ConsKey, m.Amount, createCommission(m).Rate)
		},
		Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
			if err := fundsFor(st, m.Signer, m.Amount, c.Env.Denom); err != nil {
				return err
			}
			msg := m.Proto.(*stakingv1beta1.MsgCreateValidator)
			minSelf, _ := new(big.Int).SetString(msg.MinSelfDelegation, 10)
			comm := createCommission(m)
			comm.UpdateTime = c.Env.Time
			v := &Validator{Operator: m.Validator, HasOperator: true, ConsPubKey: m.ConsKey, Status: Unbonded, Tokens: new(big.Int),
				DelegatorShares: dec.Zero(), Description: description(msg.Description), Commission: comm,
				MinSelfDelegation: minSelf, CreationHeight: c.Env.Height, RewardAddress: m.Validator}
			if err := k.Create(st, v, m.Amount); err != nil {
				return err
			}
			ev := c.Events
			ev.Coins(m.Signer, NotBondedPool, m.Amount, c.Index)
			ev.Add("create_validator", "validator", ev.Valoper(m.Validator), "amount", ev.Coin(m.Amount), "msg_index", c.Index)
			return nil
		},
	}
}

func description(d *stakingv1beta1.Description) Description {
	return Description{Moniker: d.GetMoniker(), Identity: d.GetIdentity(), Website: d.GetWebsite(), SecurityContact: d.GetSecurityContact(), Details: d.GetDetails()}
}

// ensureLength checks the description against the SDK's bounds.
func (d Description) ensureLength() error {
	for _, f := range []struct {
		name string
		v    string
		max  int
	}{{"moniker", d.Moniker, MaxMonikerLength}, {"identity", d.Identity, MaxIdentityLength}, {"website", d.Website, MaxWebsiteLength},
		{"security contact", d.SecurityContact, MaxSecurityContactLength}, {"details", d.Details, MaxDetailsLength}} {
		if len(f.v) > f.max {
			return module.SDKError(module.CodeInvalidRequest, "invalid %s length; got: %d, max: %d", f.name, len(f.v), f.max)
		}
	}
	return nil
}

// parseDec reads a LegacyDec in its protobuf form (the integer value ×
// 10^18, as the SDK's amino/protobuf encoding writes it).
func parseDec(s string) (dec.Dec, bool) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return dec.Zero(), false
	}
	return dec.FromRaw(n), true
}

// createCommission is the commission of a decoded MsgCreateValidator.
func createCommission(m *module.Msg) Commission {
	r := m.Proto.(*stakingv1beta1.MsgCreateValidator).Commission
	rate, _ := parseDec(r.GetRate())
	maxRate, _ := parseDec(r.GetMaxRate())
	change, _ := parseDec(r.GetMaxChangeRate())
	return Commission{Rate: rate, MaxRate: maxRate, MaxChangeRate: change}
}

// validateCommission is the SDK's CommissionRates.Validate.
func validateCommission(c Commission) error {
	switch {
	case c.MaxRate.IsNegative():
		return Err(CodeCommissionNegative)
	case c.MaxRate.GT(dec.One()):
		return Err(CodeCommissionHuge)
	case c.Rate.IsNegative():
		return Err(CodeCommissionNegative)
	case c.Rate.GT(c.MaxRate):
		return Err(CodeCommissionGTMaxRate)
	case c.MaxChangeRate.IsNegative():
		return Err(CodeChangeRateNegative)
	case c.MaxChangeRate.GT(c.MaxRate):
		return Err(CodeChangeRateGTMaxRate)
	}
	return nil
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
		return Err(CodeBadPubKeyType).WithDetail("want %s", ConsensusPubKeyType)
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
	d := description(msg.Description)
	if strings.TrimSpace(d.Moniker) == "" {
		return module.SDKError(module.CodeInvalidRequest, "moniker must be 1 to %d characters", MaxMonikerLength)
	}
	if err := d.ensureLength(); err != nil {
		return err
	}
	m.Moniker = &d.Moniker
	return decodeCreateRates(msg, m.Amount)
}

// decodeCreateRates checks the commission and the minimum self-delegation
// of a MsgCreateValidator (its Validate).
func decodeCreateRates(msg *stakingv1beta1.MsgCreateValidator, self *big.Int) error {
	r := msg.Commission
	if r == nil || (r.Rate == "" && r.MaxRate == "" && r.MaxChangeRate == "") {
		return module.SDKError(module.CodeInvalidRequest, "empty commission")
	}
	var comm Commission
	var ok [3]bool
	comm.Rate, ok[0] = parseDec(r.Rate)
	comm.MaxRate, ok[1] = parseDec(r.MaxRate)
	comm.MaxChangeRate, ok[2] = parseDec(r.MaxChangeRate)
	if !ok[0] || !ok[1] || !ok[2] {
		return module.SDKError(module.CodeInvalidRequest, "invalid commission rates")
	}
	if err := validateCommission(comm); err != nil {
		return err
	}
	minSelf, good := new(big.Int).SetString(msg.MinSelfDelegation, 10)
	if !good || minSelf.Sign() <= 0 || minSelf.BitLen() > 256 {
		return module.SDKError(module.CodeInvalidRequest, "minimum self delegation must be a positive integer")
	}
	if self.Cmp(minSelf) < 0 {
		return Err(CodeSelfDelegationBelowMin)
	}
	return nil
}

// CheckCreate reports why a validator with operator op, key pub and
// commission rate cannot be created with amount, without changing anything.
func CheckCreate(st module.Reader, op common.Address, pub []byte, amount *big.Int, rate dec.Dec) error {
	if min := GetParams(st).MinCommissionRate; rate.LT(min) {
		return Err(CodeCommissionLTMinRate).WithDetail("cannot set validator commission to less than minimum rate of %s", min)
	}
	if _, ok := Get(st, op); ok {
		return Err(CodeOperatorExists)
	}
	if _, ok := ByConsAddress(st, common.BytesToAddress(ed25519.PubKey(pub).Address())); ok {
		return Err(CodePubKeyExists)
	}
	if Power(amount) >= MaxPower {
		return amountErr(ErrPowerTooHigh)
	}
	return nil
}

// Create stores v (unbonded, without tokens), tells the hooks, then
// self-bonds amount from its operator's balance (SDK CreateValidator).
func (k *Keeper) Create(st module.State, v *Validator, amount *big.Int) error {
	if err := CheckCreate(st, v.Operator, v.ConsPubKey, amount, v.Commission.Rate); err != nil {
		return err
	}
	add(st, v)
	if err := k.hooks().AfterValidatorCreated(st, v.Operator); err != nil {
		return err
	}
	_, err := k.delegate(st, v.Operator, v, amount, Unbonded, true)
	return err
}

func (k *Keeper) msgEditValidator() *module.MsgHandler {
	return &module.MsgHandler{
		TypeURL: TypeMsgEditValidator, Module: Name, Gas: GasMsgEdit,
		New:    func() proto.Message { return new(stakingv1beta1.MsgEditValidator) },
		Decode: decodeEditValidator,
		Check: func(st module.Reader, m *module.Msg) error {
			_, err := edited(st, m, time.Time{}, false)
			return err
		},
		Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
			v, err := edited(st, m, c.Env.Time, true)
			if err != nil {
				return err
			}
			setValidator(st, v)
			c.Events.Add("edit_validator", "commission_rate", v.Commission.Rate.String(), "min_self_delegation", v.MinSelfDelegation.String(), "msg_index", c.Index)
			return nil
		},
	}
}

func decodeEditValidator(p proto.Message, m *module.Msg, c module.Codec) error {
	msg := p.(*stakingv1beta1.MsgEditValidator)
	var err error
	if m.Signer, err = c.Operator(msg.ValidatorAddress); err != nil {
		return err
	}
	m.Validator = m.Signer
	if msg.Description == nil || description(msg.Description) == (Description{}) {
		return module.SDKError(module.CodeInvalidRequest, "empty description")
	}
	if msg.MinSelfDelegation != "" {
		if n, ok := new(big.Int).SetString(msg.MinSelfDelegation, 10); !ok || n.Sign() <= 0 || n.BitLen() > 256 {
			return module.SDKError(module.CodeInvalidRequest, "minimum self delegation must be a positive integer")
		}
	}
	if msg.CommissionRate != "" {
		if r, ok := parseDec(msg.CommissionRate); !ok || r.IsNegative() || r.GT(dec.One()) {
			return module.SDKError(module.CodeInvalidRequest, "commission rate must be between 0 and 1 (inclusive)")
		}
	}
	if mon := msg.Description.Moniker; mon != DoNotModify {
		m.Moniker = &mon
	}
	return nil
}

// edited is the validator a decoded MsgEditValidator makes, or why it
// cannot (SDK EditValidator). now is the block time; check skips the 24h
// rule when !exec (CheckTx does not know the block's time).
func edited(st module.Reader, m *module.Msg, now time.Time, exec bool) (*Validator, error) {
	msg := m.Proto.(*stakingv1beta1.MsgEditValidator)
	v, ok := Get(st, m.Validator)
	if !ok || !v.HasOperator {
		return nil, Err(CodeNoValidator)
	}
	d, nd := &v.Description, description(msg.Description)
	for _, f := range []struct {
		dst *string
		v   string
	}{{&d.Moniker, nd.Moniker}, {&d.Identity, nd.Identity}, {&d.Website, nd.Website},
		{&d.SecurityContact, nd.SecurityContact}, {&d.Details, nd.Details}} {
		if f.v != DoNotModify {
			*f.dst = f.v
		}
	}
	if err := d.ensureLength(); err != nil {
		return nil, err
	}
	if msg.CommissionRate != "" {
		rate, _ := parseDec(msg.CommissionRate)
		c := &v.Commission
		switch {
		case exec && now.Sub(c.UpdateTime) < commissionUpdateWait:
			return nil, Err(CodeCommissionUpdateTime)
		case rate.IsNegative():
			return nil, Err(CodeCommissionNegative)
		case rate.GT(c.MaxRate):
			return nil, Err(CodeCommissionGTMaxRate)
		case rate.Sub(c.Rate).GT(c.MaxChangeRate):
			return nil, Err(CodeCommissionGTMaxChange)
		}
		if min := GetParams(st).MinCommissionRate; rate.LT(min) {
			return nil, Err(CodeCommissionLTMinRate).WithDetail("cannot set validator commission to less than minimum rate of %s", min)
		}
		c.Rate, c.UpdateTime = rate, now
	}
	if msg.MinSelfDelegation != "" {
		n, _ := new(big.Int).SetString(msg.MinSelfDelegation, 10)
		if n.Cmp(v.MinSelfDelegation) <= 0 {
			return nil, Err(CodeMinSelfDelegationDecr)
		}
		if n.Cmp(v.Tokens) > 0 {
			return nil, Err(CodeSelfDelegationBelowMin)
		}
		v.MinSelfDelegation = n
	}
	return v, nil
}
