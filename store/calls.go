package store

import (
	"encoding/binary"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
)

// CallFrame is one internal transaction: a call frame below a transaction's
// top-level call (depth 0), recorded while the block executed (see
// evm.CallRecorder). Frames of a transaction are kept in the order they were
// entered (depth-first).
type CallFrame struct {
	Type    byte // the opcode: CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2, SELFDESTRUCT
	From    common.Address
	To      common.Address // callee, created address, or selfdestruct beneficiary
	Value   *big.Int       // wei moved (a delegate call carries its caller's)
	Gas     uint64
	GasUsed uint64
	Input   []byte // at most MaxCallData bytes
	Output  []byte // at most MaxCallData bytes
	Error   string // "" when the frame succeeded
	// TraceAddress is the frame's path of child indexes from the top-level
	// call: [0] is its first sub-call, [0 1] the second sub-call of that.
	TraceAddress []uint64
}

// MaxCallData bounds the input and output a frame keeps: enough for a
// method selector and its usual arguments, small enough that a block of
// large calls does not balloon the database. The full data stays available
// through debug_traceTransaction.
const MaxCallData = 1024

// internalCallsPrefix + number (uint64 BE) -> RLP of the block's frames, one
// list per transaction. Absent when no transaction of the block had a frame
// below depth 0, or when nothing captured them.
var internalCallsPrefix = []byte("ember-itx")

func internalCallsKey(number uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte{}, internalCallsPrefix...), number)
}

func writeInternalCalls(w ethdb.KeyValueWriter, number uint64, calls [][]CallFrame) error {
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
func (s *Store) InternalCalls(number uint64) ([][]CallFrame, error) {
	ok, err := s.db.Has(internalCallsKey(number))
	if err != nil || !ok {
		return nil, err
	}
	enc, err := s.db.Get(internalCallsKey(number))
	if err != nil {
		return nil, err
	}
	var calls [][]CallFrame
	if err := rlp.DecodeBytes(enc, &calls); err != nil {
		return nil, fmt.Errorf("decode internal calls of block %d: %w", number, err)
	}
	return calls, nil
}
