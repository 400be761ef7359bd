package indexer

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// convertInternal turns a block's source frames into rows, and records the
// contracts internal creates made.
func convertInternal(sb *explorer.SourceBlock, ib *explorer.IndexedBlock) error {
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
			it := explorer.InternalTx{
				BlockNumber: ib.Block.Number, TxIndex: i, Index: j + 1, BlockIndex: bi, TxHash: t.Hash, Time: ib.Block.Time,
				Type: strings.ToLower(c.Type), From: c.From, Value: orZero(c.Value), Gas: c.Gas, GasUsed: c.GasUsed,
				Input: c.Input, Output: c.Output, Error: c.Error, TraceAddress: c.TraceAddress,
			}
			to := c.To
			if it.Type == "create" || it.Type == "create2" {
				if c.Error == "" && t.Status == 1 {
					it.Created = &to
					ib.Contract = append(ib.Contract, explorer.Creation{Address: to, Creator: c.From, TxHash: t.Hash})
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
func internalTouched(ib *explorer.IndexedBlock, add func(common.Address, *common.Hash)) {
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
