package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/explorer"
)

// Counter names in the counters table. The indexed height is kept there too,
// so that it moves in the same transaction as what it counts.
const (
	ctrHeight    = "indexed_height"
	ctrTxs       = "transactions"
	ctrAddresses = "addresses"
	ctrGasUsed   = "gas_used"
)

// key is the stored spelling of a hash or address: lowercase 0x-hex.
func key(b []byte) string { return hexutil.Encode(b) }

func addrKey(a common.Address) string { return key(a[:]) }

// IndexedHeight implements explorer.Store.
func (s *Store) IndexedHeight(ctx context.Context) (uint64, bool, error) {
	return s.counter(ctx, s.db, ctrHeight)
}

type queryer interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
}

func (s *Store) counter(ctx context.Context, q queryer, name string) (uint64, bool, error) {
	var v int64
	err := q.QueryRowContext(ctx, s.d.rebind(`SELECT value FROM counters WHERE name = ?`), name).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	return uint64(v), true, nil
}

// WriteBlocks implements explorer.Store.
func (s *Store) WriteBlocks(ctx context.Context, blocks []*explorer.IndexedBlock) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		height, ok, err := s.counter(ctx, tx, ctrHeight)
		if err != nil {
			return err
		}
		w := newWriter(ctx, tx, s)
		defer w.closeStmts()
		for _, b := range blocks {
			n := b.Block.Number
			if ok && n <= height {
				continue // already indexed: a replay after a restart
			}
			if ok && n != height+1 {
				return fmt.Errorf("index block %d: the database ends at %d", n, height)
			}
			if err := w.block(b); err != nil {
				return fmt.Errorf("index block %d: %w", n, err)
			}
			if err := w.tokens(b); err != nil { // write_tokens.go
				return fmt.Errorf("index block %d tokens: %w", n, err)
			}
			if err := w.internalTxs(b); err != nil { // write_internal.go
				return fmt.Errorf("index block %d internal transactions: %w", n, err)
			}
			if err := w.nativeTxs(b); err != nil { // native.go
				return fmt.Errorf("index block %d native transactions: %w", n, err)
			}
			if err := w.crashPoint(n); err != nil { // crash.go: tests only
				return err
			}
			height, ok = n, true
		}
		if !ok {
			return nil
		}
		if err := w.flush(); err != nil {
			return err
		}
		if err := w.setCounter(ctrHeight, height); err != nil {
			return err
		}
		if err := w.flushDaily(); err != nil {
			return err
		}
		return w.flushCounters()
	})
}

// writer writes one batch of blocks inside a transaction.
type writer struct {
	ctx context.Context
	tx  *sql.Tx
	s   *Store

	txs, newAddrs, gasUsed uint64              // added by this batch; txs counts EVM and native transactions
	daily                  map[int64]*dayTotal // what this batch adds to each UTC day (daily_totals)

	// addrs are the batch's address rows, in first-touch order, and
	// creations the contracts it created; see flushAddresses.
	addrs     map[common.Address]*addrRow
	addrOrder []common.Address
	creations []explorer.Creation

	// Rows of the plain inserts, written as multi-row statements.
	blockRows, txRows, addrTxRows, logRows, coinRows, tokenTransferRows, addrTokenRows rowBuffer

	// stmts holds each statement prepared once per batch: parsing the SQL
	// again for every row was a quarter of SQLite's indexing time.
	stmts map[string]*sql.Stmt
}

func newWriter(ctx context.Context, tx *sql.Tx, s *Store) *writer {
	return &writer{
		ctx: ctx, tx: tx, s: s,
		blockRows: newRowBuffer(`INSERT INTO blocks (number, hash, parent_hash, miner, timestamp, gas_used, gas_limit,
			base_fee, size, tx_count, state_root, extra_data, nonce, difficulty, burnt_fees, priority_fee, tx_fees, comet_hash)`, 18),
		txRows: newRowBuffer(`INSERT INTO transactions (hash, block_number, tx_index, block_hash, timestamp, from_addr,
			to_addr, created_contract, value, gas, gas_used, gas_price, max_fee, max_tip, base_fee, nonce, type, status,
			input, method_id, fee, burnt_fee)`, 22),
		addrTxRows: newRowBuffer(`INSERT INTO address_txs (address, block_number, tx_index, sent, received)`, 5),
		logRows: newRowBuffer(`INSERT INTO logs (block_number, log_index, block_hash, tx_hash, tx_index, address,
			topic0, topic1, topic2, topic3, data)`, 11),
		coinRows: newRowBuffer(`INSERT INTO coin_balances (address, block_number, value, delta, tx_hash)`, 5),
		tokenTransferRows: newRowBuffer(`INSERT INTO token_transfers (block_number, log_index, batch_index, is_batch, block_hash,
			tx_hash, tx_index, timestamp, token, token_type, from_addr, to_addr, token_id, amount)`, 14),
		addrTokenRows: newRowBuffer(`INSERT INTO address_token_transfers (address, block_number, log_index, batch_index, sent, received)`, 6),
		addrs:         map[common.Address]*addrRow{},
		daily:         map[int64]*dayTotal{},
		stmts:         map[string]*sql.Stmt{},
	}
}

// rowBuffer collects the rows of one INSERT so that they are written a few
// hundred per statement instead of one.
type rowBuffer struct {
	insert string // INSERT INTO t (columns)
	cols   int
	args   []any
}

// stmtParams bounds one statement's parameters, well below SQLite's 32,766
// and PostgreSQL's 65,535.
const stmtParams = 8000

func newRowBuffer(insert string, cols int) rowBuffer {
	return rowBuffer{insert: insert, cols: cols}
}

// insert adds one row (len(args) == b.cols) to b, writing b when full.
func (w *writer) insert(b *rowBuffer, args ...any) error {
	if len(args) != b.cols {
		return fmt.Errorf("insert: %d values for %d columns", len(args), b.cols)
	}
	b.args = append(b.args, args...)
	if len(b.args)+b.cols > stmtParams {
		return w.flushRows(b)
	}
	return nil
}

// execRows runs prefix + "(?, …), (?, …)" + suffix for rows (each the
// same number of columns) in as few statements as stmtParams allows. For
// inserts whose rows come in varying numbers per block; rowBuffer is for
// those written once per batch.
func (w *writer) execRows(prefix string, rows [][]any, suffix string) error {
	if len(rows) == 0 {
		return nil
	}
	cols := len(rows[0])
	per := max(1, stmtParams/cols)
	for start := 0; start < len(rows); start += per {
		chunk := rows[start:min(len(rows), start+per)]
		args := make([]any, 0, len(chunk)*cols)
		for _, r := range chunk {
			args = append(args, r...)
		}
		q := prefix + placeholders(len(chunk), cols) + suffix
		if len(chunk) == per { // a full chunk's text recurs: prepared once per batch
			if err := w.exec(q, args...); err != nil {
				return err
			}
		} else if _, err := w.tx.ExecContext(w.ctx, w.s.d.rebind(q), args...); err != nil {
			return err
		}
	}
	return nil
}

// flushRows writes b's rows in one statement.
func (w *writer) flushRows(b *rowBuffer) error {
	if len(b.args) == 0 {
		return nil
	}
	err := w.exec(b.insert+` VALUES `+placeholders(len(b.args)/b.cols, b.cols), b.args...)
	b.args = b.args[:0]
	return err
}

// flush writes what the batch still holds in memory: the buffered rows,
// then the address rows.
func (w *writer) flush() error {
	for _, b := range []*rowBuffer{&w.blockRows, &w.txRows, &w.addrTxRows, &w.logRows, &w.coinRows, &w.tokenTransferRows, &w.addrTokenRows} {
		if err := w.flushRows(b); err != nil {
			return err
		}
	}
	return w.flushAddresses()
}

func (w *writer) stmt(q string) (*sql.Stmt, error) {
	if st, ok := w.stmts[q]; ok {
		return st, nil
	}
	st, err := w.tx.PrepareContext(w.ctx, w.s.d.rebind(q))
	if err != nil {
		return nil, err
	}
	w.stmts[q] = st
	return st, nil
}

func (w *writer) closeStmts() {
	for _, st := range w.stmts {
		_ = st.Close()
	}
}

func (w *writer) exec(q string, args ...any) error {
	st, err := w.stmt(q)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(w.ctx, args...)
	return err
}

// query runs q, prepared once per batch as exec's statements are.
func (w *writer) query(q string, args ...any) (*sql.Rows, error) {
	st, err := w.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(w.ctx, args...)
}

// wei encodes an amount; nil stays NULL.
func (w *writer) wei(v *big.Int) any {
	if v == nil {
		return nil
	}
	return w.s.d.encodeWei(v)
}

// checkInt64 refuses values the BIGINT columns cannot hold instead of
// letting them wrap.
func checkInt64(b *explorer.IndexedBlock) error {
	vals := []uint64{b.Block.Number, b.Block.Time, b.Block.GasLimit, b.Block.GasUsed, b.Block.Size}
	for i := range b.Txs {
		vals = append(vals, b.Txs[i].Gas, b.Txs[i].Nonce)
	}
	for _, v := range vals {
		if v > math.MaxInt64 {
			return fmt.Errorf("value %d exceeds the database's 64-bit signed integers", v)
		}
	}
	return nil
}

func (w *writer) block(b *explorer.IndexedBlock) error {
	if err := checkInt64(b); err != nil {
		return err
	}
	k := &b.Block
	err := w.insert(&w.blockRows,
		int64(k.Number), key(k.Hash[:]), key(k.ParentHash[:]), addrKey(k.Miner), int64(k.Time), int64(k.GasUsed),
		int64(k.GasLimit), w.wei(k.BaseFee), int64(k.Size), k.TxCount, key(k.StateRoot[:]), nonNil(k.ExtraData),
		fmt.Sprintf("0x%016x", k.Nonce), w.wei(k.Difficulty), w.wei(k.BurntFees), w.wei(k.PriorityFee), w.wei(k.TxFees),
		optBytes(k.CometHash))
	if err != nil {
		return err
	}
	for i := range b.Txs {
		if err := w.transaction(&b.Txs[i]); err != nil {
			return err
		}
	}
	for i := range b.Logs {
		if err := w.log(&b.Logs[i]); err != nil {
			return err
		}
	}
	w.gasUsed += k.GasUsed
	d := w.day(k.Time)
	d.txs += int64(k.TxCount)
	d.gas += int64(k.GasUsed)
	return w.addresses(b)
}

// day is what the batch adds to the totals of the UTC day of unix time t.
func (w *writer) day(t uint64) *dayTotal {
	n := int64(t) / secondsPerDay
	d := w.daily[n]
	if d == nil {
		d = &dayTotal{}
		w.daily[n] = d
	}
	return d
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// optBytes is b as stored hex, or NULL when b is nil.
func optBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return key(b)
}

func optAddr(a *common.Address) any {
	if a == nil {
		return nil
	}
	return addrKey(*a)
}

func (w *writer) transaction(t *explorer.Tx) error {
	var method any
	if m := t.MethodID(); m != "" {
		method = m
	}
	err := w.insert(&w.txRows,
		key(t.Hash[:]), int64(t.BlockNumber), t.Index, key(t.BlockHash[:]), int64(t.Time), addrKey(t.From),
		optAddr(t.To), optAddr(t.Created), w.wei(t.Value), int64(t.Gas), int64(t.GasUsed), w.wei(t.GasPrice),
		w.wei(t.MaxFee), w.wei(t.MaxTip), w.wei(t.BaseFee), int64(t.Nonce), int(t.Type), int(t.Status),
		nonNil(t.Input), method, w.wei(t.Fee), w.wei(t.BurntFee))
	if err != nil {
		return err
	}
	w.txs++
	// One row per address and tx, with the sides it took (a self-transfer
	// is both).
	sides := map[common.Address][2]int{t.From: {1, 0}}
	for _, to := range []*common.Address{t.To, t.Created} {
		if to != nil {
			s := sides[*to]
			s[1] = 1
			sides[*to] = s
		}
	}
	for a, s := range sides {
		if err := w.insert(&w.addrTxRows,
			addrKey(a), int64(t.BlockNumber), t.Index, s[0], s[1]); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) log(l *explorer.Log) error {
	topics := make([]any, 4)
	for i := range topics {
		if i < len(l.Topics) {
			topics[i] = key(l.Topics[i][:])
		}
	}
	return w.insert(&w.logRows,
		int64(l.BlockNumber), int64(l.Index), key(l.BlockHash[:]), key(l.TxHash[:]), int64(l.TxIndex),
		addrKey(l.Address), topics[0], topics[1], topics[2], topics[3], nonNil(l.Data))
}

// activity is what one block adds to an address's counters.
type activity struct {
	txs, gasUsed, validated uint64
}

func blockActivity(b *explorer.IndexedBlock) map[common.Address]*activity {
	acts := map[common.Address]*activity{}
	get := func(a common.Address) *activity {
		if acts[a] == nil {
			acts[a] = &activity{}
		}
		return acts[a]
	}
	for i := range b.Txs {
		t := &b.Txs[i]
		seen := map[common.Address]bool{}
		for _, a := range []*common.Address{&t.From, t.To, t.Created} {
			if a != nil && !seen[*a] {
				seen[*a] = true
				get(*a).txs++
			}
		}
		get(t.From).gasUsed += t.GasUsed
	}
	get(b.Block.Miner).validated++
	return acts
}

// addrRow is what a batch adds to one address row: the newest balance, the
// blocks it was first and last seen in, the last block of the batch its
// balance changed in (changed false: none did), and its activity, summed so
// that an address the batch touches in many blocks is written once.
type addrRow struct {
	balance      *big.Int
	first, last  int64
	changed      bool
	balanceBlock int64
	act          activity
}

// addresses records the balance changes of every address the block touched
// and folds the block into the batch's address rows (written by
// flushAddresses at the end of the batch).
func (w *writer) addresses(b *explorer.IndexedBlock) error {
	acts := blockActivity(b)
	n := int64(b.Block.Number)
	for _, t := range b.Touched {
		if t.After == nil || t.Before == nil {
			return fmt.Errorf("address %s: balance missing", t.Address.Hex())
		}
		row := w.addrs[t.Address]
		if row == nil {
			row = &addrRow{first: n}
			w.addrs[t.Address] = row
			w.addrOrder = append(w.addrOrder, t.Address)
		}
		row.balance, row.last = t.After, n
		if act := acts[t.Address]; act != nil {
			row.act.txs += act.txs
			row.act.gasUsed += act.gasUsed
			row.act.validated += act.validated
		}
		if t.After.Cmp(t.Before) == 0 {
			continue
		}
		row.changed, row.balanceBlock = true, n
		var txHash any
		if t.TxHash != nil {
			txHash = key(t.TxHash[:])
		}
		delta := new(big.Int).Sub(t.After, t.Before)
		if err := w.insert(&w.coinRows,
			addrKey(t.Address), n, w.wei(t.After), delta.String(), txHash); err != nil {
			return err
		}
	}
	w.creations = append(w.creations, b.Contract...)
	return nil
}

// addrChunk is how many rows one multi-row statement carries: 9 parameters
// each stays far below both engines' parameter limits.
const addrChunk = 200

// flushAddresses writes the batch's address rows with multi-row upserts,
// counts the addresses new to the database, then marks the contracts the
// batch created (after their rows exist).
func (w *writer) flushAddresses() error {
	for i := 0; i < len(w.addrOrder); i += addrChunk {
		chunk := w.addrOrder[i:min(i+addrChunk, len(w.addrOrder))]
		known, err := w.knownAddresses(chunk)
		if err != nil {
			return err
		}
		w.newAddrs += uint64(len(chunk) - len(known))
		if err := w.upsertAddresses(chunk, known); err != nil {
			return err
		}
	}
	for _, c := range w.creations {
		if err := w.exec(`UPDATE addresses SET is_contract = 1, creator = ?, creation_tx = ? WHERE hash = ?`,
			addrKey(c.Creator), key(c.TxHash[:]), addrKey(c.Address)); err != nil {
			return err
		}
	}
	return nil
}

// placeholders is n groups of "(?, …)" with per placeholders each.
func placeholders(n, per int) string {
	group := "(" + strings.TrimSuffix(strings.Repeat("?, ", per), ", ") + ")"
	return strings.TrimSuffix(strings.Repeat(group+", ", n), ", ")
}

// knownAddresses is the set of addrs (as stored keys) the database already
// holds.
func (w *writer) knownAddresses(addrs []common.Address) (map[string]bool, error) {
	args := make([]any, len(addrs))
	for i, a := range addrs {
		args[i] = addrKey(a)
	}
	st, err := w.stmt(`SELECT hash FROM addresses WHERE hash IN ` + placeholders(1, len(addrs)))
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(w.ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	known := map[string]bool{}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		known[h] = true
	}
	return known, rows.Err()
}

// keepBalanceBlock is the balance_block an upsert passes for a known
// address whose balance the batch did not change: the update keeps the
// stored block (the one its balance last changed in).
const keepBalanceBlock = -1

// balanceBlockFor is the block an address row's balance dates from: the last
// block of the batch that changed it; for an address new to the database
// whose balance the batch never changed, the block it was first seen (its
// balance was first read there); for a known one, keepBalanceBlock.
func (r *addrRow) balanceBlockFor(known bool) int64 {
	switch {
	case r.changed:
		return r.balanceBlock
	case known:
		return keepBalanceBlock
	default:
		return r.first
	}
}

func (w *writer) upsertAddresses(addrs []common.Address, known map[string]bool) error {
	args := make([]any, 0, len(addrs)*9)
	for _, a := range addrs {
		r := w.addrs[a]
		args = append(args, addrKey(a), w.wei(r.balance), r.balanceBlockFor(known[addrKey(a)]), r.first, r.last,
			int64(r.act.txs), int64(r.act.gasUsed), int64(r.act.validated), 0)
	}
	return w.exec(`INSERT INTO addresses (hash, balance, balance_block, first_seen, last_seen, tx_count, gas_used,
		blocks_validated, is_contract) VALUES `+placeholders(len(addrs), 9)+`
		ON CONFLICT (hash) DO UPDATE SET balance = excluded.balance,
		balance_block = CASE WHEN excluded.balance_block < 0 THEN addresses.balance_block ELSE excluded.balance_block END,
		last_seen = excluded.last_seen, tx_count = addresses.tx_count + excluded.tx_count,
		gas_used = addresses.gas_used + excluded.gas_used,
		blocks_validated = addresses.blocks_validated + excluded.blocks_validated`, args...)
}

func (w *writer) setCounter(name string, v uint64) error {
	return w.exec(`INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
		name, int64(v))
}

func (w *writer) addCounter(name string, delta uint64) error {
	return w.exec(`INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = counters.value + excluded.value`,
		name, int64(delta))
}

// secondsPerDay makes a UTC day number of a unix time.
const secondsPerDay = 86400

// dayTotal is what one UTC day's blocks hold.
type dayTotal struct{ txs, gas int64 }

// flushDaily adds the batch's blocks to the per-day totals.
func (w *writer) flushDaily() error {
	days := make([]int64, 0, len(w.daily))
	for d := range w.daily {
		days = append(days, d)
	}
	sort.Slice(days, func(i, j int) bool { return days[i] < days[j] })
	rows := make([][]any, len(days))
	for i, d := range days {
		rows[i] = []any{d, w.daily[d].txs, w.daily[d].gas}
	}
	return w.execRows(`INSERT INTO daily_totals (day, tx_count, gas_used) VALUES `, rows,
		` ON CONFLICT (day) DO UPDATE SET tx_count = daily_totals.tx_count + excluded.tx_count,
		gas_used = daily_totals.gas_used + excluded.gas_used`)
}

func (w *writer) flushCounters() error {
	for name, v := range map[string]uint64{ctrTxs: w.txs, ctrAddresses: w.newAddrs, ctrGasUsed: w.gasUsed} {
		if err := w.addCounter(name, v); err != nil {
			return err
		}
	}
	return nil
}
