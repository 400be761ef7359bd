package api

import (
	"github.com/emberchain/ember/explorer"
)

// blocks is /api/v2/blocks: only consensus blocks exist here (no uncles,
// no reorgs), so type=uncle and type=reorg list nothing.
func (h *handlers) blocks(r *request) (any, error) {
	switch typ := r.URL.Query().Get("type"); typ {
	case "", "block":
	case "uncle", "reorg":
		return emptyPage(), nil
	default:
		return nil, invalid("Invalid type: " + typ)
	}
	before, err := r.queryUint("block_number")
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	blocks, err := h.b.Store.Blocks(r.Context(), before, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.blockPage(r, blocks, count)
}

// findBlock reads the {id} path parameter: a block number or hash.
func (h *handlers) findBlock(r *request) (*explorer.Block, error) {
	id := r.PathValue("id")
	if n, ok := parseUint(id); ok {
		return h.b.Store.Block(r.Context(), n)
	}
	if hash, ok := parseHash(id); ok {
		return h.b.Store.BlockByHash(r.Context(), hash)
	}
	return nil, invalid("Invalid number or hash: " + id)
}

func (h *handlers) block(r *request) (any, error) {
	b, err := h.findBlock(r)
	if err != nil {
		return nil, err
	}
	items, err := h.blockItems(r.Context(), []explorer.Block{*b})
	if err != nil {
		return nil, err
	}
	if err := h.blockInternalCount(r.Context(), items[0], b.Number); err != nil { // internal.go
		return nil, err
	}
	return items[0], nil
}

// blockTxs lists a block's transactions in index order; the cursor is the
// next index.
func (h *handlers) blockTxs(r *request) (any, error) {
	b, err := h.findBlock(r)
	if err != nil {
		return nil, err
	}
	start, count, err := r.inBlockCursor()
	if err != nil {
		return nil, err
	}
	txs, err := h.b.Store.BlockTxs(r.Context(), b.Number, start, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(txs, count, func(txs []explorer.Tx) ([]*txItem, error) { return h.txItems(r.Context(), txs) },
		func(last *explorer.Tx, n uint64) any {
			return txPosition{BlockNumber: b.Number, Index: last.Index + 1, ItemsCount: n}
		})
}

func (h *handlers) mainPageBlocks(r *request) (any, error) {
	blocks, err := h.b.Store.Blocks(r.Context(), nil, 4)
	if err != nil {
		return nil, err
	}
	items, err := h.blockItems(r.Context(), blocks)
	if items == nil {
		items = []*blockItem{}
	}
	return items, err
}

// blockWithdrawals: this chain has no beacon-chain withdrawals, but the
// block must exist.
func (h *handlers) blockWithdrawals(r *request) (any, error) {
	if _, err := h.findBlock(r); err != nil {
		return nil, err
	}
	return emptyPage(), nil
}

// withdrawals: none on this chain.
func (h *handlers) withdrawals(*request) (any, error) { return emptyPage(), nil }
