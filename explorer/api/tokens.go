package api

import (
	"context"
	"math/big"
	"net/http"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// tokenRoutes adds the token and NFT endpoints.
func (h *handlers) tokenRoutes(mux *http.ServeMux) {
	for path, fn := range map[string]func(*request) (any, error){
		"/api/v2/token-transfers":                              h.tokenTransfers,
		"/api/v2/transactions/{hash}/token-transfers":          h.txTokenTransfers,
		"/api/v2/addresses/{hash}/token-transfers":             h.addressTokenTransfers,
		"/api/v2/addresses/{hash}/token-balances":              h.addressTokenBalances,
		"/api/v2/addresses/{hash}/tokens":                      h.addressTokens,
		"/api/v2/addresses/{hash}/nft":                         h.addressNFTs,
		"/api/v2/addresses/{hash}/nft/collections":             h.addressNFTCollections,
		"/api/v2/tokens":                                       h.tokens,
		"/api/v2/tokens/{hash}":                                h.token,
		"/api/v2/tokens/{hash}/transfers":                      h.tokenTokenTransfers,
		"/api/v2/tokens/{hash}/holders":                        h.tokenHolders,
		"/api/v2/tokens/{hash}/counters":                       h.tokenCounters,
		"/api/v2/tokens/{hash}/instances":                      h.tokenInstances,
		"/api/v2/tokens/{hash}/instances/{id}":                 h.tokenInstance,
		"/api/v2/tokens/{hash}/instances/{id}/transfers":       h.instanceTransfers,
		"/api/v2/tokens/{hash}/instances/{id}/holders":         h.instanceHolders,
		"/api/v2/tokens/{hash}/instances/{id}/transfers-count": h.instanceTransfersCount,
	} {
		mux.Handle("GET "+path, h.serve(fn))
	}
	mux.Handle("PATCH /api/v2/tokens/{hash}/instances/{id}/refetch-metadata", h.serve(h.refetchMetadata))
}

// transferCursor reads the (block_number, index[, batch_index]) position of
// a transfer list. Without batch_index the next page starts after the
// whole log.
func (r *request) transferCursor(asc bool) (explorer.TransferCursor, error) {
	block, err := r.queryUint("block_number")
	if err != nil {
		return explorer.TransferCursor{}, err
	}
	index, err := r.queryUint("index")
	if err != nil {
		return explorer.TransferCursor{}, err
	}
	batch, err := r.queryUint("batch_index")
	if err != nil {
		return explorer.TransferCursor{}, err
	}
	if block == nil || index == nil {
		if block != nil || index != nil {
			return explorer.TransferCursor{}, invalid("block_number and index go together")
		}
		return explorer.TransferCursor{}, nil
	}
	if *index > 1<<31 || (batch != nil && *batch > 1<<30) {
		return explorer.TransferCursor{}, invalid("Invalid index")
	}
	c := explorer.TransferCursor{Set: true, BlockNumber: *block, LogIndex: uint(*index), BatchIndex: -1}
	if asc {
		c.BatchIndex = 1 << 30
	}
	if batch != nil {
		c.BatchIndex = int(*batch)
	}
	return c, nil
}

// transferPage renders a keyset page of transfers; tokenID, if set, is
// repeated in the next page's params (an instance's transfers).
func (h *handlers) transferPage(ctx context.Context, list []explorer.TokenTransfer, itemsCount uint64, tokenID *string) (*page[*transferItem], error) {
	return keysetPage(list, itemsCount, func(list []explorer.TokenTransfer) ([]*transferItem, error) {
		v, err := h.transferView(ctx, list)
		if err != nil {
			return nil, err
		}
		items := make([]*transferItem, len(list))
		for i := range list {
			items[i] = v.transferJSON(&list[i])
		}
		return items, nil
	}, func(last *explorer.TokenTransfer, n uint64) any {
		p := transferPosition{BlockNumber: last.BlockNumber, Index: last.LogIndex, ItemsCount: n, TokenID: tokenID}
		if last.Batch {
			p.BatchIndex = &last.BatchIndex
		}
		return p
	})
}

// listTransfers is every transfer list: f narrowed by the type query
// parameter, paged.
func (h *handlers) listTransfers(r *request, f explorer.TransferFilter, tokenID *string) (any, error) {
	types, err := parseTypes(r.URL.Query().Get("type"))
	if err != nil {
		return nil, err
	}
	f.Types = types
	after, err := r.transferCursor(f.TxHash != nil)
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	list, err := h.b.Store.TokenTransfers(r.Context(), f, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.transferPage(r.Context(), list, count, tokenID)
}

func (h *handlers) tokenTransfers(r *request) (any, error) {
	return h.listTransfers(r, explorer.TransferFilter{}, nil)
}

func (h *handlers) txTokenTransfers(r *request) (any, error) {
	hash, err := r.hashParam()
	if err != nil {
		return nil, err
	}
	if _, err := h.b.Store.Tx(r.Context(), hash); err != nil {
		return nil, err
	}
	return h.listTransfers(r, explorer.TransferFilter{TxHash: &hash}, nil)
}

func (h *handlers) addressTokenTransfers(r *request) (any, error) {
	a, err := h.knownAddress(r)
	if err != nil {
		return nil, err
	}
	f := explorer.TransferFilter{Address: &a.Hash}
	if f.Side, err = r.sideFilter(); err != nil {
		return nil, err
	}
	if s := r.URL.Query().Get("token"); s != "" {
		t, ok := h.parseAddress(s)
		if !ok {
			return nil, invalid("Invalid token: " + s)
		}
		f.Token = &t
	}
	return h.listTransfers(r, f, nil)
}

// tokenParam reads {hash} and requires an indexed token.
func (h *handlers) tokenParam(r *request) (*explorer.Token, error) {
	a, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	return h.b.Store.Token(r.Context(), a)
}

// instanceParam reads {hash} and {id} and requires an indexed instance.
func (h *handlers) instanceParam(r *request) (*explorer.Token, *explorer.TokenInstance, error) {
	t, err := h.tokenParam(r)
	if err != nil {
		return nil, nil, err
	}
	id, ok := parseTokenID(r.PathValue("id"))
	if !ok {
		return nil, nil, invalid("Invalid token id: " + r.PathValue("id"))
	}
	in, err := h.b.Store.Instance(r.Context(), t.Address, id)
	if err != nil {
		return nil, nil, err
	}
	return t, in, nil
}

func (h *handlers) token(r *request) (any, error) {
	t, err := h.tokenParam(r)
	if err != nil {
		return nil, err
	}
	return tokenObj(t), nil
}

func (h *handlers) tokenCounters(r *request) (any, error) {
	t, err := h.tokenParam(r)
	if err != nil {
		return nil, err
	}
	return tokenCounters{Holders: u64(t.HoldersCount), Transfers: u64(t.TransfersCount)}, nil
}

func (h *handlers) tokenTokenTransfers(r *request) (any, error) {
	t, err := h.tokenParam(r)
	if err != nil {
		return nil, err
	}
	return h.listTransfers(r, explorer.TransferFilter{Token: &t.Address}, nil)
}

// tokens is /api/v2/tokens: by holder count, q matching name or symbol.
func (h *handlers) tokens(r *request) (any, error) {
	q := r.URL.Query()
	types, err := parseTypes(q.Get("type"))
	if err != nil {
		return nil, err
	}
	var after explorer.TokenCursor
	if hc, addr := q.Get("holders_count"), q.Get("contract_address_hash"); hc != "" || addr != "" {
		n, ok := parseUint(hc)
		a, ok2 := h.parseAddress(addr)
		if !ok || !ok2 {
			return nil, invalid("Invalid holders_count or contract_address_hash")
		}
		after = explorer.TokenCursor{Set: true, Holders: n, Address: a}
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	search := q.Get("q")
	if len(search) > 256 {
		return nil, invalid("q is too long")
	}
	list, err := h.b.Store.Tokens(r.Context(), search, types, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(list, count, func(list []explorer.Token) ([]*tokenInfo, error) {
		items := make([]*tokenInfo, len(list))
		for i := range list {
			items[i] = tokenObj(&list[i])
		}
		return items, nil
	}, func(last *explorer.Token, n uint64) any {
		return tokenPosition{Address: last.Address.Hex(), HoldersCount: last.HoldersCount, IsNameNull: last.Name == nil,
			ItemsCount: n, Name: last.Name}
	})
}

// holderCursor reads the (value, address_hash[, token_id]) position of a
// holder list.
func (h *handlers) tokenHolderCursor(r *request, addrKey string) (explorer.HolderPosition, error) {
	q := r.URL.Query()
	v, a := q.Get("value"), q.Get(addrKey)
	if v == "" && a == "" {
		return explorer.HolderPosition{}, nil
	}
	val, err := parseAmount("value", v)
	if err != nil {
		return explorer.HolderPosition{}, err
	}
	addr, ok := h.parseAddress(a)
	if !ok {
		return explorer.HolderPosition{}, invalid("Invalid " + addrKey + ": " + a)
	}
	pos := explorer.HolderPosition{Set: true, Value: val, Address: addr, TokenID: new(big.Int)}
	if s := q.Get("token_id"); s != "" {
		id, ok := parseTokenID(s)
		if !ok {
			return explorer.HolderPosition{}, invalid("Invalid token_id: " + s)
		}
		pos.TokenID = id
	}
	return pos, nil
}

// tokenHolderPage renders token holders.
func (h *handlers) tokenHolderPage(r *request, t *explorer.Token, list []explorer.TokenBalance, itemsCount uint64) (*page[*holderItem], error) {
	return keysetPage(list, itemsCount, func(list []explorer.TokenBalance) ([]*holderItem, error) {
		addrs := make([]common.Address, len(list))
		for i := range list {
			addrs[i] = list[i].Holder
		}
		c, err := h.contractsOf(r.Context(), addrs)
		if err != nil {
			return nil, err
		}
		items := make([]*holderItem, len(list))
		for i := range list {
			b := &list[i]
			items[i] = &holderItem{Address: c.param(b.Holder), Token: tokenObj(t), TokenID: dec(b.TokenID), Value: b.Value.String()}
		}
		return items, nil
	}, func(last *explorer.TokenBalance, n uint64) any {
		return holderValuePosition{AddressHash: last.Holder.Hex(), ItemsCount: n, TokenID: dec(last.TokenID), Value: last.Value.String()}
	})
}

func (h *handlers) tokenHolders(r *request) (any, error) {
	t, err := h.tokenParam(r)
	if err != nil {
		return nil, err
	}
	after, err := h.tokenHolderCursor(r, "address_hash")
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	list, err := h.b.Store.TokenHolders(r.Context(), t.Address, nil, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.tokenHolderPage(r, t, list, count)
}

// tokenInstances lists a token's instances by id, highest first
// (holder_address_hash keeps one holder's).
func (h *handlers) tokenInstances(r *request) (any, error) {
	t, err := h.tokenParam(r)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	var holder *common.Address
	if s := q.Get("holder_address_hash"); s != "" {
		a, ok := h.parseAddress(s)
		if !ok {
			return nil, invalid("Invalid holder_address_hash: " + s)
		}
		holder = &a
	}
	var after explorer.InstanceCursor
	if s := q.Get("unique_token"); s != "" {
		id, ok := parseTokenID(s)
		if !ok {
			return nil, invalid("Invalid unique_token: " + s)
		}
		after = explorer.InstanceCursor{Set: true, TokenID: id}
	}
	list, err := h.b.Store.Instances(r.Context(), t.Address, holder, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(list, 0, func(list []explorer.TokenInstance) ([]*instanceItem, error) {
		var owners []common.Address
		for i := range list {
			if list[i].Owner != nil {
				owners = append(owners, *list[i].Owner)
			}
		}
		c, err := h.contractsOf(r.Context(), owners)
		if err != nil {
			return nil, err
		}
		items := make([]*instanceItem, len(list))
		for i := range list {
			items[i] = instanceJSON(&list[i], t, c, h.log)
		}
		return items, nil
	}, func(last *explorer.TokenInstance, _ uint64) any {
		return instancePosition{UniqueToken: last.TokenID.String()}
	})
}

func (h *handlers) tokenInstance(r *request) (any, error) {
	t, in, err := h.instanceParam(r)
	if err != nil {
		return nil, err
	}
	var owners []common.Address
	if in.Owner != nil {
		owners = append(owners, *in.Owner)
	}
	c, err := h.contractsOf(r.Context(), owners)
	if err != nil {
		return nil, err
	}
	return instanceJSON(in, t, c, h.log), nil
}

func (h *handlers) instanceTransfers(r *request) (any, error) {
	t, in, err := h.instanceParam(r)
	if err != nil {
		return nil, err
	}
	return h.listTransfers(r, explorer.TransferFilter{Token: &t.Address, TokenID: in.TokenID}, ptr(in.TokenID.String()))
}

func (h *handlers) instanceTransfersCount(r *request) (any, error) {
	t, in, err := h.instanceParam(r)
	if err != nil {
		return nil, err
	}
	n, err := h.b.Store.CountTokenTransfers(r.Context(), explorer.TransferFilter{Token: &t.Address, TokenID: in.TokenID})
	if err != nil {
		return nil, err
	}
	return transfersCount{Count: n}, nil
}

// instanceHolders lists who holds an instance: its owner for ERC-721 (none
// once burnt), the holders of the id for ERC-1155.
func (h *handlers) instanceHolders(r *request) (any, error) {
	t, in, err := h.instanceParam(r)
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	if in.Type == explorer.ERC721 {
		var list []explorer.TokenBalance
		if in.Owner != nil && (*in.Owner != common.Address{}) && r.URL.Query().Get("value") == "" {
			list = append(list, explorer.TokenBalance{Holder: *in.Owner, Token: t.Address, Type: in.Type, Value: big.NewInt(1)})
		}
		return h.tokenHolderPage(r, t, list, count)
	}
	after, err := h.tokenHolderCursor(r, "address_hash")
	if err != nil {
		return nil, err
	}
	list, err := h.b.Store.TokenHolders(r.Context(), t.Address, in.TokenID, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return h.tokenHolderPage(r, t, list, count)
}

// refetchMetadata queues an instance's metadata to be fetched again and
// answers as Blockscout does ({"message":"OK"}). Blockscout also wants a
// reCAPTCHA response in the body; there is no reCAPTCHA here, so the body
// is not read.
func (h *handlers) refetchMetadata(r *request) (any, error) {
	t, in, err := h.instanceParam(r)
	if err != nil {
		return nil, err
	}
	if err := h.b.Store.RefetchInstance(r.Context(), t.Address, in.TokenID); err != nil {
		return nil, err
	}
	if h.b.RefetchMetadata != nil {
		h.b.RefetchMetadata()
	}
	return message("OK"), nil
}

// balanceItems renders token balances with their tokens and instances.
func (h *handlers) balanceItems(ctx context.Context, list []explorer.TokenBalance) ([]*balanceItem, error) {
	v, err := h.balanceView(ctx, list)
	if err != nil {
		return nil, err
	}
	items := make([]*balanceItem, len(list))
	for i := range list {
		b := &list[i]
		items[i] = &balanceItem{Token: tokenObj(v.tokens[b.Token]), Value: b.Value.String()}
		if b.TokenID != nil {
			items[i].TokenID, items[i].TokenInstance = ptr(b.TokenID.String()), v.instance(b.Token, b.TokenID)
		}
	}
	return items, nil
}

// nftItems renders NFT balances as their instances with the value held.
func (h *handlers) nftItems(ctx context.Context, list []explorer.TokenBalance) ([]*instanceItem, error) {
	v, err := h.balanceView(ctx, list)
	if err != nil {
		return nil, err
	}
	items := make([]*instanceItem, len(list))
	for i := range list {
		b := &list[i]
		in := v.instances[b.Token][b.TokenID.String()]
		if in == nil {
			in = &explorer.TokenInstance{Token: b.Token, Type: b.Type, TokenID: b.TokenID}
		}
		items[i] = instanceJSON(in, v.tokens[b.Token], v.c, v.log)
		items[i].Value = ptr(b.Value.String())
	}
	return items, nil
}

// balanceView loads the tokens and instances a list of balances renders
// with.
func (h *handlers) balanceView(ctx context.Context, list []explorer.TokenBalance) (*tokenView, error) {
	var tokens []common.Address
	ids := map[common.Address][]*big.Int{}
	for i := range list {
		tokens = append(tokens, list[i].Token)
		if list[i].TokenID != nil {
			ids[list[i].Token] = append(ids[list[i].Token], list[i].TokenID)
		}
	}
	return h.view(ctx, tokens, ids, nil)
}

// balanceCursor reads the (value, token_contract_address_hash, token_id)
// position of an address's balances.
func (h *handlers) balanceCursor(r *request) (explorer.HolderPosition, error) {
	return h.tokenHolderCursor(r, "token_contract_address_hash")
}

// tokenBalanceLimit bounds the bare array of /token-balances.
const tokenBalanceLimit = 1000

func (h *handlers) addressTokenBalances(r *request) (any, error) {
	a, err := h.knownAddress(r)
	if err != nil {
		return nil, err
	}
	list, err := h.b.Store.AddressTokenBalances(r.Context(), a.Hash, nil, explorer.HolderPosition{}, tokenBalanceLimit)
	if err != nil {
		return nil, err
	}
	items, err := h.balanceItems(r.Context(), list)
	if items == nil {
		items = []*balanceItem{}
	}
	return items, err
}

func (h *handlers) addressTokens(r *request) (any, error) {
	a, err := h.knownAddress(r)
	if err != nil {
		return nil, err
	}
	types, err := parseTypes(r.URL.Query().Get("type"))
	if err != nil {
		return nil, err
	}
	after, err := h.balanceCursor(r)
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	list, err := h.b.Store.AddressTokenBalances(r.Context(), a.Hash, types, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	var lastName *string // the last item's token name, which the next page's params repeat
	return keysetPage(list, count, func(list []explorer.TokenBalance) ([]*balanceItem, error) {
		items, err := h.balanceItems(r.Context(), list)
		if n := len(items); n > 0 && items[n-1].Token != nil {
			lastName = items[n-1].Token.Name
		}
		return items, err
	}, func(last *explorer.TokenBalance, n uint64) any {
		return balancePosition{ItemsCount: n, Token: last.Token.Hex(), TokenID: dec(last.TokenID), TokenName: lastName,
			TokenType: last.Type, Value: last.Value.String()}
	})
}

// nftCursor reads the (token_contract_address_hash[, token_id]) position
// of an address's NFTs or collections.
func (h *handlers) nftCursor(r *request, withID bool) (explorer.NFTCursor, error) {
	q := r.URL.Query()
	s := q.Get("token_contract_address_hash")
	if s == "" {
		return explorer.NFTCursor{}, nil
	}
	a, ok := h.parseAddress(s)
	if !ok {
		return explorer.NFTCursor{}, invalid("Invalid token_contract_address_hash: " + s)
	}
	c := explorer.NFTCursor{Set: true, Token: a, TokenID: new(big.Int)}
	if withID {
		id, ok := parseTokenID(q.Get("token_id"))
		if !ok {
			return explorer.NFTCursor{}, invalid("Invalid token_id: " + q.Get("token_id"))
		}
		c.TokenID = id
	}
	return c, nil
}

// nftTypes reads type= of the NFT lists (ERC-20 makes no sense there).
func nftTypes(r *request) ([]string, error) {
	types, err := parseTypes(r.URL.Query().Get("type"))
	if err != nil {
		return nil, err
	}
	for _, t := range types {
		if t == explorer.ERC20 {
			return nil, invalid("Invalid type: ERC-20 tokens are not NFTs")
		}
	}
	return types, nil
}

func (h *handlers) addressNFTs(r *request) (any, error) {
	a, err := h.knownAddress(r)
	if err != nil {
		return nil, err
	}
	types, err := nftTypes(r)
	if err != nil {
		return nil, err
	}
	after, err := h.nftCursor(r, true)
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	list, err := h.b.Store.AddressNFTs(r.Context(), a.Hash, types, nil, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(list, count, func(list []explorer.TokenBalance) ([]*instanceItem, error) {
		return h.nftItems(r.Context(), list)
	}, func(last *explorer.TokenBalance, n uint64) any {
		return nftPosition{ItemsCount: n, Token: last.Token.Hex(), TokenID: ptr(last.TokenID.String()), TokenType: last.Type}
	})
}

// collectionInstances is how many instances a collection item shows.
const collectionInstances = 20

// collectionLimit bounds the NFTs of one collection summed into its amount.
const collectionLimit = 10000

func (h *handlers) addressNFTCollections(r *request) (any, error) {
	a, err := h.knownAddress(r)
	if err != nil {
		return nil, err
	}
	types, err := nftTypes(r)
	if err != nil {
		return nil, err
	}
	after, err := h.nftCursor(r, false)
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	tokens, err := h.b.Store.AddressNFTTokens(r.Context(), a.Hash, types, after, PageSize+1)
	if err != nil {
		return nil, err
	}
	var infos map[common.Address]*explorer.Token
	return keysetPage(tokens, count, func(tokens []common.Address) ([]*collectionItem, error) {
		if infos, err = h.b.Store.TokensOf(r.Context(), tokens); err != nil {
			return nil, err
		}
		items := make([]*collectionItem, len(tokens))
		for i, token := range tokens {
			if items[i], err = h.collection(r, a.Hash, types, token, infos[token]); err != nil {
				return nil, err
			}
		}
		return items, nil
	}, func(last *common.Address, n uint64) any {
		typ := ""
		if t := infos[*last]; t != nil {
			typ = t.Type
		}
		return nftPosition{ItemsCount: n, Token: last.Hex(), TokenType: typ}
	})
}

// collection is one item of an address's NFT collections: how many of the
// token it holds, and the first of its instances.
func (h *handlers) collection(r *request, holder common.Address, types []string, token common.Address, info *explorer.Token) (*collectionItem, error) {
	list, err := h.b.Store.AddressNFTs(r.Context(), holder, types, &token, explorer.NFTCursor{}, collectionLimit)
	if err != nil {
		return nil, err
	}
	amount := new(big.Int)
	for _, b := range list {
		amount.Add(amount, b.Value)
	}
	items, err := h.nftItems(r.Context(), list[:min(len(list), collectionInstances)])
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		it.Token = nil
	}
	return &collectionItem{Amount: amount.String(), Token: tokenObj(info), TokenInstances: items}, nil
}

// tokenTransfersInTx is how many transfers a transaction object embeds, as
// Blockscout's; token_transfers_overflow tells there are more.
const tokenTransfersInTx = 50

// fillTxTokenTransfers sets token_transfers (and the token_transfer
// transaction type) on rendered transactions.
func (h *handlers) fillTxTokenTransfers(ctx context.Context, txs []explorer.Tx, items []*txItem) error {
	if len(txs) == 0 {
		return nil
	}
	hashes := make([]common.Hash, len(txs))
	for i := range txs {
		hashes[i] = txs[i].Hash
	}
	byTx, err := h.b.Store.TxTokenTransfers(ctx, hashes, tokenTransfersInTx+1)
	if err != nil {
		return err
	}
	var all []explorer.TokenTransfer
	for _, list := range byTx {
		all = append(all, list...)
	}
	if len(all) == 0 {
		return nil
	}
	v, err := h.transferView(ctx, all)
	if err != nil {
		return err
	}
	for i := range txs {
		list := byTx[txs[i].Hash]
		if len(list) == 0 {
			continue
		}
		items[i].TokenTransfersMore = len(list) > tokenTransfersInTx
		list = list[:min(len(list), tokenTransfersInTx)]
		out := make([]*transferItem, len(list))
		for j := range list {
			out[j] = v.transferJSON(&list[j])
		}
		items[i].TokenTransfers = out
		items[i].TxTypes = append([]string{"token_transfer"}, items[i].TxTypes...)
	}
	return nil
}

// addTokenFields fills an address object's token facts: has_tokens,
// has_token_transfers, and token for a token contract.
func (h *handlers) addTokenFields(ctx context.Context, addr common.Address, o *addressItem) error {
	hasTokens, err := h.b.Store.HasTokens(ctx, addr)
	if err != nil {
		return err
	}
	hasTransfers, err := h.b.Store.HasTokenTransfers(ctx, addr)
	if err != nil {
		return err
	}
	o.HasTokens, o.HasTokenTransfers = hasTokens, hasTransfers
	t, err := h.b.Store.Token(ctx, addr)
	if err == nil {
		o.Token = tokenObj(t)
	} else if err != explorer.ErrNotFound {
		return err
	}
	return nil
}

// tokenSearch finds tokens whose name or symbol contains q.
func (h *handlers) tokenSearch(ctx context.Context, q string) ([]any, error) {
	if q == "" || len(q) > 256 {
		return nil, nil
	}
	list, err := h.b.Store.Tokens(ctx, q, nil, explorer.TokenCursor{}, PageSize)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(list))
	for i := range list {
		t := &list[i]
		a := t.Address.Hex()
		out[i] = tokenHit{Address: a, AddressHash: a, AddressURL: "/address/" + a, HoldersCount: u64(t.HoldersCount),
			Name: t.Name, Reputation: "ok", Symbol: t.Symbol, TokenType: t.Type, TokenURL: "/token/" + a,
			TotalSupply: dec(t.TotalSupply), Type: "token"}
	}
	return out, nil
}
