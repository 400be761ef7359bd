// Package bank is the bank module: MsgSend moves the chain's coin, which is
// the EVM balance, from the signer to another account.
package bank

import (
	"math/big"

	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/module"
)

// Name is the module's name and its `message.module` event value.
const Name = "bank"

// TypeMsgSend is the type URL of MsgSend.
const TypeMsgSend = "/cosmos.bank.v1beta1.MsgSend"

// GasMsgSend is the fixed gas of a MsgSend.
const GasMsgSend = 10_000

// Module is the bank module. It has no state of its own (balances are the
// EVM's) and no block or genesis work.
type Module struct{}

// Name implements module.Module.
func (Module) Name() string { return Name }

// Msgs implements module.Module.
func (Module) Msgs() []*module.MsgHandler { return []*module.MsgHandler{msgSend} }

var msgSend = &module.MsgHandler{
	TypeURL: TypeMsgSend,
	Module:  Name,
	Gas:     GasMsgSend,
	New:     func() proto.Message { return new(bankv1beta1.MsgSend) },
	Decode:  decodeSend,
	Spend:   func(m *module.Msg) *big.Int { return m.Amount },
	Exec:    execSend,
}

func decodeSend(p proto.Message, m *module.Msg, c module.Codec) error {
	msg := p.(*bankv1beta1.MsgSend)
	var err error
	if m.Signer, err = c.Account("from_address", msg.FromAddress); err != nil {
		return err
	}
	if m.To, err = c.Account("to_address", msg.ToAddress); err != nil {
		return err
	}
	if m.Amount, err = module.CoinsAmount(msg.Amount, c.Denom); err != nil {
		return err
	}
	if len(msg.Amount) == 0 || m.Amount.Sign() == 0 {
		return module.SDKError(module.CodeInvalidCoins, "%s: amount must be positive", m.TypeURL)
	}
	return nil
}

func execSend(st module.State, m *module.Msg, c *module.MsgContext) error {
	bal := st.GetBalance(m.Signer).ToBig()
	if bal.Cmp(m.Amount) < 0 {
		return module.FundsError(bal, m.Amount, c.Env.Denom)
	}
	amt, _ := uint256.FromBig(m.Amount)
	st.SubBalance(m.Signer, amt, tracing.BalanceChangeTransfer)
	st.AddBalance(m.To, amt, tracing.BalanceChangeTransfer)
	ev := c.Events
	ev.Coins(m.Signer, m.To, m.Amount, c.Index)
	ev.Add("transfer", "recipient", ev.Acc(m.To), "sender", ev.Acc(m.Signer), "amount", ev.Coin(m.Amount), "msg_index", c.Index)
	ev.Add("message", "sender", ev.Acc(m.Signer), "msg_index", c.Index)
	return nil
}
