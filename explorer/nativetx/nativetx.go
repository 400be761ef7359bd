// Package nativetx turns a native (Cosmos) transaction as a block holds it
// (its bytes, its position in the CometBFT block and its ABCI result) into
// the explorer's model. Both sources go through it: the in-process one with
// what the node recorded at commit, the JSON-RPC one with CometBFT's block
// and block_results, so the two index the same rows.
package nativetx

import (
	"crypto/sha256"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/store"
)

// Decode decodes r, a native transaction of EVM block b with its result (as
// the node records it), for the chain whose addresses take prefix and whose
// coin is denom.
func Decode(r store.NativeTx, b *types.Block, prefix, denom string) (explorer.NativeTx, error) {
	tx, err := native.Decode(r.Raw, prefix, denom)
	if err != nil {
		return explorer.NativeTx{}, fmt.Errorf("block %d native tx at %d: %w", b.NumberU64(), r.Position, err)
	}
	n := explorer.NativeTx{
		Hash: sha256.Sum256(r.Raw), BlockNumber: b.NumberU64(), BlockHash: b.Hash(), Position: int(r.Position), Time: b.Time(),
		Sender: tx.Signer, Sequence: tx.Sequence, Fee: new(big.Int), BurntFee: new(big.Int), Value: new(big.Int),
		GasWanted: r.GasWanted, GasUsed: r.GasUsed, Code: r.Code, Codespace: r.Codespace, Log: r.Log,
		Memo: tx.Body.GetMemo(),
	}
	// native.Execute charges the whole fee, burning base fee × gas used,
	// unless it rejected the tx before running it (no gas used).
	if r.GasUsed > 0 {
		n.Fee.Set(tx.Fee)
		if bf := b.BaseFee(); bf != nil {
			n.BurntFee.Mul(bf, new(big.Int).SetUint64(r.GasUsed))
		}
	}
	for _, m := range tx.Msgs {
		n.Msgs = append(n.Msgs, message(m))
		n.Value.Add(n.Value, m.Spend())
	}
	return n, nil
}

// typeMsgSetWithdrawAddress names no validator: its Validator field is
// the delegator.
const typeMsgSetWithdrawAddress = "/cosmos.distribution.v1beta1.MsgSetWithdrawAddress"

func message(m *module.Msg) explorer.NativeMsg {
	out := explorer.NativeMsg{Type: m.TypeURL, Amount: m.Amount}
	if m.To != (common.Address{}) {
		to := m.To
		out.To = &to
	}
	if m.Validator != (common.Address{}) && m.TypeURL != typeMsgSetWithdrawAddress {
		v := m.Validator
		out.Validator = &v
	}
	if m.Moniker != nil {
		out.Moniker = *m.Moniker
	}
	return out
}
