package store

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/emberchain/ember/txsender"
)

// A transaction whose sender was set (not signed) gets it back when its
// block is decoded again; the block's other transactions do not get one,
// and a block without such transactions writes no senders key.
func TestSetSendersStored(t *testing.T) {
	s := openTestStore(t)
	from := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	commit := func(txs ...*types.Transaction) *types.Block {
		parent := s.Head()
		header := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).Add(parent.Number, common.Big1), Root: parent.Root,
			Difficulty: new(big.Int), GasLimit: parent.GasLimit, Time: parent.Time + 1, BaseFee: big.NewInt(1)}
		block := types.NewBlock(header, &types.Body{Transactions: txs}, nil, trie.NewStackTrie(nil))
		if err := s.CommitBlock(block, nil, nil); err != nil {
			t.Fatal(err)
		}
		return block
	}
	plain := func(nonce uint64) *types.Transaction {
		return types.NewTx(&types.LegacyTx{Nonce: nonce, Gas: 21000, GasPrice: big.NewInt(1), To: &from})
	}
	withSet := commit(plain(0), txsender.Set(plain(1), from))
	without := commit(plain(2))

	decoded := rawdb.ReadBlock(s.db, withSet.Hash(), withSet.NumberU64()) // fresh transactions, no cached sender
	if err := s.setSenders(decoded); err != nil {
		t.Fatal(err)
	}
	txs := decoded.Transactions()
	if _, ok := txsender.Get(txs[0]); ok {
		t.Error("tx 0 got a set sender")
	}
	if got, ok := txsender.Get(txs[1]); !ok || got != from {
		t.Errorf("tx 1: sender %s %v, want %s", got.Hex(), ok, from.Hex())
	}
	if ok, _ := s.db.Has(sendersKey(without.NumberU64())); ok {
		t.Error("a block without set senders wrote a senders key")
	}
}
