package api

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// head is the newest indexed block, for confirmations.
func (h *handlers) head() uint64 {
	indexed, _, _, _ := h.b.Status()
	return indexed
}

// contractsOf looks up which of the addresses are contracts.
func (h *handlers) contractsOf(ctx context.Context, addrs []common.Address) (contracts, error) {
	m, err := h.b.Store.Contracts(ctx, addrs)
	return contracts(m), err
}

func txAddresses(txs []explorer.Tx) []common.Address {
	var out []common.Address
	for i := range txs {
		out = append(out, txs[i].From)
		if txs[i].To != nil {
			out = append(out, *txs[i].To)
		}
		if txs[i].Created != nil {
			out = append(out, *txs[i].Created)
		}
	}
	return out
}

// txItems renders transactions, the contracts among their addresses looked
// up in one query.
func (h *handlers) txItems(ctx context.Context, txs []explorer.Tx) ([]*txItem, error) {
	c, err := h.contractsOf(ctx, txAddresses(txs))
	if err != nil {
		return nil, err
	}
	head := h.head()
	items := make([]*txItem, len(txs))
	for i := range txs {
		items[i] = txJSON(&txs[i], head, c)
	}
	if err := h.decodeTxs(ctx, txs, items); err != nil { // decode.go
		return nil, err
	}
	if err := h.fillFailures(ctx, txs, items, maxListTraces); err != nil { // revert.go
		return nil, err
	}
	return items, h.fillTxTokenTransfers(ctx, txs, items) // tokens.go
}

// txPage renders a keyset page of transactions ordered by (block, index)
// descending; filter, if set, is repeated in the next page's params.
func (h *handlers) txPage(ctx context.Context, txs []explorer.Tx, itemsCount uint64, filter string) (*page[*txItem], error) {
	return keysetPage(txs, itemsCount, func(txs []explorer.Tx) ([]*txItem, error) { return h.txItems(ctx, txs) },
		func(last *explorer.Tx, n uint64) any {
			return txPosition{BlockNumber: last.BlockNumber, Filter: filter, Index: last.Index, ItemsCount: n}
		})
}

func (h *handlers) blockItems(ctx context.Context, blocks []explorer.Block) ([]*blockItem, error) {
	miners := make([]common.Address, len(blocks))
	for i := range blocks {
		miners[i] = blocks[i].Miner
	}
	c, err := h.contractsOf(ctx, miners)
	if err != nil {
		return nil, err
	}
	items := make([]*blockItem, len(blocks))
	for i := range blocks {
		items[i] = blockJSON(&blocks[i], c)
	}
	return items, nil
}

// blockPage renders a keyset page of blocks ordered by number descending.
func (h *handlers) blockPage(r *request, blocks []explorer.Block, itemsCount uint64) (*page[*blockItem], error) {
	return keysetPage(blocks, itemsCount, func(blocks []explorer.Block) ([]*blockItem, error) {
		return h.blockItems(r.Context(), blocks)
	}, func(last *explorer.Block, n uint64) any {
		return blockPosition{BlockNumber: last.Number, ItemsCount: n}
	})
}

// logItems renders logs, the contracts among their addresses looked up in
// one query.
func (h *handlers) logItems(ctx context.Context, logs []explorer.Log) ([]*logItem, error) {
	addrs := make([]common.Address, len(logs))
	for i := range logs {
		addrs[i] = logs[i].Address
	}
	c, err := h.contractsOf(ctx, addrs)
	if err != nil {
		return nil, err
	}
	items := make([]*logItem, len(logs))
	for i := range logs {
		items[i] = logJSON(&logs[i], c)
	}
	return items, h.decodeLogs(ctx, logs, items) // decode.go
}
