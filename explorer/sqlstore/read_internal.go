package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

const internalCols = `i.block_number, i.tx_index, i.idx, i.block_index, i.tx_hash, i.timestamp, i.type, i.from_addr,
	i.to_addr, i.created_contract, i.value, i.gas, i.gas_used, i.input, i.output, i.error, i.trace_address`

func (s *Store) scanInternal(r scanner) (*explorer.InternalTx, error) {
	var (
		t                        explorer.InternalTx
		block, ts, gas, gasUsed  int64
		hash, from, value, trace string
		to, created, errText     sql.NullString
	)
	if err := r.Scan(&block, &t.TxIndex, &t.Index, &t.BlockIndex, &hash, &ts, &t.Type, &from, &to, &created, &value,
		&gas, &gasUsed, &t.Input, &t.Output, &errText, &trace); err != nil {
		return nil, err
	}
	c := &decoder{d: s.d}
	t.BlockNumber, t.Time, t.Gas, t.GasUsed = uint64(block), uint64(ts), uint64(gas), uint64(gasUsed)
	t.TxHash, t.From, t.To, t.Created, t.Value = c.hash(hash), c.addr(from), c.optAddr(to), c.optAddr(created), c.wei(value)
	t.Error = errText.String
	if trace != "" {
		for _, p := range strings.Split(trace, ",") {
			v, err := strconv.Atoi(p)
			if err != nil && c.err == nil {
				c.err = err
			}
			t.TraceAddress = append(t.TraceAddress, v)
		}
	}
	return &t, c.err
}

// internalKeyset is the condition for rows strictly after cursor in
// (block, tx index, index) descending order.
func internalKeyset(p string, after explorer.InternalCursor) (string, []any) {
	if !after.Set {
		return "", nil
	}
	b := int64(after.BlockNumber)
	return ` AND ` + p + `block_number <= ? AND (` + p + `block_number < ? OR ` + p + `tx_index < ? OR (` + p + `tx_index = ? AND ` + p + `idx < ?))`,
		[]any{b, b, after.TxIndex, after.TxIndex, after.Index}
}

// InternalTxs implements explorer.Store.
func (s *Store) InternalTxs(ctx context.Context, after explorer.InternalCursor, limit int) ([]explorer.InternalTx, error) {
	cond, args := internalKeyset("i.", after)
	return many(ctx, s, s.scanInternal, `SELECT `+internalCols+` FROM internal_txs i WHERE 1 = 1`+cond+
		` ORDER BY i.block_number DESC, i.tx_index DESC, i.idx DESC LIMIT ?`, append(args, limit)...)
}

// TxInternalTxs implements explorer.Store.
func (s *Store) TxInternalTxs(ctx context.Context, hash common.Hash, from int, limit int) ([]explorer.InternalTx, error) {
	return many(ctx, s, s.scanInternal, `SELECT `+internalCols+` FROM internal_txs i WHERE i.tx_hash = ? AND i.idx >= ?
		ORDER BY i.idx LIMIT ?`, key(hash[:]), from, limit)
}

// AddressInternalTxs implements explorer.Store.
func (s *Store) AddressInternalTxs(ctx context.Context, addr common.Address, side explorer.AddressFilter, after explorer.InternalCursor, limit int) ([]explorer.InternalTx, error) {
	var q strings.Builder
	q.WriteString(`SELECT ` + internalCols + ` FROM address_internal_txs a JOIN internal_txs i
		ON i.block_number = a.block_number AND i.tx_index = a.tx_index AND i.idx = a.idx WHERE a.address = ?`)
	switch side {
	case explorer.FromSide:
		q.WriteString(` AND a.sent = 1`)
	case explorer.ToSide:
		q.WriteString(` AND a.received = 1`)
	}
	cond, args := internalKeyset("a.", after)
	q.WriteString(cond + ` ORDER BY a.block_number DESC, a.tx_index DESC, a.idx DESC LIMIT ?`)
	args = append([]any{addrKey(addr)}, args...)
	return many(ctx, s, s.scanInternal, q.String(), append(args, limit)...)
}

// AddressInternalCount implements explorer.Store.
func (s *Store) AddressInternalCount(ctx context.Context, addr common.Address) (uint64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT count FROM address_internal_counts WHERE address = ?`), addrKey(addr)).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return uint64(n), err
}

// TxsWithInternalErrors implements explorer.Store.
func (s *Store) TxsWithInternalErrors(ctx context.Context, hashes []common.Hash) (map[common.Hash]bool, error) {
	out := make(map[common.Hash]bool, len(hashes))
	if len(hashes) == 0 {
		return out, nil
	}
	args := make([]any, len(hashes))
	for i, h := range hashes {
		args[i] = key(h[:])
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT DISTINCT tx_hash FROM internal_txs WHERE error IS NOT NULL AND tx_hash IN (?`+
		strings.Repeat(", ?", len(hashes)-1)+`)`), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out[common.HexToHash(h)] = true
	}
	return out, rows.Err()
}

// BlockInternalTxs implements explorer.Store.
func (s *Store) BlockInternalTxs(ctx context.Context, number uint64, after explorer.InternalCursor, limit int) ([]explorer.InternalTx, error) {
	q := `SELECT ` + internalCols + ` FROM internal_txs i WHERE i.block_number = ?`
	args := []any{int64(number)}
	if after.Set {
		q += ` AND (i.tx_index > ? OR (i.tx_index = ? AND i.idx > ?))`
		args = append(args, after.TxIndex, after.TxIndex, after.Index)
	}
	return many(ctx, s, s.scanInternal, q+` ORDER BY i.tx_index, i.idx LIMIT ?`, append(args, limit)...)
}

// BlockInternalCount implements explorer.Store.
func (s *Store) BlockInternalCount(ctx context.Context, number uint64) (uint64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT COUNT(*) FROM internal_txs WHERE block_number = ?`), int64(number)).Scan(&n)
	return uint64(n), err
}
