package native

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"strconv"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
)

// Gas of a native transaction: fixed per transaction, per byte and per
// message, so every node charges the same and a client can compute it.
const (
	GasTxBase  = 21_000 // like an EVM transfer: signature check, nonce, fee
	GasPerByte = 10     // Cosmos's tx_size_cost_per_byte
)

// GasUsed is the gas the tx is charged: GasTxBase + GasPerByte × size + the
// sum of its messages' gas.
func (tx *Tx) GasUsed() uint64 { return GasOf(len(tx.Raw), tx.Msgs) }

// GasOf is the gas of a tx of size bytes with msgs.
func GasOf(size int, msgs []*module.Msg) uint64 {
	gas := uint64(GasTxBase) + uint64(GasPerByte)*uint64(size)
	for _, m := range msgs {
		gas += m.Gas()
	}
	return gas
}

// Reader is the state a check reads; *state.StateDB satisfies it.

// Ante runs the checks of the Cosmos ante handler that do not depend on the
// sequence rule (CheckTx and execution apply their own): timeout height, gas
// limit, fee, account, public key and signature. It returns the signer's
// public key.
func Ante(st module.Reader, tx *Tx, env *module.Env) ([]byte, error) {
	if h := tx.Body.TimeoutHeight; h > 0 && env.Height > int64(h) {
		return nil, module.SDKError(module.CodeTxTimeoutHeight, "block height: %d, timeout height: %d", env.Height, h)
	}
	if tx.GasLimit == 0 || tx.GasLimit > env.GasLimit {
		return nil, module.SDKError(module.CodeInvalidGasLimit, "gas limit %d: want 1 to the block gas limit %d", tx.GasLimit, env.GasLimit)
	}
	if used := tx.GasUsed(); tx.GasLimit < used {
		return nil, module.SDKError(module.CodeOutOfGas, "out of gas in location: native tx; gasWanted: %d, gasUsed: %d", tx.GasLimit, used)
	}
	price := new(big.Int).Set(env.BaseFee)
	if env.MinGasPrice != nil && env.MinGasPrice.Cmp(price) > 0 {
		price.Set(env.MinGasPrice)
	}
	if required := new(big.Int).Mul(price, new(big.Int).SetUint64(tx.GasLimit)); tx.Fee.Cmp(required) < 0 {
		return nil, module.SDKError(module.CodeInsufficientFee, "insufficient fees; got: %s%s required: %s%s", tx.Fee, env.Denom, required, env.Denom)
	}
	acc, ok := accounts.ReadNative(st, tx.Signer)
	if !ok {
		return nil, module.SDKError(module.CodeUnknownAddress, "account %s does not exist", accounts.Bech32(env.Prefix, tx.Signer))
	}
	pub := tx.PubKey
	if pub == nil {
		if pub = acc.PubKey; pub == nil {
			return nil, module.SDKError(module.CodeInvalidPubKey, "pubkey on account is not set")
		}
	}
	num := acc.Number
	if env.Height == 0 {
		num = 0 // genesis transactions (gentxs) sign account number 0, as the SDK's genesis ante reads them
	}
	if !tx.Verify(pub, env.ChainID, num) {
		return nil, module.SDKError(module.CodeUnauthorized, "signature verification failed; please verify account number (%d), sequence (%d) and chain-id (%s)", num, tx.Sequence, env.ChainID)
	}
	return pub, nil
}

// SequenceError is the refusal of a sequence other than expected.
func SequenceError(expected, got uint64) error {
	return module.SDKError(module.CodeWrongSequence, "account sequence mismatch, expected %d, got %d", expected, got)
}

// FundsError is the refusal of a spend above the spendable balance.
func FundsError(balance, spend *big.Int, denom string) error {
	return module.FundsError(balance, spend, denom)
}

// CheckMsgs checks the messages against st without changing it, as far as
// they can be checked before execution (a message can still fail in its
// block when an earlier transaction changed what it relies on).
func CheckMsgs(st module.Reader, tx *Tx) error {
	for _, m := range tx.Msgs {
		if err := m.Check(st); err != nil {
			return err
		}
	}
	return nil
}

// Execute runs a tx in a block. A tx that fails the ante checks (including
// a sequence other than the signer's nonce or a fee it cannot pay) is
// rejected: nothing changes and the error is returned. Otherwise the fee is
// charged (base fee × gas used burnt, the rest to env.Coinbase), the nonce
// incremented and the public key recorded; then the messages run, and if
// one fails their changes are undone (fee and nonce stay, as in Cosmos) and
// the result carries its code.
func Execute(st module.State, tx *Tx, env *module.Env) (*abci.ExecTxResult, error) {
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

	ev := module.NewEvents(env.Prefix, env.Denom)
	signer := ev.Acc(tx.Signer)
	ev.Add("tx", "fee", ev.Coin(tx.Fee), "fee_payer", signer)
	ev.Add("tx", "acc_seq", fmt.Sprintf("%s/%d", signer, tx.Sequence))
	ev.Add("tx", "signature", base64.StdEncoding.EncodeToString(tx.Signature))
	res := &abci.ExecTxResult{GasWanted: int64(tx.GasLimit), GasUsed: int64(gasUsed)}

	snap := st.Snapshot()
	msgEvents := module.NewEvents(env.Prefix, env.Denom)
	for i, m := range tx.Msgs {
		if err := m.Exec(st, &module.MsgContext{Env: env, Events: msgEvents, Index: strconv.Itoa(i)}); err != nil {
			st.RevertToSnapshot(snap)
			e := module.AsError(err)
			res.Code, res.Codespace = e.Code, e.Codespace
			res.Log = fmt.Sprintf("failed to execute message; message index: %d: %s", i, e.Error())
			res.Events = ev.List()
			return res, nil
		}
	}
	res.Events = append(ev.List(), msgEvents.List()...)
	return res, nil
}
