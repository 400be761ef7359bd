package distribution

import (
	"math/big"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Message type URLs the module executes.
const (
	TypeMsgWithdrawDelegatorReward     = "/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward"
	TypeMsgWithdrawValidatorCommission = "/cosmos.distribution.v1beta1.MsgWithdrawValidatorCommission"
	TypeMsgSetWithdrawAddress          = "/cosmos.distribution.v1beta1.MsgSetWithdrawAddress"
	TypeMsgFundCommunityPool           = "/cosmos.distribution.v1beta1.MsgFundCommunityPool"
)

// Fixed gas of the messages.
const (
	GasMsgWithdraw           = 50_000 // rewards or commission: a period closes, a payment
	GasMsgSetWithdrawAddress = 20_000
	GasMsgFundCommunityPool  = 20_000
)

func (k *Keeper) msgs() []*module.MsgHandler {
	return []*module.MsgHandler{
		{
			TypeURL: TypeMsgWithdrawDelegatorReward, Module: Name, Gas: GasMsgWithdraw,
			New: func() proto.Message { return new(distrv1beta1.MsgWithdrawDelegatorReward) },
			Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
				msg := p.(*distrv1beta1.MsgWithdrawDelegatorReward)
				return decodePair(m, c, msg.DelegatorAddress, msg.ValidatorAddress)
			},
			Check: func(st module.Reader, m *module.Msg) error { return k.checkWithdrawRewards(st, m) },
			Exec:  k.execWithdrawRewards,
		},
		{
			TypeURL: TypeMsgWithdrawValidatorCommission, Module: Name, Gas: GasMsgWithdraw,
			New: func() proto.Message { return new(distrv1beta1.MsgWithdrawValidatorCommission) },
			Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
				op, err := c.Operator(p.(*distrv1beta1.MsgWithdrawValidatorCommission).ValidatorAddress)
				m.Signer, m.Validator = op, op
				return err
			},
			Check: checkCommission,
			Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
				if err := checkCommission(st, m); err != nil {
					return err
				}
				_, err := withdrawCommission(st, c.Events, m.Validator, c.Index)
				return err
			},
		},
		{
			TypeURL: TypeMsgSetWithdrawAddress, Module: Name, Gas: GasMsgSetWithdrawAddress,
			New: func() proto.Message { return new(distrv1beta1.MsgSetWithdrawAddress) },
			Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
				msg := p.(*distrv1beta1.MsgSetWithdrawAddress)
				var err error
				if m.Signer, err = c.Account("delegator_address", msg.DelegatorAddress); err != nil {
					return err
				}
				m.To, err = c.Account("withdraw_address", msg.WithdrawAddress)
				return err
			},
			Check: checkSetWithdraw,
			Exec: func(st module.State, m *module.Msg, c *module.MsgContext) error {
				if err := checkSetWithdraw(st, m); err != nil {
					return err
				}
				c.Events.Add("set_withdraw_address", "withdraw_address", c.Events.Acc(m.To), "msg_index", c.Index)
				setWithdrawAddress(st, m.Signer, m.To)
				return nil
			},
		},
		{
			TypeURL: TypeMsgFundCommunityPool, Module: Name, Gas: GasMsgFundCommunityPool,
			New: func() proto.Message { return new(distrv1beta1.MsgFundCommunityPool) },
			Decode: func(p proto.Message, m *module.Msg, c module.Codec) error {
				msg := p.(*distrv1beta1.MsgFundCommunityPool)
				return decodeFund(m, c, msg.Depositor, msg.Amount)
			},
			Spend: func(m *module.Msg) *big.Int { return m.Amount },
			Check: func(st module.Reader, _ *module.Msg) error { return checkEnabled(st) },
			Exec:  execFund,
		},
	}
}

func decodePair(m *module.Msg, c module.Codec, del, val string) error {
	var err error
	if m.Signer, err = c.Account("delegator_address", del); err != nil {
		return err
	}
	m.Validator, err = c.Operator(val)
	return err
}

func decodeFund(m *module.Msg, c module.Codec, depositor string, amount []*basev1beta1.Coin) error {
	var err error
	if m.Signer, err = c.Account("depositor", depositor); err != nil {
		return err
	}
	if m.Amount, err = module.CoinsAmount(amount, c.Denom); err != nil {
		return err
	}
	if m.Amount.Sign() == 0 {
		return module.SDKError(module.CodeInvalidCoins, "%s: amount must be positive", TypeMsgFundCommunityPool)
	}
	return nil
}

// checkEnabled refuses the module's messages on a chain without it.
func checkEnabled(st module.Reader) error {
	if !Enabled(st) {
		return module.SDKError(module.CodeUnknownRequest, "distribution is not enabled on this chain (no app_state.distribution at genesis)")
	}
	return nil
}

func (k *Keeper) checkWithdrawRewards(st module.Reader, m *module.Msg) error {
	if err := checkEnabled(st); err != nil {
		return err
	}
	if _, _, ok := k.Staking.ValidatorTokens(st, m.Validator); !ok {
		return errNoValidatorDistInfo
	}
	if _, ok := k.Staking.DelegationShares(st, m.Signer, m.Validator); !ok {
		return errNoDelegationDistInfo
	}
	if _, ok := Starting(st, m.Signer, m.Validator); !ok {
		return errNoDelegationDistInfo
	}
	return nil
}

// execWithdrawRewards pays the delegation's rewards and starts counting
// again from now.
func (k *Keeper) execWithdrawRewards(st module.State, m *module.Msg, c *module.MsgContext) error {
	if err := k.checkWithdrawRewards(st, m); err != nil {
		return err
	}
	if _, err := k.withdrawDelegation(st, c.Events, m.Signer, m.Validator, c.Index); err != nil {
		return err
	}
	k.initializeDelegation(st, m.Signer, m.Validator)
	return nil
}

func checkCommission(st module.Reader, m *module.Msg) error {
	if err := checkEnabled(st); err != nil {
		return err
	}
	if Commission(st, m.Validator).IsZero() {
		return errNoValidatorCommission
	}
	return nil
}

func checkSetWithdraw(st module.Reader, m *module.Msg) error {
	if err := checkEnabled(st); err != nil {
		return err
	}
	if blocked(m.To) {
		return module.SDKError(module.CodeUnauthorized, "%s is not allowed to receive external funds", m.To.Hex())
	}
	if !GetParams(st).WithdrawAddrEnabled {
		return errSetWithdrawAddrDisabled
	}
	return nil
}

// execFund moves the depositor's coins into the community pool.
func execFund(st module.State, m *module.Msg, c *module.MsgContext) error {
	if err := checkEnabled(st); err != nil {
		return err
	}
	if bal := st.GetBalance(m.Signer).ToBig(); bal.Cmp(m.Amount) < 0 {
		return module.FundsError(bal, m.Amount, c.Env.Denom)
	}
	if err := move(st, c.Events, m.Signer, Pool, m.Amount, c.Index); err != nil {
		return err
	}
	addCommunityPool(st, dec.FromInt(m.Amount))
	return nil
}
