package api

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/explorer"
)

// Native (Cosmos-format) transactions have no EVM hash, receipt or input,
// but are transactions of the chain all the same. /transactions/{hash}
// answers one in Blockscout's Transaction shape (so Blockscout clients find
// it by its CometBFT hash) with a "native" member holding its messages and
// ABCI result; its "type" is null and its transaction_types ["native"].
// Blockscout's lists of a block's or an address's transactions stay EVM
// only (their keyset cursors are EVM positions); native ones are listed by
// /blocks/{id}/native-transactions and /addresses/{hash}/native-transactions.

// nativeInfo is the "native" member of a native transaction.
type nativeInfo struct {
	Code      uint32          `json:"code"` // ABCI result code: 0 succeeded
	Codespace string          `json:"codespace"`
	GasWanted string          `json:"gas_wanted"`
	Log       string          `json:"log"`
	Memo      string          `json:"memo"`
	Messages  []nativeMsgItem `json:"messages"`
}

// nativeMsgItem is one message: its type URL and the fields its type has.
type nativeMsgItem struct {
	Amount            *string     `json:"amount"` // base denomination
	Moniker           *string     `json:"moniker"`
	To                *addressRef `json:"to"`
	Type              string      `json:"type"`
	Validator         *addressRef `json:"validator"`          // the operator's account
	ValidatorOperator *string     `json:"validator_operator"` // embervaloper1…
}

func (h *handlers) nativeRoutes(mux *http.ServeMux) {
	mux.Handle("GET /api/v2/blocks/{id}/native-transactions", h.serve(h.blockNativeTxs))
	mux.Handle("GET /api/v2/addresses/{hash}/native-transactions", h.serve(h.addressNativeTxs))
	mux.Handle("GET /api/v2/native-transactions", h.serve(h.nativeTxs))
	mux.Handle("GET /api/v2/native-transactions/counters", h.serve(h.nativeCounters))
}

// nativeTx answers /transactions/{hash} for a hash no EVM transaction has.
func (h *handlers) nativeTx(ctx context.Context, hash common.Hash) (any, error) {
	t, err := h.b.Store.NativeTx(ctx, hash)
	if err != nil {
		return nil, err
	}
	items, err := h.nativeItems(ctx, []explorer.NativeTx{*t})
	if err != nil {
		return nil, err
	}
	return items[0], nil
}

// blockNativeTxs lists a block's native transactions in block order; the
// cursor is the next position.
func (h *handlers) blockNativeTxs(r *request) (any, error) {
	b, err := h.findBlock(r)
	if err != nil {
		return nil, err
	}
	start, count, err := r.inBlockCursor()
	if err != nil {
		return nil, err
	}
	txs, err := h.b.Store.BlockNativeTxs(r.Context(), b.Number, start, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(txs, count, func(txs []explorer.NativeTx) ([]*txItem, error) { return h.nativeItems(r.Context(), txs) },
		func(last *explorer.NativeTx, n uint64) any {
			return txPosition{BlockNumber: b.Number, Index: last.Position + 1, ItemsCount: n}
		})
}

// addressNativeTxs lists the native transactions an address sent or a
// message of which named it, newest first.
func (h *handlers) addressNativeTxs(r *request) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	after, err := r.txCursor()
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	txs, err := h.b.Store.AddressNativeTxs(r.Context(), addr,
		explorer.NativeCursor{Set: after.Set, BlockNumber: after.BlockNumber, Position: after.Index}, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(txs, count, func(txs []explorer.NativeTx) ([]*txItem, error) { return h.nativeItems(r.Context(), txs) },
		func(last *explorer.NativeTx, n uint64) any {
			return txPosition{BlockNumber: last.BlockNumber, Index: last.Position, ItemsCount: n}
		})
}

// nativeTxs lists the chain's native transactions, newest first, with the
// cursor of /transactions (block_number, index: the position).
func (h *handlers) nativeTxs(r *request) (any, error) {
	after, err := r.txCursor()
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	txs, err := h.b.Store.NativeTxs(r.Context(),
		explorer.NativeCursor{Set: after.Set, BlockNumber: after.BlockNumber, Position: after.Index}, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(txs, count, func(txs []explorer.NativeTx) ([]*txItem, error) { return h.nativeItems(r.Context(), txs) },
		func(last *explorer.NativeTx, n uint64) any {
			return txPosition{BlockNumber: last.BlockNumber, Index: last.Position, ItemsCount: n}
		})
}

// TxKindCounters is /api/v2/native-transactions/counters: the chain's
// transactions as /stats counts them (total_transactions, the home
// page's counter), split into the EVM and the native ones.
type TxKindCounters struct {
	EVM    string `json:"evm_transactions_count"`
	Native string `json:"native_transactions_count"`
	Total  string `json:"transactions_count"`
}

func (h *handlers) nativeCounters(r *request) (any, error) {
	st, err := h.b.Store.Stats(r.Context(), h.b.Now().Unix())
	if err != nil {
		return nil, err
	}
	native, err := h.b.Store.NativeTxCount(r.Context())
	if err != nil {
		return nil, err
	}
	evm := uint64(0)
	if st.Transactions > native { // read apart: a batch may land between them
		evm = st.Transactions - native
	}
	return TxKindCounters{EVM: u64(evm), Native: u64(native), Total: u64(evm + native)}, nil
}

// nativeItems renders native transactions, the contracts among their
// addresses looked up in one query.
func (h *handlers) nativeItems(ctx context.Context, txs []explorer.NativeTx) ([]*txItem, error) {
	var addrs []common.Address
	for i := range txs {
		addrs = append(addrs, txs[i].Addresses()...)
	}
	c, err := h.contractsOf(ctx, addrs)
	if err != nil {
		return nil, err
	}
	head := h.head()
	items := make([]*txItem, len(txs))
	for i := range txs {
		if items[i], err = nativeTxJSON(&txs[i], head, c, accounts.NewPrefixes(h.b.Prefix)); err != nil {
			return nil, err
		}
	}
	return items, nil
}

func nativeTxJSON(t *explorer.NativeTx, head uint64, c contracts, p accounts.Prefixes) (*txItem, error) {
	var to *common.Address // the first message's counterpart
	if len(t.Msgs) > 0 {
		if to = t.Msgs[0].To; to == nil {
			to = t.Msgs[0].Validator
		}
	}
	o := baseTxJSON(t.Hash, t.Sender, to, t.Value, t.GasWanted, t.Sequence, 0, nil, nil, nil, c)
	o.Type = nil
	o.Method = ptr(nativeMethod(t.Msgs))
	o.BlockNumber = &t.BlockNumber
	o.BlockHash = ptr(t.BlockHash.Hex())
	o.Timestamp = ptr(isoTime(t.Time))
	if head >= t.BlockNumber {
		o.Confirmations = head - t.BlockNumber + 1
	}
	o.Position = &t.Position
	status, result := "ok", "success"
	if t.Code != 0 {
		status, result = "error", t.Log
	}
	o.Status, o.Result = &status, result
	o.Fee = fee{Type: "actual", Value: t.Fee.String()}
	o.GasUsed = ptr(u64(t.GasUsed))
	o.GasPrice = "0"
	if t.GasWanted > 0 {
		o.GasPrice = new(big.Int).Quo(t.Fee, new(big.Int).SetUint64(t.GasWanted)).String()
	}
	o.BurntFee = ptr(t.BurntFee.String())
	o.PriorityFee = ptr(new(big.Int).Sub(t.Fee, t.BurntFee).String())
	o.TxTypes = []string{"native"}
	info := &nativeInfo{Code: t.Code, Codespace: t.Codespace, GasWanted: u64(t.GasWanted), Log: t.Log, Memo: t.Memo,
		Messages: make([]nativeMsgItem, len(t.Msgs))}
	for i, m := range t.Msgs {
		item := nativeMsgItem{Type: m.Type, Amount: dec(m.Amount), To: c.optParam(m.To), Validator: c.optParam(m.Validator)}
		if m.Moniker != "" {
			item.Moniker = ptr(m.Moniker)
		}
		if m.Validator != nil {
			op, err := p.Encode(accounts.KindValidator, m.Validator[:])
			if err != nil {
				return nil, err
			}
			item.ValidatorOperator = &op
		}
		info.Messages[i] = item
	}
	o.Native = info
	return o, nil
}

// nativeMethod names a native transaction by its messages' types, as the
// method column of a list would: "MsgSend", "MsgDelegate, MsgSend".
func nativeMethod(msgs []explorer.NativeMsg) string {
	names := make([]string, len(msgs))
	for i, m := range msgs {
		names[i] = m.Type[strings.LastIndex(m.Type, ".")+1:]
	}
	return strings.Join(names, ", ")
}

// isNotFound tells a lookup that found nothing from one that failed.
func isNotFound(err error) bool { return errors.Is(err, explorer.ErrNotFound) }
