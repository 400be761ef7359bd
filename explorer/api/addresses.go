package api

import (
	"github.com/emberchain/ember/explorer"
)

func (h *handlers) address(r *request) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	a, err := h.b.Store.Address(r.Context(), addr)
	if err != nil {
		return nil, err
	}
	hasLogs, err := h.b.Store.HasLogs(r.Context(), addr)
	if err != nil {
		return nil, err
	}
	return addressJSON(a, hasLogs), nil
}

// addressTxs lists the transactions an address sent, received or created,
// narrowed by filter=from|to.
func (h *handlers) addressTxs(r *request) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	side := explorer.AnySide
	switch f := r.URL.Query().Get("filter"); f {
	case "":
	case "from":
		side = explorer.FromSide
	case "to":
		side = explorer.ToSide
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
	txs, err := h.b.Store.AddressTxs(r.Context(), addr, side, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.txPage(r.Context(), txs, count, nil)
}

func (h *handlers) addressCounters(r *request) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	a, err := h.b.Store.Address(r.Context(), addr)
	if err != nil {
		return nil, err
	}
	return obj{
		"transactions_count":    u64(a.TxCount),
		"token_transfers_count": "0", // token transfers are not indexed yet
		"gas_usage_count":       u64(a.GasUsed),
		"validations_count":     u64(a.BlocksValidated),
	}, nil
}

func (h *handlers) coinBalanceHistory(r *request) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	if _, err := h.b.Store.Address(r.Context(), addr); err != nil {
		return nil, err
	}
	before, err := r.queryUint("block_number")
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	changes, err := h.b.Store.BalanceHistory(r.Context(), addr, before, PageSize+1)
	if err != nil {
		return nil, err
	}
	more := len(changes) > PageSize
	if more {
		changes = changes[:PageSize]
	}
	p := &page{Items: make([]obj, len(changes))}
	for i, c := range changes {
		var tx any
		if c.TxHash != nil {
			tx = c.TxHash.Hex()
		}
		p.Items[i] = obj{
			"block_number": c.BlockNumber, "block_timestamp": isoTime(c.Time), "delta": c.Delta.String(),
			"transaction_hash": tx, "value": c.Value.String(),
		}
	}
	if more {
		p.NextPageParams = obj{"block_number": changes[len(changes)-1].BlockNumber, "items_count": count + PageSize}
	}
	return p, nil
}
