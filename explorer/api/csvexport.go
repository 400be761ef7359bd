package api

import (
	"context"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// csvFile is a handler's answer written as CSV (RFC 4180) instead of JSON.
type csvFile struct {
	name string // the download's file name
	rows [][]string
}

// writeCSV sends f as an attachment.
func writeCSV(w http.ResponseWriter, f *csvFile) {
	h := w.Header()
	h.Set("Content-Type", "application/csv")
	h.Set("Content-Disposition", `attachment; filename="`+f.name+`"`)
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	cw.WriteAll(f.rows) //nolint:errcheck // the client went away: nothing to tell it
}

// csvMaxRows bounds one export, as Blockscout's CSV_EXPORT_LIMIT does.
const csvMaxRows = 10000

// csvBatch is how many rows each store read of an export takes.
const csvBatch = 500

// csvTxHeader is Blockscout's transactions export header.
var csvTxHeader = []string{"TxHash", "BlockNumber", "UnixTimestamp", "FromAddress", "ToAddress", "ContractAddress", "Type",
	"Value", "Fee", "Status", "ErrCode", "CurrentPrice", "TxDateOpeningPrice", "TxDateClosingPrice", "MethodName"}

// csvTransferHeader is Blockscout's token transfers export header, then
// the token id (ERC-721 and ERC-1155), which Ember adds.
var csvTransferHeader = []string{"TxHash", "BlockNumber", "UnixTimestamp", "FromAddress", "ToAddress", "TokenContractAddress",
	"Type", "TokenSymbol", "TokensTransferred", "TransactionFee", "Status", "ErrCode", "TokenID"}

// csvQuery is an export's parameters: the address, the period (unix
// seconds, inclusive) and the side (filter_type=address, filter_value=from|to).
type csvQuery struct {
	addr     common.Address
	from, to uint64
	side     explorer.AddressFilter
}

func (h *handlers) csvParams(r *request) (*csvQuery, error) {
	a, err := h.knownAddress(r)
	if err != nil {
		return nil, err
	}
	q := &csvQuery{addr: a.Hash}
	from, err := parsePeriod(r.URL.Query().Get("from_period"), false)
	if err != nil {
		return nil, invalid("Invalid from_period: " + err.Error())
	}
	to, err := parsePeriod(r.URL.Query().Get("to_period"), true)
	if err != nil {
		return nil, invalid("Invalid to_period: " + err.Error())
	}
	if to < from {
		return nil, invalid("Invalid period: to_period is before from_period")
	}
	q.from, q.to = from, to
	switch ft, fv := r.URL.Query().Get("filter_type"), r.URL.Query().Get("filter_value"); {
	case ft == "" && fv == "":
	case ft == "address" && fv == "from":
		q.side = explorer.FromSide
	case ft == "address" && fv == "to":
		q.side = explorer.ToSide
	default:
		return nil, invalid("Invalid filter: filter_type must be address and filter_value from or to")
	}
	return q, nil
}

// parsePeriod reads an ISO 8601 date (the whole day, UTC: its first second,
// or with end its last) or date and time.
func parsePeriod(s string, end bool) (uint64, error) {
	if s == "" {
		return 0, errString("required (an ISO 8601 date, 2024-01-31, or time, 2024-01-31T12:00:00Z)")
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		if end {
			d = d.Add(24*time.Hour - time.Second)
		}
		return unixOf(d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, errString(strconv.Quote(s) + " is not an ISO 8601 date or time")
	}
	return unixOf(t), nil
}

func unixOf(t time.Time) uint64 {
	if t.Unix() < 0 {
		return 0
	}
	return uint64(t.Unix())
}

type errString string

func (e errString) Error() string { return string(e) }

// addressTxsCSV is /api/v2/addresses/{hash}/transactions/csv: the address's
// transactions of the period, newest first, in Blockscout's columns.
func (h *handlers) addressTxsCSV(r *request) (any, error) {
	q, err := h.csvParams(r)
	if err != nil {
		return nil, err
	}
	txs, err := h.periodTxs(r.Context(), q)
	if err != nil {
		return nil, err
	}
	items, err := h.txItems(r.Context(), txs) // the API's values: method, result
	if err != nil {
		return nil, err
	}
	rows := [][]string{csvTxHeader}
	for i := range txs {
		t, it := &txs[i], items[i]
		kind := "IN"
		if t.From == q.addr {
			kind = "OUT"
		}
		status, errCode := "ok", ""
		if t.Status != 1 {
			status, errCode = "error", it.Result
		}
		method := ""
		if it.Method != nil {
			method = *it.Method
		}
		rows = append(rows, []string{t.Hash.Hex(), u64(t.BlockNumber), u64(t.Time), lower(&t.From), lower(t.To), lower(t.Created),
			kind, t.Value.String(), t.Fee.String(), status, errCode, "", "", "", method})
	}
	return &csvFile{name: "transactions_" + q.addr.Hex() + ".csv", rows: rows}, nil
}

// periodTxs reads the address's transactions of the period, newest first,
// at most csvMaxRows.
func (h *handlers) periodTxs(ctx context.Context, q *csvQuery) ([]explorer.Tx, error) {
	var out []explorer.Tx
	after := explorer.TxCursor{}
	for len(out) < csvMaxRows {
		batch, err := h.b.Store.AddressTxs(ctx, q.addr, q.side, after, csvBatch)
		if err != nil {
			return nil, err
		}
		for _, t := range batch {
			if t.Time < q.from {
				return out, nil
			}
			if t.Time <= q.to && len(out) < csvMaxRows {
				out = append(out, t)
			}
		}
		if len(batch) < csvBatch {
			break
		}
		last := batch[len(batch)-1]
		after = explorer.TxCursor{Set: true, BlockNumber: last.BlockNumber, Index: last.Index}
	}
	return out, nil
}

// addressTransfersCSV is /api/v2/addresses/{hash}/token-transfers/csv: the
// address's token transfers of the period, newest first, with their
// transaction's fee and outcome.
func (h *handlers) addressTransfersCSV(r *request) (any, error) {
	q, err := h.csvParams(r)
	if err != nil {
		return nil, err
	}
	list, err := h.periodTransfers(r.Context(), q)
	if err != nil {
		return nil, err
	}
	v, err := h.transferView(r.Context(), list)
	if err != nil {
		return nil, err
	}
	txs := map[common.Hash]*explorer.Tx{}
	rows := [][]string{csvTransferHeader}
	for i := range list {
		t := &list[i]
		tx := txs[t.TxHash]
		if tx == nil {
			if tx, err = h.b.Store.Tx(r.Context(), t.TxHash); err != nil {
				return nil, err
			}
			txs[t.TxHash] = tx
		}
		rows = append(rows, h.transferRow(r.Context(), q.addr, t, v.tokens[t.Token], tx))
	}
	return &csvFile{name: "token_transfers_" + q.addr.Hex() + ".csv", rows: rows}, nil
}

func (h *handlers) transferRow(ctx context.Context, addr common.Address, t *explorer.TokenTransfer, tok *explorer.Token, tx *explorer.Tx) []string {
	kind := "IN"
	if t.From == addr {
		kind = "OUT"
	}
	symbol, amount, id := "", "", ""
	if tok != nil && tok.Symbol != nil {
		symbol = *tok.Symbol
	}
	if t.Type != explorer.ERC721 { // an ERC-721 transfer moves one token, named by its id (the API's total has no value)
		amount = t.Amount.String()
	}
	if t.TokenID != nil {
		id = t.TokenID.String()
	}
	status, errCode := "ok", ""
	if tx.Status != 1 { // a reverted tx emits no logs, so none of its transfers reaches here; kept so the column says so if one did
		status, errCode = "error", resultReverted
		if f, err := h.failure(ctx, tx.Hash); err == nil && f != nil {
			errCode = f.result()
		}
	}
	return []string{t.TxHash.Hex(), u64(t.BlockNumber), u64(t.Time), lower(&t.From), lower(&t.To), lower(&t.Token),
		kind, symbol, amount, tx.Fee.String(), status, errCode, id}
}

// periodTransfers reads the address's token transfers of the period,
// newest first, at most csvMaxRows.
func (h *handlers) periodTransfers(ctx context.Context, q *csvQuery) ([]explorer.TokenTransfer, error) {
	f := explorer.TransferFilter{Address: &q.addr, Side: q.side}
	var out []explorer.TokenTransfer
	after := explorer.TransferCursor{}
	for len(out) < csvMaxRows {
		batch, err := h.b.Store.TokenTransfers(ctx, f, after, csvBatch)
		if err != nil {
			return nil, err
		}
		for _, t := range batch {
			if t.Time < q.from {
				return out, nil
			}
			if t.Time <= q.to && len(out) < csvMaxRows {
				out = append(out, t)
			}
		}
		if len(batch) < csvBatch {
			break
		}
		last := batch[len(batch)-1]
		after = explorer.TransferCursor{Set: true, BlockNumber: last.BlockNumber, LogIndex: last.LogIndex, BatchIndex: last.BatchIndex}
	}
	return out, nil
}

// lower is an address as Blockscout's exports spell it (lower-case hex),
// "" for none.
func lower(a *common.Address) string {
	if a == nil {
		return ""
	}
	return strings.ToLower(a.Hex())
}
