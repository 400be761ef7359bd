package native

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"strconv"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/staking"
)

// Gas of a native transaction: fixed per transaction, per byte and per
// message, so every node charges the same and a client can compute it.
const (
	GasTxBase             = 21_000 // like an EVM transfer: signature check, nonce, fee
	GasPerByte            = 10     // Cosmos's tx_size_cost_per_byte
	GasMsgSend            = 10_000
	GasMsgCreateValidator = 100_000
	GasMsgDelegate        = 50_000 // MsgDelegate and MsgUndelegate
	GasMsgEdit            = 20_000 // MsgEditValidator and MsgSetWithdrawAddress
)

// GasUsed is the gas the tx is charged: GasTxBase + GasPerByte × size + the
// sum of its messages' gas.
func (tx *Tx) GasUsed() uint64 { return GasOf(len(tx.Raw), tx.Msgs) }

// GasOf is the gas of a tx of size bytes with msgs.
func GasOf(size int, msgs []*Msg) uint64 {
	gas := uint64(GasTxBase) + uint64(GasPerByte)*uint64(size)
	for _, m := range msgs {
		gas += m.Gas()
	}
	return gas
}

// Env is the chain context of a check or an execution.
type Env struct {
	ChainID string
	Prefix  string
	Denom   string
	// BaseFee is the block's base fee (execution) or the next block's
	// (CheckTx); the fee must cover gas_limit × max(BaseFee, MinGasPrice).
	BaseFee     *big.Int
	MinGasPrice *big.Int // the node's minimum gas price; nil in execution
	GasLimit    uint64   // block gas limit
	Height      int64    // of the block the tx goes into
	Time        time.Time
	Coinbase    common.Address // receives the fee above the burnt base fee
}

// Reader is the state a check reads; *state.StateDB satisfies it.
type Reader interface {
	staking.Reader
	GetNonce(common.Address) uint64
	GetBalance(common.Address) *uint256.Int
}

// State is the state execution changes; the hooked state of a block's EVM
// satisfies it.
type State interface {
	staking.State
	Exist(common.Address) bool
	Snapshot() int
	RevertToSnapshot(int)
}

// Ante runs the checks of the Cosmos ante handler that do not depend on the
// sequence rule (CheckTx and execution apply their own): timeout height, gas
// limit, fee, account, public key and signature. It returns the signer's
// public key.
func Ante(st Reader, tx *Tx, env *Env) ([]byte, error) {
	if h := tx.Body.TimeoutHeight; h > 0 && env.Height > int64(h) {
		return nil, sdkErr(CodeTxTimeoutHeight, "block height: %d, timeout height: %d", env.Height, h)
	}
	if tx.GasLimit == 0 || tx.GasLimit > env.GasLimit {
		return nil, sdkErr(CodeInvalidGasLimit, "gas limit %d: want 1 to the block gas limit %d", tx.GasLimit, env.GasLimit)
	}
	if used := tx.GasUsed(); tx.GasLimit < used {
		return nil, sdkErr(CodeOutOfGas, "out of gas in location: native tx; gasWanted: %d, gasUsed: %d", tx.GasLimit, used)
	}
	price := new(big.Int).Set(env.BaseFee)
	if env.MinGasPrice != nil && env.MinGasPrice.Cmp(price) > 0 {
		price.Set(env.MinGasPrice)
	}
	if required := new(big.Int).Mul(price, new(big.Int).SetUint64(tx.GasLimit)); tx.Fee.Cmp(required) < 0 {
		return nil, sdkErr(CodeInsufficientFee, "insufficient fees; got: %s%s required: %s%s", tx.Fee, env.Denom, required, env.Denom)
	}
	acc, ok := accounts.ReadNative(st, tx.Signer)
	if !ok {
		return nil, sdkErr(CodeUnknownAddress, "account %s does not exist", accounts.Bech32(env.Prefix, tx.Signer))
	}
	pub := tx.PubKey
	if pub == nil {
		if pub = acc.PubKey; pub == nil {
			return nil, sdkErr(CodeInvalidPubKey, "pubkey on account is not set")
		}
	}
	if !tx.Verify(pub, env.ChainID, acc.Number) {
		return nil, sdkErr(CodeUnauthorized, "signature verification failed; please verify account number (%d), sequence (%d) and chain-id (%s)", acc.Number, tx.Sequence, env.ChainID)
	}
	return pub, nil
}

// SequenceError is the refusal of a sequence other than expected.
func SequenceError(expected, got uint64) error {
	return sdkErr(CodeWrongSequence, "account sequence mismatch, expected %d, got %d", expected, got)
}

// FundsError is the refusal of a spend above the spendable balance.
func FundsError(balance, spend *big.Int, denom string) error {
	return sdkErr(CodeInsufficientFunds, "spendable balance %s%s is smaller than %s%s", balance, denom, spend, denom)
}

// CheckMsgs checks the messages against st without changing it, as far as
// they can be checked before execution (a message can still fail in its
// block when an earlier transaction changed what it relies on).
func CheckMsgs(st Reader, tx *Tx) error {
	for _, m := range tx.Msgs {
		var err error
		switch m.TypeURL {
		case TypeMsgCreateValidator:
			err = staking.CheckCreate(st, m.Validator, m.ConsKey, m.Amount)
		case TypeMsgDelegate:
			err = staking.CheckDelegate(st, m.Validator, m.Amount)
		case TypeMsgUndelegate:
			err = staking.CheckUndelegate(st, m.Signer, m.Validator, m.Amount)
		case TypeMsgEditValidator, TypeMsgSetWithdrawAddress:
			if v, ok := staking.Get(st, m.Validator); !ok || !v.HasOperator {
				err = staking.ErrNoValidator
			}
		}
		if err != nil {
			return stakingError(err)
		}
	}
	return nil
}

// stakingError gives a staking error its Cosmos code.
func stakingError(err error) *Error {
	switch err {
	case staking.ErrNoValidator:
		return stakingErr(CodeStakingNoValidator, err.Error())
	case staking.ErrOperatorExists:
		return stakingErr(CodeStakingOperatorExists, err.Error())
	case staking.ErrPubKeyExists:
		return stakingErr(CodeStakingPubKeyExists, err.Error())
	case staking.ErrNoDelegation:
		return stakingErr(CodeStakingNoDelegation, err.Error())
	case staking.ErrNotEnoughShares:
		return stakingErr(CodeStakingNotEnoughShares, err.Error())
	case staking.ErrEmptySet, staking.ErrPowerTooHigh:
		return stakingErr(CodeStakingBadDelegation, "invalid delegation amount").wrap("%v", err)
	}
	if e, ok := err.(*Error); ok {
		return e
	}
	return sdkErr(CodeInsufficientFunds, "%v", trimSuffix(err.Error(), ": "+staking.ErrInsufficientFund.Error()))
}

func trimSuffix(s, suffix string) string {
	if len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)]
	}
	return s
}

// Execute runs a tx in a block. A tx that fails the ante checks (including
// a sequence other than the signer's nonce or a fee it cannot pay) is
// rejected: nothing changes and the error is returned. Otherwise the fee is
// charged (base fee × gas used burnt, the rest to env.Coinbase), the nonce
// incremented and the public key recorded; then the messages run, and if
// one fails their changes are undone (fee and nonce stay, as in Cosmos) and
// the result carries its code.
func Execute(st State, tx *Tx, env *Env) (*abci.ExecTxResult, error) {
	pub, err := Ante(st, tx, env)
	if err != nil {
		return nil, err
	}
	if nonce := st.GetNonce(tx.Signer); tx.Sequence != nonce {
		return nil, SequenceError(nonce, tx.Sequence)
	}
	bal := st.GetBalance(tx.Signer).ToBig()
	if bal.Cmp(tx.Fee) < 0 {
		return nil, FundsError(bal, tx.Fee, env.Denom)
	}
	gasUsed := tx.GasUsed()
	fee, _ := uint256.FromBig(tx.Fee)
	burnt := new(big.Int).Mul(env.BaseFee, new(big.Int).SetUint64(gasUsed))
	tip, _ := uint256.FromBig(new(big.Int).Sub(tx.Fee, burnt))
	st.SubBalance(tx.Signer, fee, tracing.BalanceDecreaseGasBuy)
	if !tip.IsZero() {
		st.AddBalance(env.Coinbase, tip, tracing.BalanceIncreaseRewardTransactionFee)
	}
	st.SetNonce(tx.Signer, tx.Sequence+1, tracing.NonceChangeUnspecified)
	if w, ok := st.(accounts.StateWriter); ok {
		accounts.SetPubKey(w, tx.Signer, pub)
	}

	ev := &events{prefix: env.Prefix, denom: env.Denom}
	signer := ev.acc(tx.Signer)
	ev.add("tx", "fee", ev.coin(tx.Fee), "fee_payer", signer)
	ev.add("tx", "acc_seq", fmt.Sprintf("%s/%d", signer, tx.Sequence))
	ev.add("tx", "signature", base64.StdEncoding.EncodeToString(tx.Signature))
	res := &abci.ExecTxResult{GasWanted: int64(tx.GasLimit), GasUsed: int64(gasUsed)}

	snap := st.Snapshot()
	msgEvents := &events{prefix: env.Prefix, denom: env.Denom}
	for i, m := range tx.Msgs {
		if err := runMsg(st, m, i, env, msgEvents); err != nil {
			st.RevertToSnapshot(snap)
			e := AsError(err)
			if _, ok := err.(*Error); !ok {
				e = stakingError(err)
			}
			res.Code, res.Codespace = e.Code, e.Codespace
			res.Log = fmt.Sprintf("failed to execute message; message index: %d: %s", i, e.Error())
			res.Events = ev.list
			return res, nil
		}
	}
	res.Events = append(ev.list, msgEvents.list...)
	return res, nil
}

// runMsg executes message i.
func runMsg(st State, m *Msg, i int, env *Env, ev *events) error {
	idx := strconv.Itoa(i)
	sender := ev.acc(m.Signer)
	ev.add("message", "action", m.Action(), "sender", sender, "module", m.Module(), "msg_index", idx)
	switch m.TypeURL {
	case TypeMsgSend:
		bal := st.GetBalance(m.Signer).ToBig()
		if bal.Cmp(m.Amount) < 0 {
			return FundsError(bal, m.Amount, env.Denom)
		}
		amt, _ := uint256.FromBig(m.Amount)
		st.SubBalance(m.Signer, amt, tracing.BalanceChangeTransfer)
		st.AddBalance(m.To, amt, tracing.BalanceChangeTransfer)
		ev.transfer(m.Signer, m.To, m.Amount, idx)
	case TypeMsgCreateValidator:
		if err := fundsFor(st, m.Signer, m.Amount, env.Denom); err != nil {
			return err
		}
		if err := staking.Create(st, m.Validator, m.ConsKey, *m.Moniker, m.Amount); err != nil {
			return err
		}
		ev.coins(m.Signer, staking.BondedPool, m.Amount, idx)
		ev.add("create_validator", "validator", ev.valoper(m.Validator), "amount", ev.coin(m.Amount), "msg_index", idx)
	case TypeMsgEditValidator:
		if err := staking.Edit(st, m.Validator, m.Moniker, nil); err != nil {
			return err
		}
		v, _ := staking.Get(st, m.Validator)
		ev.add("edit_validator", "validator", ev.valoper(m.Validator), "moniker", v.Moniker, "msg_index", idx)
	case TypeMsgSetWithdrawAddress:
		if err := staking.Edit(st, m.Validator, nil, &m.To); err != nil {
			return err
		}
		ev.add("set_withdraw_address", "withdraw_address", ev.acc(m.To), "msg_index", idx)
	case TypeMsgDelegate:
		if err := fundsFor(st, m.Signer, m.Amount, env.Denom); err != nil {
			return err
		}
		if err := staking.Delegate(st, m.Signer, m.Validator, m.Amount); err != nil {
			return err
		}
		ev.coins(m.Signer, staking.BondedPool, m.Amount, idx)
		ev.add("delegate", "validator", ev.valoper(m.Validator), "delegator", sender, "amount", ev.coin(m.Amount), "new_shares", m.Amount.String(), "msg_index", idx)
	case TypeMsgUndelegate:
		done, err := staking.Undelegate(st, m.Signer, m.Validator, m.Amount, env.Time)
		if err != nil {
			return err
		}
		ev.coins(staking.BondedPool, staking.UnbondingPool, m.Amount, idx)
		ev.add("unbond", "validator", ev.valoper(m.Validator), "delegator", sender, "amount", ev.coin(m.Amount), "completion_time", done.UTC().Format(time.RFC3339), "msg_index", idx)
	}
	return nil
}

func fundsFor(st State, from common.Address, amount *big.Int, denom string) error {
	if bal := st.GetBalance(from).ToBig(); bal.Cmp(amount) < 0 {
		return FundsError(bal, amount, denom)
	}
	return nil
}

// MatureEvents are the block events of unbonding entries paid back.
func MatureEvents(done []staking.Unbonding, prefix, denom string) []abci.Event {
	ev := &events{prefix: prefix, denom: denom}
	for _, e := range done {
		ev.coins(staking.UnbondingPool, e.Delegator, e.Amount, "")
		ev.add("complete_unbonding", "amount", ev.coin(e.Amount), "validator", ev.valoper(e.Operator), "delegator", ev.acc(e.Delegator))
	}
	return ev.list
}

// events collects Cosmos events; addresses are bech32, amounts "<n><denom>".
type events struct {
	prefix, denom string
	list          []abci.Event
}

func (e *events) add(typ string, kv ...string) {
	ev := abci.Event{Type: typ}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "msg_index" && kv[i+1] == "" {
			continue
		}
		ev.Attributes = append(ev.Attributes, abci.EventAttribute{Key: kv[i], Value: kv[i+1], Index: true})
	}
	e.list = append(e.list, ev)
}

func (e *events) acc(a common.Address) string { return accounts.Bech32(e.prefix, a) }

func (e *events) valoper(a common.Address) string {
	s, _ := accounts.NewPrefixes(e.prefix).Encode(accounts.KindValidator, a[:])
	return s
}

func (e *events) coin(a *big.Int) string { return a.String() + e.denom }

// coins are the bank events of moving amount from one account to another.
func (e *events) coins(from, to common.Address, amount *big.Int, idx string) {
	e.add("coin_spent", "spender", e.acc(from), "amount", e.coin(amount), "msg_index", idx)
	e.add("coin_received", "receiver", e.acc(to), "amount", e.coin(amount), "msg_index", idx)
}

// transfer are the events of MsgSend.
func (e *events) transfer(from, to common.Address, amount *big.Int, idx string) {
	e.coins(from, to, amount, idx)
	e.add("transfer", "recipient", e.acc(to), "sender", e.acc(from), "amount", e.coin(amount), "msg_index", idx)
	e.add("message", "sender", e.acc(from), "msg_index", idx)
}
