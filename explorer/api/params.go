package api

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/explorer"
)

// parseHash reads a 32-byte 0x-hex hash.
func parseHash(s string) (common.Hash, bool) {
	if len(s) != 66 || !has0x(s) {
		return common.Hash{}, false
	}
	b, err := hexutil.Decode(s)
	if err != nil {
		return common.Hash{}, false
	}
	return common.BytesToHash(b), true
}

func has0x(s string) bool { return strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") }

// parseAddress reads a 0x-hex or bech32 address.
func (h *handlers) parseAddress(s string) (common.Address, bool) {
	a, err := accounts.ParseAddress(h.b.Prefix, s)
	return a, err == nil
}

// parseUint reads a decimal block number.
func parseUint(s string) (uint64, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 63)
	return v, err == nil
}

func (r *request) hashParam() (common.Hash, error) {
	s := r.PathValue("hash")
	hash, ok := parseHash(s)
	if !ok {
		return common.Hash{}, invalid("Invalid transaction hash")
	}
	return hash, nil
}

func (h *handlers) addressParam(r *request) (common.Address, error) {
	a, ok := h.parseAddress(r.PathValue("hash"))
	if !ok {
		return common.Address{}, invalid("Invalid address hash")
	}
	return a, nil
}

// queryUint reads an optional non-negative integer query parameter.
func (r *request) queryUint(name string) (*uint64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return nil, nil
	}
	v, ok := parseUint(s)
	if !ok {
		return nil, invalid(fmt.Sprintf("Invalid %s: %q is not a non-negative integer", name, s))
	}
	return &v, nil
}

// itemsCount is the running count of items the client has been given.
func (r *request) itemsCount() (uint64, error) {
	v, err := r.queryUint("items_count")
	if err != nil || v == nil {
		return 0, err
	}
	return *v, nil
}

// txCursor reads the (block_number, index) keyset position of a tx list.
func (r *request) txCursor() (explorer.TxCursor, error) {
	block, err := r.queryUint("block_number")
	if err != nil {
		return explorer.TxCursor{}, err
	}
	index, err := r.queryUint("index")
	if err != nil {
		return explorer.TxCursor{}, err
	}
	if block == nil {
		if index != nil {
			return explorer.TxCursor{}, invalid("index needs block_number")
		}
		return explorer.TxCursor{}, nil
	}
	if index == nil {
		// A block number alone starts after the whole block.
		return explorer.TxCursor{Set: true, BlockNumber: *block, Index: 1 << 31}, nil
	}
	if *index > 1<<31 {
		return explorer.TxCursor{}, invalid("Invalid index")
	}
	return explorer.TxCursor{Set: true, BlockNumber: *block, Index: int(*index)}, nil
}

// inBlockCursor reads the position of a list in block order (a block's
// transactions, EVM or native): index is the next one to give, 0 at
// first; and the items_count the client has seen.
func (r *request) inBlockCursor() (start int, itemsCount uint64, err error) {
	from, err := r.queryUint("index")
	if err != nil {
		return 0, 0, err
	}
	if itemsCount, err = r.itemsCount(); err != nil {
		return 0, 0, err
	}
	if from != nil {
		if *from > 1<<31 {
			return 0, 0, invalid("Invalid index")
		}
		start = int(*from)
	}
	return start, itemsCount, nil
}

// logCursor reads the (block_number, index) keyset position of an address's
// logs; transaction_index, which Blockscout also sends, is not needed.
func (r *request) logCursor() (explorer.LogCursor, error) {
	block, err := r.queryUint("block_number")
	if err != nil {
		return explorer.LogCursor{}, err
	}
	index, err := r.queryUint("index")
	if err != nil {
		return explorer.LogCursor{}, err
	}
	if (block == nil) != (index == nil) {
		return explorer.LogCursor{}, invalid("block_number and index go together")
	}
	if block == nil {
		return explorer.LogCursor{}, nil
	}
	if *index > 1<<31 {
		return explorer.LogCursor{}, invalid("Invalid index")
	}
	return explorer.LogCursor{Set: true, BlockNumber: *block, Index: uint(*index)}, nil
}

// holderCursor reads the (fetched_coin_balance, hash) keyset position of
// the top-holders list.
func (h *handlers) holderCursor(r *request) (explorer.HolderCursor, error) {
	q := r.URL.Query()
	bal, hash := q.Get("fetched_coin_balance"), q.Get("hash")
	if bal == "" && hash == "" {
		return explorer.HolderCursor{}, nil
	}
	v, ok := new(big.Int).SetString(bal, 10)
	if !ok || v.Sign() < 0 || len(bal) > weiDigits {
		return explorer.HolderCursor{}, invalid(fmt.Sprintf("Invalid fetched_coin_balance: %q is not a wei amount", bal))
	}
	a, ok := h.parseAddress(hash)
	if !ok {
		return explorer.HolderCursor{}, invalid("Invalid hash: " + hash)
	}
	return explorer.HolderCursor{Set: true, Balance: v, Hash: a}, nil
}

// weiDigits is the length of the largest uint256 in decimal.
const weiDigits = 78

// sideFilter reads filter=from|to of an address's lists: the side the
// address took (any side when absent).
func (r *request) sideFilter() (explorer.AddressFilter, error) {
	switch f := r.URL.Query().Get("filter"); f {
	case "":
		return explorer.AnySide, nil
	case "from":
		return explorer.FromSide, nil
	case "to":
		return explorer.ToSide, nil
	default:
		return explorer.AnySide, invalid("Invalid filter: " + f)
	}
}
