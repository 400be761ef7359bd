package api

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// internalTxJSON is Blockscout's InternalTransaction.
func internalTxJSON(t *explorer.InternalTx, c contracts) *internalTxItem {
	var errText *string
	if t.Error != "" {
		errText = &t.Error
	}
	return &internalTxItem{
		BlockNumber:     t.BlockNumber,
		BlockIndex:      t.BlockIndex,
		TxIndex:         t.TxIndex,
		Index:           t.Index,
		TxHash:          t.TxHash.Hex(),
		Timestamp:       isoTime(t.Time),
		Type:            t.Type,
		From:            c.param(t.From),
		To:              c.optParam(t.To),
		CreatedContract: c.optParam(t.Created),
		Value:           t.Value.String(),
		GasLimit:        u64(t.Gas),
		Success:         t.Success(),
		Error:           errText,
	}
}

// internalPage renders a keyset page of internal transactions.
func (h *handlers) internalPage(ctx context.Context, rows []explorer.InternalTx, itemsCount uint64) (*page[*internalTxItem], error) {
	return keysetPage(rows, itemsCount, func(rows []explorer.InternalTx) ([]*internalTxItem, error) {
		var addrs []common.Address
		for i := range rows {
			addrs = append(addrs, rows[i].From)
			for _, a := range []*common.Address{rows[i].To, rows[i].Created} {
				if a != nil {
					addrs = append(addrs, *a)
				}
			}
		}
		c, err := h.contractsOf(ctx, addrs)
		if err != nil {
			return nil, err
		}
		// Verified contracts carry their names, as the tx page's To does.
		_, names, err := h.abisOf(ctx, addrs)
		if err != nil {
			return nil, err
		}
		items := make([]*internalTxItem, len(rows))
		for i := range rows {
			items[i] = internalTxJSON(&rows[i], c)
			markVerified(items[i].From, names)
			markVerified(items[i].To, names)
			markVerified(items[i].CreatedContract, names)
		}
		return items, nil
	}, func(last *explorer.InternalTx, n uint64) any {
		return internalPosition{BlockNumber: last.BlockNumber, Index: last.Index, ItemsCount: n, TxHash: last.TxHash.Hex(),
			TxIndex: last.TxIndex}
	})
}

// internalCursor reads the (block_number, transaction_index, index) keyset
// position of a list of internal transactions. A block number alone starts
// after the whole block.
func (r *request) internalCursor() (explorer.InternalCursor, error) {
	block, err := r.queryUint("block_number")
	if err != nil {
		return explorer.InternalCursor{}, err
	}
	txIndex, err := r.queryUint("transaction_index")
	if err != nil {
		return explorer.InternalCursor{}, err
	}
	index, err := r.queryUint("index")
	if err != nil {
		return explorer.InternalCursor{}, err
	}
	if block == nil {
		if txIndex != nil || index != nil {
			return explorer.InternalCursor{}, invalid("transaction_index and index need block_number")
		}
		return explorer.InternalCursor{}, nil
	}
	cur := explorer.InternalCursor{Set: true, BlockNumber: *block, TxIndex: 1 << 31, Index: 1 << 31}
	if txIndex != nil {
		if *txIndex > 1<<31 {
			return explorer.InternalCursor{}, invalid("Invalid transaction_index")
		}
		cur.TxIndex = int(*txIndex)
		if index != nil {
			if *index > 1<<31 {
				return explorer.InternalCursor{}, invalid("Invalid index")
			}
			cur.Index = int(*index)
		}
	} else if index != nil {
		return explorer.InternalCursor{}, invalid("index needs transaction_index")
	}
	return cur, nil
}

// internalTxs is /api/v2/internal-transactions: every internal transaction,
// newest first.
func (h *handlers) internalTxs(r *request) (any, error) {
	after, err := r.internalCursor()
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	rows, err := h.b.Store.InternalTxs(r.Context(), after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.internalPage(r.Context(), rows, count)
}

// txInternalTxs lists a transaction's internal transactions in trace
// order; the cursor is the last index given.
func (h *handlers) txInternalTxs(r *request) (any, error) {
	hash, err := r.hashParam()
	if err != nil {
		return nil, err
	}
	if _, err := h.b.Store.Tx(r.Context(), hash); err != nil {
		return nil, err
	}
	last, err := r.queryUint("index")
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	from := 1
	if last != nil {
		if *last > 1<<31 {
			return nil, invalid("Invalid index")
		}
		from = int(*last) + 1
	}
	rows, err := h.b.Store.TxInternalTxs(r.Context(), hash, from, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.internalPage(r.Context(), rows, count)
}

// addressInternalTxs lists the internal transactions an address sent,
// received or was created by, narrowed by filter=from|to.
func (h *handlers) addressInternalTxs(r *request) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	side, err := r.sideFilter()
	if err != nil {
		return nil, err
	}
	after, err := r.internalCursor()
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	rows, err := h.b.Store.AddressInternalTxs(r.Context(), addr, side, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 && !after.Set {
		// An address never seen is Blockscout's 404; one only ever called
		// without value (not in the address table) still lists its calls.
		if _, err := h.b.Store.Address(r.Context(), addr); err != nil {
			return nil, err
		}
	}
	return h.internalPage(r.Context(), rows, count)
}

// addressTabsCounters is /api/v2/addresses/{hash}/tabs-counters: how many
// items each tab of the address page lists (token balances up to the
// token-balances list's cap). Counts this explorer does not keep (logs) are
// null, as Blockscout answers for a tab it has no data for.
func (h *handlers) addressTabsCounters(r *request) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	a, err := h.b.Store.Address(r.Context(), addr)
	if err != nil {
		return nil, err
	}
	internal, err := h.b.Store.AddressInternalCount(r.Context(), addr)
	if err != nil {
		return nil, err
	}
	transfers, err := h.b.Store.CountTokenTransfers(r.Context(), explorer.TransferFilter{Address: &addr})
	if err != nil {
		return nil, err
	}
	balances, err := h.b.Store.AddressTokenBalances(r.Context(), addr, nil, explorer.HolderPosition{}, tokenBalanceLimit)
	if err != nil {
		return nil, err
	}
	return addressTabsCounters{
		InternalTxs:    internal,
		TokenBalances:  len(balances),
		TokenTransfers: transfers,
		Txs:            a.TxCount,
		Validations:    a.BlocksValidated,
	}, nil
}

// hasInternalErrors fills has_error_in_internal_transactions of rendered
// transactions.
func (h *handlers) hasInternalErrors(ctx context.Context, items []*txItem, hashes []common.Hash) error {
	errs, err := h.b.Store.TxsWithInternalErrors(ctx, hashes)
	if err != nil {
		return err
	}
	for i := range items {
		items[i].HasInternalErrors = ptr(errs[hashes[i]])
	}
	return nil
}

// blockInternalTxs lists a block's internal transactions in (transaction
// index, index) order.
func (h *handlers) blockInternalTxs(r *request) (any, error) {
	b, err := h.findBlock(r)
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	after := explorer.InternalCursor{}
	txIndex, err := r.queryUint("transaction_index")
	if err != nil {
		return nil, err
	}
	index, err := r.queryUint("index")
	if err != nil {
		return nil, err
	}
	if (txIndex == nil) != (index == nil) {
		return nil, invalid("transaction_index and index go together")
	}
	if txIndex != nil {
		if *txIndex > 1<<31 || *index > 1<<31 {
			return nil, invalid("Invalid index")
		}
		after = explorer.InternalCursor{Set: true, BlockNumber: b.Number, TxIndex: int(*txIndex), Index: int(*index)}
	}
	rows, err := h.b.Store.BlockInternalTxs(r.Context(), b.Number, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.internalPage(r.Context(), rows, count)
}

// blockInternalCount sets a rendered block's internal_transactions_count.
func (h *handlers) blockInternalCount(ctx context.Context, item *blockItem, number uint64) error {
	n, err := h.b.Store.BlockInternalCount(ctx, number)
	if err != nil {
		return err
	}
	item.InternalTxCount = &n
	return nil
}
