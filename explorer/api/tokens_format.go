package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// tokenObj is t's TokenInfo, nil for no token.
func tokenObj(t *explorer.Token) *tokenInfo {
	if t == nil {
		return nil
	}
	return &tokenInfo{
		AddressHash:  t.Address.Hex(),
		Address:      t.Address.Hex(),
		Type:         t.Type,
		Name:         t.Name,
		Symbol:       t.Symbol,
		Decimals:     dec(t.Decimals),
		HoldersCount: u64(t.HoldersCount),
		Holders:      u64(t.HoldersCount),
		TotalSupply:  dec(t.TotalSupply),
		Reputation:   "ok",
	}
}

// instanceMetadata is in's stored metadata, nil when none was fetched. The
// indexer stores only JSON objects, so one that does not decode is a
// corrupt row: it is logged and the instance shown without metadata
// (metadata, image_url, … null), as Blockscout shows an instance whose
// metadata it could not read, rather than failing every list of transfers
// and holdings the instance appears in.
func instanceMetadata(in *explorer.TokenInstance, log *slog.Logger) map[string]any {
	if len(in.Metadata) == 0 {
		return nil
	}
	var meta map[string]any
	if err := json.Unmarshal(in.Metadata, &meta); err != nil {
		log.Error("explorer API: corrupt stored data: metadata of token instance shown as null",
			"token", in.Token.Hex(), "id", in.TokenID.String(), "err", err)
		return nil
	}
	return meta
}

// instanceJSON is Blockscout's NFT instance; image_url, animation_url and
// external_app_url come from the metadata's image (or image_url),
// animation_url and external_url.
func instanceJSON(in *explorer.TokenInstance, t *explorer.Token, c contracts, log *slog.Logger) *instanceItem {
	meta := instanceMetadata(in, log)
	str := func(keys ...string) *string {
		for _, k := range keys {
			if s, ok := meta[k].(string); ok && s != "" {
				return &s
			}
		}
		return nil
	}
	o := &instanceItem{
		ID:             in.TokenID.String(),
		IsUnique:       in.Type == explorer.ERC721,
		ImageURL:       str("image", "image_url"),
		AnimationURL:   str("animation_url"),
		ExternalAppURL: str("external_url"),
		MediaURL:       str("image", "image_url", "animation_url"),
		Token:          tokenObj(t),
		TokenType:      in.Type,
	}
	if meta != nil {
		o.Metadata = meta
	}
	if in.Owner != nil {
		o.HolderAddressHash = ptr(in.Owner.Hex())
		o.Owner = c.param(*in.Owner)
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
	log       *slog.Logger
}

// view loads the tokens, instances (of the ids given per token) and
// contract flags of one page.
func (h *handlers) view(ctx context.Context, tokens []common.Address, ids map[common.Address][]*big.Int, addrs []common.Address) (*tokenView, error) {
	v := &tokenView{instances: map[common.Address]map[string]*explorer.TokenInstance{}, log: h.log}
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

func (v *tokenView) instance(token common.Address, id *big.Int) *instanceItem {
	in := v.instances[token][id.String()]
	if in == nil {
		return nil
	}
	return instanceJSON(in, v.tokens[token], v.c, v.log)
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

func (v *tokenView) transferJSON(t *explorer.TokenTransfer) *transferItem {
	tok := v.tokens[t.Token]
	var decimals *string
	if tok != nil {
		decimals = dec(tok.Decimals)
	}
	var total any
	switch t.Type {
	case explorer.ERC20:
		total = erc20Total{Decimals: decimals, Value: t.Amount.String()}
	case explorer.ERC721:
		total = erc721Total{TokenID: t.TokenID.String(), TokenInstance: v.instance(t.Token, t.TokenID)}
	default:
		total = erc1155Total{Decimals: decimals, TokenID: t.TokenID.String(), TokenInstance: v.instance(t.Token, t.TokenID),
			Value: t.Amount.String()}
	}
	info := tokenObj(tok)
	if info == nil { // a transfer always has its token row; keep the shape if not
		info = tokenObj(&explorer.Token{Address: t.Token, Type: t.Type})
	}
	return &transferItem{
		BlockHash:   t.BlockHash.Hex(),
		BlockNumber: t.BlockNumber,
		From:        v.c.param(t.From),
		To:          v.c.param(t.To),
		LogIndex:    t.LogIndex,
		Timestamp:   isoTime(t.Time),
		Token:       info,
		TokenType:   t.Type,
		Total:       total,
		TxHash:      t.TxHash.Hex(),
		Type:        transferType(t),
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
