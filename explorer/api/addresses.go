package api

import (
	"time"

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
	o := addressJSON(a, hasLogs)
	if err := h.addContractFields(r.Context(), a, o); err != nil { // contracts.go
		return nil, err
	}
	return o, h.addTokenFields(r.Context(), addr, o) // tokens.go
}

// addressTxs lists the transactions an address sent, received or created,
// narrowed by filter=from|to.
func (h *handlers) addressTxs(r *request) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	side, err := r.sideFilter()
	if err != nil {
		return nil, err
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
	return h.txPage(r.Context(), txs, count, "")
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
	transfers, err := h.b.Store.CountTokenTransfers(r.Context(), explorer.TransferFilter{Address: &addr})
	if err != nil {
		return nil, err
	}
	return addressCounters{
		GasUsage:       u64(a.GasUsed),
		TokenTransfers: u64(transfers),
		Txs:            u64(a.TxCount),
		Validations:    u64(a.BlocksValidated),
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
	return keysetPage(changes, count, func(changes []explorer.BalanceChange) ([]balanceChange, error) {
		items := make([]balanceChange, len(changes))
		for i, c := range changes {
			items[i] = balanceChange{BlockNumber: c.BlockNumber, BlockTimestamp: isoTime(c.Time), Delta: c.Delta.String(),
				Value: c.Value.String()}
			if c.TxHash != nil {
				items[i].TxHash = ptr(c.TxHash.Hex())
			}
		}
		return items, nil
	}, func(last *explorer.BalanceChange, n uint64) any {
		return blockPosition{BlockNumber: last.BlockNumber, ItemsCount: n}
	})
}

// knownAddress reads the {hash} path parameter and requires the address to
// be indexed: Blockscout answers 404 for an address it has never seen.
func (h *handlers) knownAddress(r *request) (*explorer.Address, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	return h.b.Store.Address(r.Context(), addr)
}

// addressLogs lists the logs a contract emitted, newest first.
func (h *handlers) addressLogs(r *request) (any, error) {
	a, err := h.knownAddress(r)
	if err != nil {
		return nil, err
	}
	after, err := r.logCursor()
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	logs, err := h.b.Store.AddressLogs(r.Context(), a.Hash, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(logs, count, func(logs []explorer.Log) ([]*logItem, error) { return h.logItems(r.Context(), logs) },
		func(last *explorer.Log, n uint64) any {
			return logPosition{BlockNumber: last.BlockNumber, Index: last.Index, ItemsCount: n, TxIndex: last.TxIndex}
		})
}

// blocksValidated lists the blocks whose fee recipient the address was.
func (h *handlers) blocksValidated(r *request) (any, error) {
	a, err := h.knownAddress(r)
	if err != nil {
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
	blocks, err := h.b.Store.MinerBlocks(r.Context(), a.Hash, before, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.blockPage(r, blocks, count)
}

// balanceDays is how many days /coin-balance-history-by-day covers, as
// Blockscout's default.
const balanceDays = 10

const day = 86400

func isoDate(unix int64) string { return time.Unix(unix, 0).UTC().Format("2006-01-02") }

// coinBalanceByDay is the balance at the end of each of the last days it
// changed, and today's current balance, oldest first, so the chart ends now.
func (h *handlers) coinBalanceByDay(r *request) (any, error) {
	a, err := h.knownAddress(r)
	if err != nil {
		return nil, err
	}
	today := h.b.Now().Unix() / day
	changes, err := h.b.Store.DailyBalances(r.Context(), a.Hash, (today-balanceDays+1)*day)
	if err != nil {
		return nil, err
	}
	out := balanceDaysJSON{Days: balanceDays, Items: make([]balanceDay, 0, len(changes)+1)}
	for _, c := range changes {
		out.Items = append(out.Items, balanceDay{Date: isoDate(int64(c.Time)), Value: c.Value.String()})
	}
	if len(changes) == 0 || int64(changes[len(changes)-1].Time)/day < today {
		out.Items = append(out.Items, balanceDay{Date: isoDate(today * day), Value: a.Balance.String()})
	}
	return out, nil
}

// addressWithdrawals: this chain has no beacon-chain withdrawals.
func (h *handlers) addressWithdrawals(r *request) (any, error) {
	if _, err := h.knownAddress(r); err != nil {
		return nil, err
	}
	return emptyPage(), nil
}
