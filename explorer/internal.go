package explorer

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// InternalCall is one call frame below a transaction's top-level call as a
// Source delivers it (captured by the node while the block executed, or
// read from an endpoint's callTracer), in depth-first order.
type InternalCall struct {
	Type         string // call, delegatecall, staticcall, callcode, create, create2, selfdestruct
	From         common.Address
	To           common.Address // callee, created address, or selfdestruct beneficiary
	Value        *big.Int
	Gas          uint64
	GasUsed      uint64
	Input        []byte
	Output       []byte
	Error        string // "" when the frame succeeded
	TraceAddress []int
}

// InternalTx is one indexed internal transaction.
type InternalTx struct {
	BlockNumber  uint64
	TxIndex      int
	Index        int // 1-based position in its transaction's trace (0 is the top-level call)
	BlockIndex   int // 0-based position among the block's internal transactions
	TxHash       common.Hash
	Time         uint64
	Type         string
	From         common.Address
	To           *common.Address // nil for a creation
	Created      *common.Address // the contract a successful create made
	Value        *big.Int
	Gas          uint64
	GasUsed      uint64
	Input        []byte
	Output       []byte
	Error        string
	TraceAddress []int
}

// Success reports whether the frame itself succeeded.
func (t *InternalTx) Success() bool { return t.Error == "" }

// InternalCursor is a keyset position in a list of internal transactions
// ordered by (block, tx index, index) descending.
type InternalCursor struct {
	Set         bool
	BlockNumber uint64
	TxIndex     int
	Index       int
}

// InternalTxStore is the part of Store that holds internal transactions.
type InternalTxStore interface {
	// InternalTxs lists every internal transaction, newest first.
	InternalTxs(ctx context.Context, after InternalCursor, limit int) ([]InternalTx, error)
	// TxInternalTxs lists a transaction's internal transactions in trace
	// order from index from on.
	TxInternalTxs(ctx context.Context, hash common.Hash, from int, limit int) ([]InternalTx, error)
	// AddressInternalTxs lists the internal transactions an address sent
	// or received (or was created by), newest first.
	AddressInternalTxs(ctx context.Context, addr common.Address, side AddressFilter, after InternalCursor, limit int) ([]InternalTx, error)
	// BlockInternalTxs lists a block's internal transactions in (tx index,
	// index) order, strictly after after (the zero cursor starts at the
	// first).
	BlockInternalTxs(ctx context.Context, number uint64, after InternalCursor, limit int) ([]InternalTx, error)
	// BlockInternalCount counts them.
	BlockInternalCount(ctx context.Context, number uint64) (uint64, error)
	// AddressInternalCount counts an address's internal transactions.
	AddressInternalCount(ctx context.Context, addr common.Address) (uint64, error)
	// TxsWithInternalErrors reports which of hashes have a failed internal
	// transaction.
	TxsWithInternalErrors(ctx context.Context, hashes []common.Hash) (map[common.Hash]bool, error)
}
