package api

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// page is Blockscout's list envelope. NextPageParams is nil (JSON null) on
// the last page.
type page struct {
	Items          []obj `json:"items"`
	NextPageParams obj   `json:"next_page_params"`
}

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
func (h *handlers) txItems(ctx context.Context, txs []explorer.Tx) ([]obj, error) {
	c, err := h.contractsOf(ctx, txAddresses(txs))
	if err != nil {
		return nil, err
	}
	head := h.head()
	items := make([]obj, len(txs))
	for i := range txs {
		items[i] = txJSON(&txs[i], head, c)
	}
	if err := h.decodeTxs(ctx, txs, items); err != nil { // decode.go
		return nil, err
	}
	return items, h.fillTxTokenTransfers(ctx, txs, items) // tokens.go
}

// txPage renders a keyset page of transactions ordered by (block, index)
// descending; txs holds up to PageSize+1 rows, the extra one only telling
// that another page exists.
func (h *handlers) txPage(ctx context.Context, txs []explorer.Tx, itemsCount uint64, extra obj) (*page, error) {
	more := len(txs) > PageSize
	if more {
		txs = txs[:PageSize]
	}
	items, err := h.txItems(ctx, txs)
	if err != nil {
		return nil, err
	}
	p := &page{Items: items}
	if more {
		last := txs[len(txs)-1]
		p.NextPageParams = obj{"block_number": last.BlockNumber, "index": last.Index, "items_count": itemsCount + PageSize}
		for k, v := range extra {
			p.NextPageParams[k] = v
		}
	}
	return p, nil
}

func (h *handlers) blockItems(ctx context.Context, blocks []explorer.Block) ([]obj, error) {
	miners := make([]common.Address, len(blocks))
	for i := range blocks {
		miners[i] = blocks[i].Miner
	}
	c, err := h.contractsOf(ctx, miners)
	if err != nil {
		return nil, err
	}
	items := make([]obj, len(blocks))
	for i := range blocks {
		items[i] = blockJSON(&blocks[i], c)
	}
	return items, nil
}

// emptyPage is a list with nothing in it and no next page.
func emptyPage() *page { return &page{Items: []obj{}} }

// blockPage renders a keyset page of blocks ordered by number descending;
// blocks holds up to PageSize+1 rows, the extra one only telling that
// another page exists.
func (h *handlers) blockPage(r *request, blocks []explorer.Block, itemsCount uint64) (*page, error) {
	more := len(blocks) > PageSize
	if more {
		blocks = blocks[:PageSize]
	}
	items, err := h.blockItems(r.Context(), blocks)
	if err != nil {
		return nil, err
	}
	p := &page{Items: items}
	if more {
		p.NextPageParams = obj{"block_number": blocks[len(blocks)-1].Number, "items_count": itemsCount + PageSize}
	}
	return p, nil
}

// logPage renders logs (at most PageSize), the contracts among their
// addresses looked up in one query; the caller sets NextPageParams.
func (h *handlers) logPage(r *request, logs []explorer.Log) (*page, error) {
	addrs := make([]common.Address, len(logs))
	for i := range logs {
		addrs[i] = logs[i].Address
	}
	c, err := h.contractsOf(r.Context(), addrs)
	if err != nil {
		return nil, err
	}
	p := &page{Items: make([]obj, len(logs))}
	for i := range logs {
		p.Items[i] = logJSON(&logs[i], c)
	}
	if err := h.decodeLogs(r.Context(), logs, p.Items); err != nil { // decode.go
		return nil, err
	}
	return p, nil
}
