package store

import (
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
)

// NativeTx is a native (Cosmos-format) transaction of a CometBFT block and
// the result FinalizeBlock gave it. Native transactions have no receipt
// and are not in the EVM block, so without this record their outcome
// would only live in CometBFT's ABCI responses, which a node may discard.
type NativeTx struct {
	Position  uint32 // index among the CometBFT block's transactions
	Raw       []byte // the TxRaw bytes; sha256 of them is the CometBFT tx hash
	Code      uint32 // ABCI result code: 0 ok
	Codespace string
	Log       string
	GasWanted uint64
	GasUsed   uint64
}

// nativeTxsPrefix + number (uint64 BE) -> RLP of the block's native
// transactions. Absent when the block held none (or was committed by a
// version that did not record them).
var nativeTxsPrefix = []byte("ember-ntx")

func nativeTxsKey(number uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte{}, nativeTxsPrefix...), number)
}

func writeNativeTxs(w ethdb.KeyValueWriter, number uint64, txs []NativeTx) error {
	if len(txs) == 0 {
		return nil
	}
	enc, err := rlp.EncodeToBytes(txs)
	if err != nil {
		return err
	}
	return w.Put(nativeTxsKey(number), enc)
}

// NativeTxs returns the native transactions recorded with block number, in
// block order; nil when it held none.
func (s *Store) NativeTxs(number uint64) ([]NativeTx, error) {
	ok, err := s.db.Has(nativeTxsKey(number))
	if err != nil || !ok {
		return nil, err
	}
	enc, err := s.db.Get(nativeTxsKey(number))
	if err != nil {
		return nil, err
	}
	var txs []NativeTx
	if err := rlp.DecodeBytes(enc, &txs); err != nil {
		return nil, fmt.Errorf("decode native transactions of block %d: %w", number, err)
	}
	return txs, nil
}
