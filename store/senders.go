package store

import (
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"

	"github.com/emberchain/ember/txsender"
)

// A transaction whose sender was set rather than signed (txsender: a dev
// chain's impersonated transactions) carries a fake signature: its sender is
// not in its bytes. The store keeps it beside the block and sets it again on
// the transactions it decodes, so that every reader (receipts, JSON-RPC, the
// explorer) sees the sender execution used.

// sendersPrefix + number (uint64 BE) -> entries of tx index (uint32 BE) and
// sender (20 bytes), for the blocks holding transactions with a set sender.
var sendersPrefix = []byte("ember-snd")

const senderEntry = 4 + common.AddressLength

func sendersKey(number uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte{}, sendersPrefix...), number)
}

// writeSenders records the senders set on block's transactions.
func writeSenders(w ethdb.KeyValueWriter, block *types.Block) error {
	var v []byte
	for i, tx := range block.Transactions() {
		if from, ok := txsender.Get(tx); ok {
			v = binary.BigEndian.AppendUint32(v, uint32(i))
			v = append(v, from[:]...)
		}
	}
	if v == nil {
		return nil
	}
	return w.Put(sendersKey(block.NumberU64()), v)
}

// setSenders sets the recorded senders on a block just decoded.
func (s *Store) setSenders(b *types.Block) error {
	v, err := s.db.Get(sendersKey(b.NumberU64()))
	if err != nil || len(v) == 0 { // none recorded: the usual case
		return nil
	}
	txs := b.Transactions()
	if len(v)%senderEntry != 0 {
		return fmt.Errorf("corrupt senders of block %d", b.NumberU64())
	}
	for ; len(v) > 0; v = v[senderEntry:] {
		i := binary.BigEndian.Uint32(v)
		if int(i) >= len(txs) {
			return fmt.Errorf("corrupt senders of block %d: index %d of %d", b.NumberU64(), i, len(txs))
		}
		txsender.Set(txs[i], common.BytesToAddress(v[4:senderEntry]))
	}
	return nil
}
