package indexer

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/explorer"
)

// Convert turns a source block into the rows the store records. Balances
// of the touched addresses are left for the indexer to read.
func Convert(sb *explorer.SourceBlock) (*explorer.IndexedBlock, error) {
	b := sb.Block
	txs := b.Transactions()
	if len(sb.Receipts) != len(txs) || len(sb.Senders) != len(txs) {
		return nil, fmt.Errorf("block %d: %d txs, %d receipts, %d senders", b.NumberU64(), len(txs), len(sb.Receipts), len(sb.Senders))
	}
	h := b.Header()
	ib := &explorer.IndexedBlock{Block: explorer.Block{
		Number: b.NumberU64(), Hash: b.Hash(), ParentHash: h.ParentHash, Miner: h.Coinbase, Time: h.Time,
		GasUsed: h.GasUsed, GasLimit: h.GasLimit, BaseFee: copyBig(h.BaseFee), Size: b.Size(), TxCount: len(txs),
		StateRoot: h.Root, ExtraData: h.Extra, Nonce: h.Nonce.Uint64(), Difficulty: orZero(h.Difficulty),
		BurntFees: new(big.Int), PriorityFee: new(big.Int), TxFees: new(big.Int), CometHash: sb.CometHash,
	}}
	for i, tx := range txs {
		r := sb.Receipts[i]
		t := convertTx(&ib.Block, b.Hash(), i, tx, r, sb.Senders[i])
		ib.Txs = append(ib.Txs, t)
		ib.Block.TxFees.Add(ib.Block.TxFees, t.Fee)
		ib.Block.BurntFees.Add(ib.Block.BurntFees, t.BurntFee)
		ib.Block.PriorityFee.Add(ib.Block.PriorityFee, new(big.Int).Sub(t.Fee, t.BurntFee))
		if t.Created != nil {
			ib.Contract = append(ib.Contract, explorer.Creation{Address: *t.Created, Creator: t.From, TxHash: t.Hash})
		}
		for _, l := range r.Logs {
			ib.Logs = append(ib.Logs, explorer.Log{
				BlockNumber: b.NumberU64(), BlockHash: b.Hash(), Index: l.Index, TxHash: tx.Hash(), TxIndex: uint(i),
				Address: l.Address, Topics: l.Topics, Data: l.Data,
			})
		}
	}
	if err := convertInternal(sb, ib); err != nil {
		return nil, err
	}
	ib.Native = sb.Native
	ib.Touched = touched(ib)
	return ib, nil
}

func convertTx(blk *explorer.Block, blockHash common.Hash, i int, tx *types.Transaction, r *types.Receipt, from common.Address) explorer.Tx {
	price := orZero(r.EffectiveGasPrice)
	gasUsed := new(big.Int).SetUint64(r.GasUsed)
	t := explorer.Tx{
		Hash: tx.Hash(), BlockNumber: blk.Number, BlockHash: blockHash, Index: i, Time: blk.Time, From: from,
		To: tx.To(), Value: tx.Value(), Gas: tx.Gas(), GasUsed: r.GasUsed, GasPrice: price,
		BaseFee: copyBig(blk.BaseFee), Nonce: tx.Nonce(), Type: tx.Type(), Status: uint8(r.Status), Input: tx.Data(),
		Fee: new(big.Int).Mul(gasUsed, price), BurntFee: new(big.Int),
	}
	if blk.BaseFee != nil {
		t.BurntFee.Mul(gasUsed, blk.BaseFee)
	}
	switch tx.Type() {
	case types.LegacyTxType, types.AccessListTxType:
	default: // EIP-1559 fee fields
		t.MaxFee, t.MaxTip = tx.GasFeeCap(), tx.GasTipCap()
	}
	if tx.To() == nil && r.Status == types.ReceiptStatusSuccessful {
		c := r.ContractAddress
		t.Created = &c
	}
	return t
}

// touched lists each address the block touched once, in first-touch order:
// senders, recipients, created contracts, the accounts internal and native
// transactions reached, then the fee recipient. An address
// only one transaction touched (the fee recipient counts as touched by every
// transaction) gets that transaction's hash.
func touched(ib *explorer.IndexedBlock) []explorer.Touched {
	var order []common.Address
	by := map[common.Address][]common.Hash{}
	add := func(a common.Address, tx *common.Hash) {
		if _, ok := by[a]; !ok {
			order = append(order, a)
			by[a] = nil
		}
		if tx != nil && (len(by[a]) == 0 || by[a][len(by[a])-1] != *tx) {
			by[a] = append(by[a], *tx)
		}
	}
	for i := range ib.Txs {
		t := &ib.Txs[i]
		for _, a := range []*common.Address{&t.From, t.To, t.Created} {
			if a != nil {
				add(*a, &t.Hash)
			}
		}
	}
	internalTouched(ib, add)
	for i := range ib.Native {
		n := &ib.Native[i]
		for _, a := range n.Addresses() {
			add(a, &n.Hash)
		}
	}
	for i := range ib.Txs {
		add(ib.Block.Miner, &ib.Txs[i].Hash)
	}
	for i := range ib.Native { // native fees go to the fee recipient too
		add(ib.Block.Miner, &ib.Native[i].Hash)
	}
	add(ib.Block.Miner, nil)
	out := make([]explorer.Touched, len(order))
	for i, a := range order {
		out[i] = explorer.Touched{Address: a}
		if txs := by[a]; len(txs) == 1 {
			h := txs[0]
			out[i].TxHash = &h
		}
	}
	return out
}

func touchedAddresses(ib *explorer.IndexedBlock) []common.Address {
	out := make([]common.Address, len(ib.Touched))
	for i, t := range ib.Touched {
		out[i] = t.Address
	}
	return out
}

func zeros(n int) []*big.Int {
	out := make([]*big.Int, n)
	for i := range out {
		out[i] = new(big.Int)
	}
	return out
}

func copyBig(v *big.Int) *big.Int {
	if v == nil {
		return nil
	}
	return new(big.Int).Set(v)
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(v)
}
