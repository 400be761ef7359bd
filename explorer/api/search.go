package api

import (
	"context"
	"errors"
	"strings"

	"github.com/emberchain/ember/explorer"
)

// searchHit is what a query names: at most one object, since a block
// number, a 32-byte hash and an address never overlap.
type searchHit struct {
	kind  string // block, transaction, address
	param string // what the front end's URL takes: block hash or number, tx hash, address
	item  obj
}

// find resolves q to a block (number or hash), a transaction or a known
// address (0x or bech32).
func (h *handlers) find(ctx context.Context, q string) (*searchHit, error) {
	q = strings.TrimSpace(q)
	if n, ok := parseUint(q); ok {
		b, err := h.b.Store.Block(ctx, n)
		return blockHit(b, err)
	}
	if hash, ok := parseHash(q); ok {
		b, err := h.b.Store.BlockByHash(ctx, hash)
		if hit, err := blockHit(b, err); hit != nil || err != nil {
			return hit, err
		}
		t, err := h.b.Store.Tx(ctx, hash)
		if err != nil {
			return nil, ignoreNotFound(err)
		}
		return &searchHit{kind: "transaction", param: t.Hash.Hex(), item: obj{
			"type": "transaction", "transaction_hash": t.Hash.Hex(), "timestamp": isoTime(t.Time), "url": "/tx/" + t.Hash.Hex(),
		}}, nil
	}
	if addr, ok := h.parseAddress(q); ok {
		a, err := h.b.Store.Address(ctx, addr)
		if err != nil {
			return nil, ignoreNotFound(err)
		}
		kind := "address"
		if a.IsContract {
			kind = "contract"
		}
		return &searchHit{kind: "address", param: a.Hash.Hex(), item: obj{
			"type": kind, "address_hash": a.Hash.Hex(), "address": a.Hash.Hex(), "name": nil,
			"is_smart_contract_verified": false, "url": "/address/" + a.Hash.Hex(), "reputation": "ok",
			"certified": false, "ens_info": nil,
		}}, nil
	}
	return nil, nil
}

func blockHit(b *explorer.Block, err error) (*searchHit, error) {
	if err != nil {
		return nil, ignoreNotFound(err)
	}
	return &searchHit{kind: "block", param: b.Hash.Hex(), item: obj{
		"type": "block", "block_number": b.Number, "block_hash": b.Hash.Hex(), "timestamp": isoTime(b.Time),
		"block_type": "block", "url": "/block/" + b.Hash.Hex(),
	}}, nil
}

func ignoreNotFound(err error) error {
	if errors.Is(err, explorer.ErrNotFound) {
		return nil
	}
	return err
}

// search is /api/v2/search: the exact match, if any, on one page. Names of
// tokens and contracts are not indexed yet.
func (h *handlers) search(r *request) (any, error) {
	hit, err := h.find(r.Context(), r.URL.Query().Get("q"))
	if err != nil {
		return nil, err
	}
	p := &page{Items: []obj{}}
	if hit != nil {
		p.Items = append(p.Items, hit.item)
	}
	tokens, err := h.tokenSearch(r.Context(), strings.TrimSpace(r.URL.Query().Get("q"))) // tokens.go
	if err != nil {
		return nil, err
	}
	p.Items = append(p.Items, tokens...)
	return p, nil
}

func (h *handlers) checkRedirect(r *request) (any, error) {
	hit, err := h.find(r.Context(), r.URL.Query().Get("q"))
	if err != nil {
		return nil, err
	}
	if hit == nil {
		return obj{"redirect": false, "type": nil, "parameter": nil}, nil
	}
	return obj{"redirect": true, "type": hit.kind, "parameter": hit.param}, nil
}
