// Package callframe holds an internal transaction as the executor records
// it (evm.CallRecorder) and the store keeps it beside its block
// (store.InternalCalls): a leaf both import, so that the executor need not
// know the store nor the store the executor.
package callframe

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Frame is one internal transaction: a call frame below a transaction's
// top-level call (depth 0), recorded while the block executed. Frames of a
// transaction are kept in the order they were entered (depth-first).
//
// The store keeps frames RLP-encoded: the fields' order and types are the
// format of stored blocks.
type Frame struct {
	Type    byte // the opcode: CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2, SELFDESTRUCT
	From    common.Address
	To      common.Address // callee, created address, or selfdestruct beneficiary
	Value   *big.Int       // wei moved (a delegate call carries its caller's)
	Gas     uint64
	GasUsed uint64
	Input   []byte // at most MaxData bytes
	Output  []byte // at most MaxData bytes
	Error   string // "" when the frame succeeded
	// TraceAddress is the frame's path of child indexes from the top-level
	// call: [0] is its first sub-call, [0 1] the second sub-call of that.
	TraceAddress []uint64
}

// MaxData bounds the input and output a frame keeps: enough for a method
// selector and its usual arguments, small enough that a block of large
// calls does not balloon the database. The full data stays available
// through debug_traceTransaction.
const MaxData = 1024
