package store

import (
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/emberchain/ember/callframe"
)

// internalCallsPrefix + number (uint64 BE) -> RLP of the block's frames, one
// list per transaction. Absent when no transaction of the block had a frame
// below depth 0, or when nothing captured them.
var internalCallsPrefix = []byte("ember-itx")

func internalCallsKey(number uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte{}, internalCallsPrefix...), number)
}

func writeInternalCalls(w ethdb.KeyValueWriter, number uint64, calls [][]callframe.Frame) error {
	found := false
	for _, c := range calls {
		if len(c) > 0 {
			found = true
			break
		}
	}
	if !found {
		return nil
	}
	enc, err := rlp.EncodeToBytes(calls)
	if err != nil {
		return err
	}
	return w.Put(internalCallsKey(number), enc)
}

// InternalCalls returns the internal call frames recorded with block
// number, one list per transaction; nil when there are none (no frame below
// depth 0, or the node did not capture them when the block executed).
func (s *Store) InternalCalls(number uint64) ([][]callframe.Frame, error) {
	ok, err := s.db.Has(internalCallsKey(number))
	if err != nil || !ok {
		return nil, err
	}
	enc, err := s.db.Get(internalCallsKey(number))
	if err != nil {
		return nil, err
	}
	var calls [][]callframe.Frame
	if err := rlp.DecodeBytes(enc, &calls); err != nil {
		return nil, fmt.Errorf("decode internal calls of block %d: %w", number, err)
	}
	return calls, nil
}
