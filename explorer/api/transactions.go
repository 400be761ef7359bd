package api

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// txs is /api/v2/transactions: included transactions newest first, or with
// filter=pending those waiting in the node's pool.
func (h *handlers) txs(r *request) (any, error) {
	switch f := r.URL.Query().Get("filter"); f {
	case "", "validated":
	case "pending":
		return h.pendingTxs(r)
	default:
		return nil, invalid("Invalid filter: " + f)
	}
	after, err := r.txCursor()
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	txs, err := h.b.Store.Txs(r.Context(), after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.txPage(r.Context(), txs, count, "validated")
}

// pendingTxs lists the pool in one page (capped at PageSize): the pool
// changes every block, so a cursor into it would not be stable.
func (h *handlers) pendingTxs(r *request) (any, error) {
	if h.b.Pending == nil {
		return onePage[*txItem](nil), nil
	}
	pending := h.b.Pending()
	if len(pending) > PageSize {
		pending = pending[:PageSize]
	}
	var addrs []common.Address
	for _, tx := range pending {
		addrs = append(addrs, tx.From)
		if to := tx.Tx.To(); to != nil {
			addrs = append(addrs, *to)
		}
	}
	c, err := h.contractsOf(r.Context(), addrs)
	if err != nil {
		return nil, err
	}
	items := make([]*txItem, len(pending))
	for i, tx := range pending {
		items[i] = pendingTxJSON(tx, c)
	}
	return onePage(items), h.decodePending(r.Context(), pending, items) // decode.go
}

func (h *handlers) tx(r *request) (any, error) {
	hash, err := r.hashParam()
	if err != nil {
		return nil, err
	}
	t, err := h.b.Store.Tx(r.Context(), hash)
	if isNotFound(err) {
		return h.nativeTx(r.Context(), hash) // native.go
	}
	if err != nil {
		return nil, err
	}
	items, err := h.txItems(r.Context(), []explorer.Tx{*t})
	if err != nil {
		return nil, err
	}
	if err := h.hasInternalErrors(r.Context(), items, []common.Hash{t.Hash}); err != nil { // internal.go
		return nil, err
	}
	return items[0], nil
}

// txLogs lists a transaction's logs in index order; the cursor is the next
// block-wide log index.
func (h *handlers) txLogs(r *request) (any, error) {
	hash, err := r.hashParam()
	if err != nil {
		return nil, err
	}
	if _, err := h.b.Store.Tx(r.Context(), hash); err != nil {
		return nil, err
	}
	from, err := r.queryUint("index")
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	start := uint(0)
	if from != nil {
		start = uint(*from)
	}
	logs, err := h.b.Store.TxLogs(r.Context(), hash, start, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(logs, count, func(logs []explorer.Log) ([]*logItem, error) { return h.logItems(r.Context(), logs) },
		func(last *explorer.Log, n uint64) any {
			return txLogPosition{Index: last.Index + 1, ItemsCount: n, TxHash: hash.Hex()}
		})
}

func (h *handlers) mainPageTxs(r *request) (any, error) {
	txs, err := h.b.Store.Txs(r.Context(), explorer.TxCursor{}, 6)
	if err != nil {
		return nil, err
	}
	items, err := h.txItems(r.Context(), txs)
	if items == nil {
		items = []*txItem{}
	}
	return items, err
}
