package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// one runs a single-row query and maps no row to explorer.ErrNotFound.
func one[T any](ctx context.Context, s *Store, scan func(scanner) (*T, error), q string, args ...any) (*T, error) {
	v, err := scan(s.db.QueryRowContext(ctx, s.d.rebind(q), args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, explorer.ErrNotFound
	}
	return v, err
}

// many runs a query and scans every row.
func many[T any](ctx context.Context, s *Store, scan func(scanner) (*T, error), q string, args ...any) ([]T, error) {
	rows, err := s.db.QueryContext(ctx, s.d.rebind(q), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *v)
	}
	return out, rows.Err()
}

// Block implements explorer.Store.
func (s *Store) Block(ctx context.Context, number uint64) (*explorer.Block, error) {
	return one(ctx, s, s.scanBlock, `SELECT `+blockCols+` FROM blocks WHERE number = ?`, int64(number))
}

// BlockByHash implements explorer.Store.
func (s *Store) BlockByHash(ctx context.Context, hash common.Hash) (*explorer.Block, error) {
	return one(ctx, s, s.scanBlock, `SELECT `+blockCols+` FROM blocks WHERE hash = ?`, key(hash[:]))
}

// BlockByCometHash implements explorer.Store.
func (s *Store) BlockByCometHash(ctx context.Context, hash common.Hash) (*explorer.Block, error) {
	return one(ctx, s, s.scanBlock, `SELECT `+blockCols+` FROM blocks WHERE comet_hash = ?`, key(hash[:]))
}

// Blocks implements explorer.Store.
func (s *Store) Blocks(ctx context.Context, before *uint64, limit int) ([]explorer.Block, error) {
	if before == nil {
		return many(ctx, s, s.scanBlock, `SELECT `+blockCols+` FROM blocks ORDER BY number DESC LIMIT ?`, limit)
	}
	return many(ctx, s, s.scanBlock, `SELECT `+blockCols+` FROM blocks WHERE number < ? ORDER BY number DESC LIMIT ?`,
		int64(*before), limit)
}

// Tx implements explorer.Store.
func (s *Store) Tx(ctx context.Context, hash common.Hash) (*explorer.Tx, error) {
	return one(ctx, s, s.scanTx, `SELECT `+txCols+` FROM transactions t WHERE t.hash = ?`, key(hash[:]))
}

// keyset is the condition "strictly after cursor" in (block, index)
// descending order, and its arguments; empty for the first page. The
// leading "block <= ?" is implied by the rest but is what lets both engines
// start the index scan at the cursor: with the OR alone they walk the index
// from the newest row down to it, so deep pages got slower with depth.
func keyset(blockCol, indexCol string, after explorer.TxCursor) (string, []any) {
	if !after.Set {
		return "", nil
	}
	return ` AND ` + blockCol + ` <= ? AND (` + blockCol + ` < ? OR ` + indexCol + ` < ?)`,
		[]any{int64(after.BlockNumber), int64(after.BlockNumber), after.Index}
}

// Txs implements explorer.Store.
func (s *Store) Txs(ctx context.Context, after explorer.TxCursor, limit int) ([]explorer.Tx, error) {
	cond, args := keyset("t.block_number", "t.tx_index", after)
	return many(ctx, s, s.scanTx, `SELECT `+txCols+` FROM transactions t WHERE 1 = 1`+cond+
		` ORDER BY t.block_number DESC, t.tx_index DESC LIMIT ?`, append(args, limit)...)
}

// BlockTxs implements explorer.Store.
func (s *Store) BlockTxs(ctx context.Context, number uint64, from int, limit int) ([]explorer.Tx, error) {
	return many(ctx, s, s.scanTx, `SELECT `+txCols+` FROM transactions t WHERE t.block_number = ? AND t.tx_index >= ?
		ORDER BY t.tx_index LIMIT ?`, int64(number), from, limit)
}

// AddressTxs implements explorer.Store.
func (s *Store) AddressTxs(ctx context.Context, addr common.Address, side explorer.AddressFilter, after explorer.TxCursor, limit int) ([]explorer.Tx, error) {
	var q strings.Builder
	q.WriteString(`SELECT ` + txCols + ` FROM address_txs a JOIN transactions t
		ON t.block_number = a.block_number AND t.tx_index = a.tx_index WHERE a.address = ?`)
	switch side {
	case explorer.FromSide:
		q.WriteString(` AND a.sent = 1`)
	case explorer.ToSide:
		q.WriteString(` AND a.received = 1`)
	}
	cond, args := keyset("a.block_number", "a.tx_index", after)
	q.WriteString(cond + ` ORDER BY a.block_number DESC, a.tx_index DESC LIMIT ?`)
	args = append([]any{addrKey(addr)}, args...)
	return many(ctx, s, s.scanTx, q.String(), append(args, limit)...)
}

// TxLogs implements explorer.Store.
func (s *Store) TxLogs(ctx context.Context, hash common.Hash, from uint, limit int) ([]explorer.Log, error) {
	return many(ctx, s, s.scanLog, `SELECT `+logCols+` FROM logs WHERE tx_hash = ? AND log_index >= ?
		ORDER BY log_index LIMIT ?`, key(hash[:]), int64(from), limit)
}

// Address implements explorer.Store.
func (s *Store) Address(ctx context.Context, addr common.Address) (*explorer.Address, error) {
	return one(ctx, s, s.scanAddress, `SELECT `+addressCols+` FROM addresses WHERE hash = ?`, addrKey(addr))
}

// Contracts implements explorer.Store.
func (s *Store) Contracts(ctx context.Context, addrs []common.Address) (map[common.Address]bool, error) {
	out := make(map[common.Address]bool, len(addrs))
	if len(addrs) == 0 {
		return out, nil
	}
	args := distinctKeys(addrs)
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT hash FROM addresses WHERE is_contract = 1 AND hash IN (?`+
		strings.Repeat(", ?", len(args)-1)+`)`), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out[common.HexToAddress(h)] = true
	}
	return out, rows.Err()
}

// distinctKeys are the stored spellings of addrs, each once, as the
// arguments of an IN list: a page names the same busy accounts many times
// (50 transactions, 100 addresses, often half as many distinct), and each
// value is one index probe.
func distinctKeys(addrs []common.Address) []any {
	seen := make(map[common.Address]bool, len(addrs))
	out := make([]any, 0, len(addrs))
	for _, a := range addrs {
		if !seen[a] {
			seen[a] = true
			out = append(out, addrKey(a))
		}
	}
	return out
}

// BalanceHistory implements explorer.Store.
func (s *Store) BalanceHistory(ctx context.Context, addr common.Address, before *uint64, limit int) ([]explorer.BalanceChange, error) {
	q := `SELECT c.address, c.block_number, b.timestamp, c.value, c.delta, c.tx_hash FROM coin_balances c
		JOIN blocks b ON b.number = c.block_number WHERE c.address = ?`
	args := []any{addrKey(addr)}
	if before != nil {
		q += ` AND c.block_number < ?`
		args = append(args, int64(*before))
	}
	q += ` ORDER BY c.block_number DESC LIMIT ?`
	return many(ctx, s, s.scanBalance, q, append(args, limit)...)
}

func (s *Store) scanBalance(r scanner) (*explorer.BalanceChange, error) {
	var (
		b                  explorer.BalanceChange
		addr, value, delta string
		num, ts            int64
		txHash             sql.NullString
	)
	if err := r.Scan(&addr, &num, &ts, &value, &delta, &txHash); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	b.Address, b.BlockNumber, b.Time, b.Value, b.TxHash = c.addr(addr), uint64(num), uint64(ts), c.wei(value), c.optHash(txHash)
	d, ok := new(big.Int).SetString(delta, 10)
	if !ok && c.err == nil {
		c.err = errors.New("bad balance delta in database")
	}
	b.Delta = d
	return &b, c.err
}

// recentBlocks is how many blocks the average block time is taken over.
const recentBlocks = 100

// Stats implements explorer.Store.
func (s *Store) Stats(ctx context.Context, nowUnix int64) (*explorer.Stats, error) {
	var st explorer.Stats
	height, ok, err := s.counter(ctx, s.db, ctrHeight)
	if err != nil || !ok {
		return &st, err
	}
	st.Blocks = height + 1
	for name, dst := range map[string]*uint64{ctrTxs: &st.Transactions, ctrAddresses: &st.Addresses, ctrGasUsed: &st.GasUsed} {
		if *dst, _, err = s.counter(ctx, s.db, name); err != nil {
			return nil, err
		}
	}
	// Today's totals (and any later day's, as the blocks' sum did) from
	// the per-day totals: summing today's blocks read 86,400 rows a day
	// at one-second blocks.
	var txs, gas int64
	if err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT COALESCE(SUM(tx_count), 0), COALESCE(SUM(gas_used), 0)
		FROM daily_totals WHERE day >= ?`), nowUnix/secondsPerDay).Scan(&txs, &gas); err != nil {
		return nil, err
	}
	st.TxsToday, st.GasUsedToday = uint64(txs), uint64(gas)
	var first, last, count, used, limit int64
	if err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT COALESCE(MIN(timestamp), 0), COALESCE(MAX(timestamp), 0), COUNT(*),
		COALESCE(SUM(gas_used), 0), COALESCE(SUM(gas_limit), 0) FROM blocks WHERE number > ?`),
		int64(height)-recentBlocks).Scan(&first, &last, &count, &used, &limit); err != nil {
		return nil, err
	}
	if count > 1 {
		st.AvgBlockMilli = float64(last-first) * 1000 / float64(count-1)
	}
	if limit > 0 {
		st.Utilization = float64(used) * 100 / float64(limit)
	}
	return &st, nil
}

// HasLogs implements explorer.Store.
func (s *Store) HasLogs(ctx context.Context, addr common.Address) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT 1 FROM logs WHERE address = ? LIMIT 1`), addrKey(addr)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// AddressLogs implements explorer.Store: a range scan of logs_address.
func (s *Store) AddressLogs(ctx context.Context, addr common.Address, after explorer.LogCursor, limit int) ([]explorer.Log, error) {
	cond, args := keyset("block_number", "log_index", explorer.TxCursor{Set: after.Set, BlockNumber: after.BlockNumber, Index: int(after.Index)})
	args = append([]any{addrKey(addr)}, args...)
	return many(ctx, s, s.scanLog, `SELECT `+logCols+` FROM logs WHERE address = ?`+cond+
		` ORDER BY block_number DESC, log_index DESC LIMIT ?`, append(args, limit)...)
}

// MinerBlocks implements explorer.Store: a range scan of blocks_miner.
func (s *Store) MinerBlocks(ctx context.Context, miner common.Address, before *uint64, limit int) ([]explorer.Block, error) {
	q, args := `SELECT `+blockCols+` FROM blocks WHERE miner = ?`, []any{addrKey(miner)}
	if before != nil {
		q += ` AND number < ?`
		args = append(args, int64(*before))
	}
	return many(ctx, s, s.scanBlock, q+` ORDER BY number DESC LIMIT ?`, append(args, limit)...)
}

// TopAddresses implements explorer.Store: a backward scan of
// addresses_balance, which sorts numerically because wei columns do (see
// dialect.encodeWei).
func (s *Store) TopAddresses(ctx context.Context, after explorer.HolderCursor, limit int) ([]explorer.Address, error) {
	q, args := `SELECT `+addressCols+` FROM addresses`, []any{}
	if after.Set {
		bal := s.d.encodeWei(after.Balance)
		q += ` WHERE balance < ? OR (balance = ? AND hash < ?)`
		args = append(args, bal, bal, addrKey(after.Hash))
	}
	return many(ctx, s, s.scanAddress, q+` ORDER BY balance DESC, hash DESC LIMIT ?`, append(args, limit)...)
}

// TotalBalance implements explorer.Store. The sum is taken here rather than
// with SQL SUM, which on SQLite would add the amounts as doubles.
func (s *Store) TotalBalance(ctx context.Context) (*big.Int, error) {
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT balance FROM addresses WHERE balance > ?`), s.d.encodeWei(new(big.Int)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	total := new(big.Int)
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		b, err := s.d.decodeWei(v)
		if err != nil {
			return nil, err
		}
		total.Add(total, b)
	}
	return total, rows.Err()
}

// DailyBalances implements explorer.Store: per day, the change at the
// day's highest block (integer division by 86400 is a UTC day on both
// engines).
func (s *Store) DailyBalances(ctx context.Context, addr common.Address, sinceUnix int64) ([]explorer.BalanceChange, error) {
	a := addrKey(addr)
	return many(ctx, s, s.scanBalance, `SELECT c.address, c.block_number, b.timestamp, c.value, c.delta, c.tx_hash
		FROM coin_balances c JOIN blocks b ON b.number = c.block_number
		WHERE c.address = ? AND c.block_number IN (
			SELECT MAX(c2.block_number) FROM coin_balances c2 JOIN blocks b2 ON b2.number = c2.block_number
			WHERE c2.address = ? AND b2.timestamp >= ? GROUP BY b2.timestamp / 86400)
		ORDER BY c.block_number`, a, a, sinceUnix)
}

// DailyTxCounts implements explorer.Store.
// It reads the per-day totals the indexer keeps (daily_totals): summing the
// blocks of 30 days on each request read 2.6 million rows for a month of
// one-second blocks.
func (s *Store) DailyTxCounts(ctx context.Context, sinceDay int64) (map[int64]uint64, error) {
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT day, tx_count FROM daily_totals WHERE day >= ?`), sinceDay)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]uint64{}
	for rows.Next() {
		var day, count int64
		if err := rows.Scan(&day, &count); err != nil {
			return nil, err
		}
		out[day] = uint64(count)
	}
	return out, rows.Err()
}
