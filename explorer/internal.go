package explorer

import (
	"context"
	"fmt"
	"math/big"
	"strings"

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

// convertInternal turns a block's source frames into rows, and records the
// contracts internal creates made.
func convertInternal(sb *SourceBlock, ib *IndexedBlock) error {
	if len(sb.Internal) == 0 {
		return nil
	}
	if len(sb.Internal) != len(ib.Txs) {
		return fmt.Errorf("block %d: internal calls of %d transactions, %d in the block", ib.Block.Number, len(sb.Internal), len(ib.Txs))
	}
	bi := 0
	for i, calls := range sb.Internal {
		t := &ib.Txs[i]
		for j, c := range calls {
			it := InternalTx{
				BlockNumber: ib.Block.Number, TxIndex: i, Index: j + 1, BlockIndex: bi, TxHash: t.Hash, Time: ib.Block.Time,
				Type: strings.ToLower(c.Type), From: c.From, Value: orZero(c.Value), Gas: c.Gas, GasUsed: c.GasUsed,
				Input: c.Input, Output: c.Output, Error: c.Error, TraceAddress: c.TraceAddress,
			}
			to := c.To
			if it.Type == "create" || it.Type == "create2" {
				if c.Error == "" && t.Status == 1 {
					it.Created = &to
					ib.Contract = append(ib.Contract, Creation{Address: to, Creator: c.From, TxHash: t.Hash})
				}
			} else {
				it.To = &to
			}
			ib.InternalTxs = append(ib.InternalTxs, it)
			bi++
		}
	}
	return nil
}

// internalTouched lists the addresses internal transactions moved value
// between or created, per transaction hash, so the block's balance reads
// and balance history cover them. Frames of a failed transaction, or that
// failed themselves, moved nothing.
func internalTouched(ib *IndexedBlock, add func(common.Address, *common.Hash)) {
	failed := map[common.Hash]bool{}
	for i := range ib.Txs {
		if ib.Txs[i].Status != 1 {
			failed[ib.Txs[i].Hash] = true
		}
	}
	for i := range ib.InternalTxs {
		it := &ib.InternalTxs[i]
		if failed[it.TxHash] || it.Error != "" {
			continue
		}
		h := it.TxHash
		if it.Created != nil {
			add(*it.Created, &h)
		}
		if it.Value.Sign() > 0 && it.Type != "delegatecall" && it.Type != "callcode" {
			add(it.From, &h)
			if it.To != nil {
				add(*it.To, &h)
			}
			if it.Created != nil {
				add(*it.Created, &h)
			}
		}
	}
}
