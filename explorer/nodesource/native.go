package nodesource

import (
	"crypto/sha256"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/native"
)

// SetNative gives the source the chain's bech32 prefix and denomination,
// which decoding its native transactions needs. Without it, blocks are
// delivered without their native transactions.
func (s *NodeSource) SetNative(prefix, denom string) { s.prefix, s.denom = prefix, denom }

// nativeTxs are the native transactions the node recorded with block
// number (see store.NativeTx), decoded into the explorer's model.
func (s *NodeSource) nativeTxs(b *types.Block) ([]explorer.NativeTx, error) {
	number := b.NumberU64()
	if s.denom == "" {
		return nil, nil
	}
	recs, err := s.st.NativeTxs(number)
	if err != nil {
		return nil, err
	}
	out := make([]explorer.NativeTx, 0, len(recs))
	for _, r := range recs {
		tx, err := native.Decode(r.Raw, s.prefix, s.denom)
		if err != nil { // it decoded when the block ran: the store is damaged
			return nil, fmt.Errorf("block %d native tx at %d: %w", number, r.Position, err)
		}
		n := explorer.NativeTx{
			Hash: sha256.Sum256(r.Raw), BlockNumber: number, BlockHash: b.Hash(), Position: int(r.Position), Time: b.Time(),
			Sender: tx.Signer, Sequence: tx.Sequence, Fee: new(big.Int), BurntFee: new(big.Int), Value: new(big.Int),
			GasWanted: r.GasWanted, GasUsed: r.GasUsed, Code: r.Code, Codespace: r.Codespace, Log: r.Log,
			Memo: tx.Body.GetMemo(),
		}
		// native.Execute charges the whole fee, burning base fee × gas
		// used, unless it rejected the tx before running it (no gas used).
		if r.GasUsed > 0 {
			n.Fee.Set(tx.Fee)
			if bf := b.BaseFee(); bf != nil {
				n.BurntFee.Mul(bf, new(big.Int).SetUint64(r.GasUsed))
			}
		}
		for _, m := range tx.Msgs {
			n.Msgs = append(n.Msgs, nativeMsg(m))
			n.Value.Add(n.Value, m.Spend())
		}
		out = append(out, n)
	}
	return out, nil
}

func nativeMsg(m *native.Msg) explorer.NativeMsg {
	out := explorer.NativeMsg{Type: m.TypeURL, Amount: m.Amount}
	if m.To != (common.Address{}) {
		to := m.To
		out.To = &to
	}
	if m.Validator != (common.Address{}) && m.TypeURL != native.TypeMsgSetWithdrawAddress {
		v := m.Validator
		out.Validator = &v
	}
	if m.Moniker != nil {
		out.Moniker = *m.Moniker
	}
	return out
}
