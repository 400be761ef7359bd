package api

// page is Blockscout's list envelope: the items and the keyset position
// the next page starts after (JSON null on the last page). Each list
// declares its own position type, so the params a client echoes back are
// spelled in one place.
type page[T any] struct {
	Items          []T `json:"items"`
	NextPageParams any `json:"next_page_params"`
}

// keysetPage is the one keyset pager every list goes through. rows were
// read with limit PageSize+1: a row beyond PageSize only tells that another
// page exists, and is dropped. render turns the kept rows into items; when
// another page exists, next spells the position after the last kept row,
// given the items_count the client will have seen (the one it sent, plus
// this page).
func keysetPage[R, T any](rows []R, itemsCount uint64, render func([]R) ([]T, error),
	next func(last *R, itemsCount uint64) any) (*page[T], error) {
	more := len(rows) > PageSize
	if more {
		rows = rows[:PageSize]
	}
	items, err := render(rows)
	if err != nil {
		return nil, err
	}
	if items == nil {
		items = []T{}
	}
	p := &page[T]{Items: items}
	if more {
		p.NextPageParams = next(&rows[len(rows)-1], itemsCount+PageSize)
	}
	return p, nil
}

// onePage is a list served whole, without a next page.
func onePage[T any](items []T) *page[T] {
	if items == nil {
		items = []T{}
	}
	return &page[T]{Items: items}
}

// emptyPage is a list with nothing in it and no next page.
func emptyPage() *page[struct{}] { return onePage[struct{}](nil) }

// The next_page_params of the lists. Fields are declared in the order of
// their JSON keys (alphabetical), the order the answers have always had.
type (
	// blockPosition: lists of blocks, and of an address's balance changes.
	blockPosition struct {
		BlockNumber uint64 `json:"block_number"`
		ItemsCount  uint64 `json:"items_count"`
	}
	// txPosition: lists of transactions, newest first; filter repeats
	// /transactions' filter=validated.
	txPosition struct {
		BlockNumber uint64 `json:"block_number"`
		Filter      string `json:"filter,omitempty"`
		Index       int    `json:"index"`
		ItemsCount  uint64 `json:"items_count"`
	}
	// logPosition: an address's logs, newest first.
	logPosition struct {
		BlockNumber uint64 `json:"block_number"`
		Index       uint   `json:"index"`
		ItemsCount  uint64 `json:"items_count"`
		TxIndex     uint   `json:"transaction_index"`
	}
	// txLogPosition: a transaction's logs, in index order.
	txLogPosition struct {
		Index      uint   `json:"index"`
		ItemsCount uint64 `json:"items_count"`
		TxHash     string `json:"transaction_hash"`
	}
	// internalPosition: lists of internal transactions.
	internalPosition struct {
		BlockNumber uint64 `json:"block_number"`
		Index       int    `json:"index"`
		ItemsCount  uint64 `json:"items_count"`
		TxHash      string `json:"transaction_hash"`
		TxIndex     int    `json:"transaction_index"`
	}
	// holderPosition: the richest addresses.
	holderPosition struct {
		Balance    string `json:"fetched_coin_balance"`
		Hash       string `json:"hash"`
		ItemsCount uint64 `json:"items_count"`
	}
	// contractPosition: verified contracts, newest first.
	contractPosition struct {
		ItemsCount uint64 `json:"items_count"`
		ID         int64  `json:"smart_contract_id"`
	}
)

// The next_page_params of the token lists.
type (
	// transferPosition: token transfers; batch_index inside a
	// TransferBatch log, token_id for one instance's transfers.
	transferPosition struct {
		BatchIndex  *int    `json:"batch_index,omitempty"`
		BlockNumber uint64  `json:"block_number"`
		Index       uint    `json:"index"`
		ItemsCount  uint64  `json:"items_count"`
		TokenID     *string `json:"token_id,omitempty"`
	}
	// tokenPosition: tokens by holder count.
	tokenPosition struct {
		Address      string  `json:"contract_address_hash"`
		HoldersCount uint64  `json:"holders_count"`
		IsNameNull   bool    `json:"is_name_null"`
		ItemsCount   uint64  `json:"items_count"`
		MarketCap    null    `json:"market_cap"`
		Name         *string `json:"name"`
	}
	// holderValuePosition: a token's holders by value.
	holderValuePosition struct {
		AddressHash string  `json:"address_hash"`
		ItemsCount  uint64  `json:"items_count"`
		TokenID     *string `json:"token_id,omitempty"`
		Value       string  `json:"value"`
	}
	// instancePosition: a token's instances by id.
	instancePosition struct {
		UniqueToken string `json:"unique_token"`
	}
	// balancePosition: an address's token balances by value.
	balancePosition struct {
		FiatValue  null    `json:"fiat_value"`
		ItemsCount uint64  `json:"items_count"`
		Token      string  `json:"token_contract_address_hash"`
		TokenID    *string `json:"token_id,omitempty"`
		TokenName  *string `json:"token_name"`
		TokenType  string  `json:"token_type"`
		Value      string  `json:"value"`
	}
	// nftPosition: an address's NFTs (with token_id) or collections.
	nftPosition struct {
		ItemsCount uint64  `json:"items_count"`
		Token      string  `json:"token_contract_address_hash"`
		TokenID    *string `json:"token_id,omitempty"`
		TokenType  string  `json:"token_type"`
	}
)
