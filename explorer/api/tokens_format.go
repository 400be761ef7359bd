package api

import (
	"context"
	"encoding/json"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// optStr is a string or JSON null.
func optStr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// tokenObj is Blockscout's TokenInfo. "address" and "holders" repeat
// address_hash and holders_count under the names the YAML requires (older
// Blockscout spelled them so).
func tokenObj(t *explorer.Token) obj {
	if t == nil {
		return nil
	}
	return obj{
		"address_hash":           t.Address.Hex(),
		"address":                t.Address.Hex(),
		"type":                   t.Type,
		"name":                   optStr(t.Name),
		"symbol":                 optStr(t.Symbol),
		"decimals":               dec(t.Decimals),
		"holders_count":          u64(t.HoldersCount),
		"holders":                u64(t.HoldersCount),
		"total_supply":           dec(t.TotalSupply),
		"exchange_rate":          nil,
		"volume_24h":             nil,
		"circulating_market_cap": nil,
		"icon_url":               nil,
		"reputation":             "ok",
	}
}

// instanceJSON is Blockscout's NFT instance; image_url, animation_url and
// external_app_url come from the metadata's image (or image_url),
// animation_url and external_url.
func instanceJSON(in *explorer.TokenInstance, t *explorer.Token, c contracts) obj {
	var meta map[string]any
	if len(in.Metadata) > 0 {
		_ = json.Unmarshal(in.Metadata, &meta)
	}
	str := func(keys ...string) any {
		for _, k := range keys {
			if s, ok := meta[k].(string); ok && s != "" {
				return s
			}
		}
		return nil
	}
	var metaJSON any
	if meta != nil {
		metaJSON = meta
	}
	o := obj{
		"id":                  in.TokenID.String(),
		"is_unique":           in.Type == explorer.ERC721,
		"holder_address_hash": nil,
		"owner":               nil,
		"metadata":            metaJSON,
		"image_url":           str("image", "image_url"),
		"animation_url":       str("animation_url"),
		"external_app_url":    str("external_url"),
		"media_url":           str("image", "image_url", "animation_url"),
		"media_type":          nil,
		"thumbnails":          nil,
		"token":               tokenObj(t),
		"token_type":          in.Type,
	}
	if in.Owner != nil {
		o["holder_address_hash"] = in.Owner.Hex()
		o["owner"] = c.param(*in.Owner)
	}
	return o
}

// transferType is Blockscout's: a transfer from the zero address mints,
// one to it burns.
func transferType(t *explorer.TokenTransfer) string {
	switch {
	case t.From == common.Address{}:
		return "token_minting"
	case t.To == common.Address{}:
		return "token_burning"
	}
	return "token_transfer"
}

// tokenView holds what rendering transfers, balances and instances needs
// besides the rows: their tokens, the instances of their ids and which
// addresses are contracts, each read in one query per page.
type tokenView struct {
	tokens    map[common.Address]*explorer.Token
	instances map[common.Address]map[string]*explorer.TokenInstance
	c         contracts
}

// view loads the tokens, instances (of the ids given per token) and
// contract flags of one page.
func (h *handlers) view(ctx context.Context, tokens []common.Address, ids map[common.Address][]*big.Int, addrs []common.Address) (*tokenView, error) {
	v := &tokenView{instances: map[common.Address]map[string]*explorer.TokenInstance{}}
	var err error
	if v.tokens, err = h.b.Store.TokensOf(ctx, tokens); err != nil {
		return nil, err
	}
	for token, list := range ids {
		if v.instances[token], err = h.b.Store.InstancesOf(ctx, token, list); err != nil {
			return nil, err
		}
	}
	if v.c, err = h.contractsOf(ctx, append(addrs, tokens...)); err != nil {
		return nil, err
	}
	return v, nil
}

func (v *tokenView) instance(token common.Address, id *big.Int) any {
	in := v.instances[token][id.String()]
	if in == nil {
		return nil
	}
	return instanceJSON(in, v.tokens[token], v.c)
}

// transferView loads what a page of transfers renders with.
func (h *handlers) transferView(ctx context.Context, list []explorer.TokenTransfer) (*tokenView, error) {
	var tokens, addrs []common.Address
	ids := map[common.Address][]*big.Int{}
	for i := range list {
		t := &list[i]
		tokens = append(tokens, t.Token)
		addrs = append(addrs, t.From, t.To)
		if t.TokenID != nil {
			ids[t.Token] = append(ids[t.Token], t.TokenID)
		}
	}
	return h.view(ctx, tokens, ids, addrs)
}

func (v *tokenView) transferJSON(t *explorer.TokenTransfer) obj {
	tok := v.tokens[t.Token]
	var decimals any
	if tok != nil {
		decimals = dec(tok.Decimals)
	}
	var total obj
	switch t.Type {
	case explorer.ERC20:
		total = obj{"decimals": decimals, "value": t.Amount.String()}
	case explorer.ERC721:
		total = obj{"token_id": t.TokenID.String(), "token_instance": v.instance(t.Token, t.TokenID)}
	default:
		total = obj{"token_id": t.TokenID.String(), "decimals": decimals, "value": t.Amount.String(),
			"token_instance": v.instance(t.Token, t.TokenID)}
	}
	info := tokenObj(tok)
	if info == nil { // a transfer always has its token row; keep the shape if not
		info = tokenObj(&explorer.Token{Address: t.Token, Type: t.Type})
	}
	return obj{
		"block_hash":       t.BlockHash.Hex(),
		"block_number":     t.BlockNumber,
		"from":             v.c.param(t.From),
		"to":               v.c.param(t.To),
		"log_index":        t.LogIndex,
		"method":           nil,
		"timestamp":        isoTime(t.Time),
		"token":            info,
		"token_type":       t.Type,
		"total":            total,
		"transaction_hash": t.TxHash.Hex(),
		"type":             transferType(t),
	}
}

// parseTypes reads type=ERC-20,ERC-721,… (Blockscout also names ERC-404,
// which this chain's indexer never gives a token).
func parseTypes(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.ToUpper(strings.TrimSpace(p))
		switch p {
		case explorer.ERC20, explorer.ERC721, explorer.ERC1155, "ERC-404":
			out = append(out, p)
		case "":
		default:
			return nil, invalid("Invalid type: " + p)
		}
	}
	return out, nil
}

// parseTokenID reads a decimal uint256.
func parseTokenID(s string) (*big.Int, bool) {
	if s == "" || len(s) > 78 || (len(s) > 1 && s[0] == '0') {
		return nil, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return nil, false
		}
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.BitLen() > 256 {
		return nil, false
	}
	return v, true
}

// parseAmount reads a non-negative decimal amount of a cursor.
func parseAmount(name, s string) (*big.Int, error) {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() < 0 || len(s) > weiDigits {
		return nil, invalid("Invalid " + name + ": " + s)
	}
	return v, nil
}
