package api

import (
	"context"
	"errors"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/explorer"
)

// searchHit is what a query names: at most one object, since a block
// number, a 32-byte hash and an address never overlap.
type searchHit struct {
	kind  string // block, transaction, address
	param string // what the front end's URL takes: block hash or number, tx hash, address
	item  any    // blockHit, txHit or addressHit
}

// find resolves q to a block (number, hash or CometBFT hash), a
// transaction (EVM, or native by its CometBFT hash) or a known address (0x
// or bech32). A 32-byte hash may be given as CometBFT spells it: 64 hex
// digits without 0x.
func (h *handlers) find(ctx context.Context, q string) (*searchHit, error) {
	q = strings.TrimSpace(q)
	if n, ok := parseUint(q); ok {
		b, err := h.b.Store.Block(ctx, n)
		return blockHitOf(b, err)
	}
	if len(q) == 64 {
		q = "0x" + q
	}
	if hash, ok := parseHash(q); ok {
		return h.findHash(ctx, hash)
	}
	if addr, ok := h.parseAddress(q); ok {
		a, err := h.b.Store.Address(ctx, addr)
		if err != nil {
			return nil, ignoreNotFound(err)
		}
		hit := addressHit{Address: a.Hash.Hex(), AddressHash: a.Hash.Hex(), Reputation: "ok", Type: "address", URL: "/address/" + a.Hash.Hex()}
		if a.IsContract {
			hit.Type = "contract"
			// A verified contract's name, as Blockscout's search gives it:
			// the pages name addresses they only know the hash of by it.
			_, names, err := h.abisOf(ctx, []common.Address{addr})
			if err != nil {
				return nil, err
			}
			if name, ok := names[addr]; ok {
				hit.ContractVerified, hit.Name = true, &name
			}
		}
		return &searchHit{kind: "address", param: a.Hash.Hex(), item: hit}, nil
	}
	if op, ok := h.parseOperator(q); ok {
		// A validator's operator (embervaloper1…) is its account: the
		// address page shows it whether or not the index has seen it
		// (a validator made by a native transaction may have no EVM
		// activity).
		return &searchHit{kind: "address", param: op.Hex(), item: addressHit{
			Address: op.Hex(), AddressHash: op.Hex(), Reputation: "ok", Type: "address", URL: "/address/" + op.Hex(),
		}}, nil
	}
	return nil, nil
}

// parseOperator reads a validator operator address (embervaloper1…).
func (h *handlers) parseOperator(q string) (common.Address, bool) {
	kind, data, err := accounts.NewPrefixes(h.b.Prefix).Decode(q)
	if err != nil || kind != accounts.KindValidator {
		return common.Address{}, false
	}
	return common.BytesToAddress(data), true
}

// contractSearch finds verified contracts whose name contains q, newest
// verification first.
func (h *handlers) contractSearch(ctx context.Context, q string) ([]any, error) {
	if q == "" || len(q) > 256 {
		return nil, nil
	}
	list, err := h.b.Store.VerifiedContracts(ctx, q, "", 0, PageSize)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(list))
	for i := range list {
		a, name := list[i].Address.Hex(), list[i].Name
		out[i] = addressHit{Address: a, AddressHash: a, ContractVerified: true, Name: &name, Reputation: "ok",
			Type: "contract", URL: "/address/" + a}
	}
	return out, nil
}

// findHash looks a 32-byte hash up as each kind of object that has one.
func (h *handlers) findHash(ctx context.Context, hash common.Hash) (*searchHit, error) {
	for _, byHash := range []func(context.Context, common.Hash) (*explorer.Block, error){h.b.Store.BlockByHash, h.b.Store.BlockByCometHash} {
		b, err := byHash(ctx, hash)
		if hit, err := blockHitOf(b, err); hit != nil || err != nil {
			return hit, err
		}
	}
	var at uint64
	if t, err := h.b.Store.Tx(ctx, hash); err == nil {
		at = t.Time
	} else if !isNotFound(err) {
		return nil, err
	} else if n, err := h.b.Store.NativeTx(ctx, hash); err == nil {
		at = n.Time
	} else {
		return nil, ignoreNotFound(err)
	}
	return &searchHit{kind: "transaction", param: hash.Hex(), item: txHit{
		Timestamp: isoTime(at), TxHash: hash.Hex(), Type: "transaction", URL: "/tx/" + hash.Hex(),
	}}, nil
}

func blockHitOf(b *explorer.Block, err error) (*searchHit, error) {
	if err != nil {
		return nil, ignoreNotFound(err)
	}
	return &searchHit{kind: "block", param: b.Hash.Hex(), item: blockHit{
		BlockHash: b.Hash.Hex(), BlockNumber: b.Number, BlockType: "block", Timestamp: isoTime(b.Time), Type: "block",
		URL: "/block/" + b.Hash.Hex(),
	}}, nil
}

func ignoreNotFound(err error) error {
	if errors.Is(err, explorer.ErrNotFound) {
		return nil
	}
	return err
}

// search is /api/v2/search: the exact match, if any, then the tokens whose
// name or symbol and the verified contracts whose name contain q, on one
// page.
func (h *handlers) search(r *request) (any, error) {
	hit, err := h.find(r.Context(), r.URL.Query().Get("q"))
	if err != nil {
		return nil, err
	}
	var items []any
	if hit != nil {
		items = append(items, hit.item)
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	tokens, err := h.tokenSearch(r.Context(), q) // tokens.go
	if err != nil {
		return nil, err
	}
	contracts, err := h.contractSearch(r.Context(), q)
	if err != nil {
		return nil, err
	}
	return onePage(append(append(items, tokens...), contracts...)), nil
}

func (h *handlers) checkRedirect(r *request) (any, error) {
	hit, err := h.find(r.Context(), r.URL.Query().Get("q"))
	if err != nil {
		return nil, err
	}
	if hit == nil {
		return redirect{}, nil
	}
	return redirect{Parameter: &hit.param, Redirect: true, Type: &hit.kind}, nil
}
