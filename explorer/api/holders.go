package api

import (
	"context"
	"math/big"
	"strings"
	"sync"

	"github.com/emberchain/ember/explorer"
)

// heightCache keeps one value computed for one indexed height: for values
// too costly to compute on every request (the total supply is a scan of the
// addresses table) that only change when a block is indexed.
type heightCache[T any] struct {
	mu     sync.Mutex
	height uint64 // indexed height + 1 the value is for (0 = none)
	set    bool
	value  T
}

// get returns the value for the current indexed height, computing it once.
func (c *heightCache[T]) get(status Status, compute func() (T, error)) (T, error) {
	indexed, ok, _, _ := status()
	key := uint64(0)
	if ok {
		key = indexed + 1
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set && c.height == key {
		return c.value, nil
	}
	v, err := compute()
	if err != nil {
		return v, err
	}
	c.height, c.value, c.set = key, v, true
	return v, nil
}

// totalSupply is the sum of the balances of every indexed address, in wei.
func (h *handlers) totalSupply(ctx context.Context) (*big.Int, error) {
	return h.supply.get(h.b.Status, func() (*big.Int, error) { return h.b.Store.TotalBalance(ctx) })
}

// coins spells a wei amount in whole coins, exactly (Blockscout's supply
// fields are coin amounts such as "164918857.718061").
func coins(wei *big.Int) string {
	s := new(big.Int).Abs(wei).String()
	if len(s) <= 18 {
		s = strings.Repeat("0", 19-len(s)) + s
	}
	whole, frac := s[:len(s)-18], strings.TrimRight(s[len(s)-18:], "0")
	if frac != "" {
		whole += "." + frac
	}
	if wei.Sign() < 0 {
		return "-" + whole
	}
	return whole
}

// topAddresses is /api/v2/addresses: every indexed address by balance,
// richest first, with the total supply. No price source: exchange_rate null.
func (h *handlers) topAddresses(r *request) (any, error) {
	q := r.URL.Query()
	if s := q.Get("sort"); s != "" && s != "balance" {
		return nil, invalid("Invalid sort: " + s + " (only balance is supported)")
	}
	if o := q.Get("order"); o != "" && o != "desc" {
		return nil, invalid("Invalid order: " + o + " (only desc is supported)")
	}
	after, err := h.holderCursor(r)
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	supply, err := h.totalSupply(r.Context())
	if err != nil {
		return nil, err
	}
	addrs, err := h.b.Store.TopAddresses(r.Context(), after, PageSize+1)
	if err != nil {
		return nil, err
	}
	p, err := h.holderPage(r.Context(), addrs, count)
	if err != nil {
		return nil, err
	}
	return topAddressesJSON{page: *p, TotalSupply: coins(supply)}, nil
}

// holderPage renders addresses as Blockscout's top-holder items: the full
// address object and its transaction count.
func (h *handlers) holderPage(ctx context.Context, addrs []explorer.Address, itemsCount uint64) (*page[*addressItem], error) {
	return keysetPage(addrs, itemsCount, func(addrs []explorer.Address) ([]*addressItem, error) {
		items := make([]*addressItem, len(addrs))
		for i := range addrs {
			a := &addrs[i]
			hasLogs := false
			if a.IsContract { // only contracts emit logs: one lookup each, not one per holder
				var err error
				if hasLogs, err = h.b.Store.HasLogs(ctx, a.Hash); err != nil {
					return nil, err
				}
			}
			items[i] = addressJSON(a, hasLogs)
			items[i].TxCount = ptr(u64(a.TxCount))
		}
		return items, nil
	}, func(last *explorer.Address, n uint64) any {
		return holderPosition{Balance: last.Balance.String(), Hash: last.Hash.Hex(), ItemsCount: n}
	})
}
