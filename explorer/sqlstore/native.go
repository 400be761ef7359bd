package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

// nativeTxsMigration adds native (Cosmos) transactions: one row each, its
// messages as the JSON of []explorer.NativeMsg (a handful per transaction,
// always read whole), and one address row per account it touched.
const nativeTxsMigration = `
CREATE TABLE native_txs (
	hash         TEXT PRIMARY KEY,
	block_number BIGINT NOT NULL,
	position     INTEGER NOT NULL,
	block_hash   TEXT NOT NULL,
	timestamp    BIGINT NOT NULL,
	sender       TEXT NOT NULL,
	sequence     BIGINT NOT NULL,
	fee          {{wei}} NOT NULL,
	burnt_fee    {{wei}} NOT NULL,
	value        {{wei}} NOT NULL,
	gas_wanted   BIGINT NOT NULL,
	gas_used     BIGINT NOT NULL,
	code         BIGINT NOT NULL,
	codespace    TEXT NOT NULL,
	log          TEXT NOT NULL,
	memo         TEXT NOT NULL,
	messages     TEXT NOT NULL,
	UNIQUE (block_number, position)
);

CREATE TABLE address_native_txs (
	address      TEXT NOT NULL,
	block_number BIGINT NOT NULL,
	position     INTEGER NOT NULL,
	PRIMARY KEY (address, block_number, position)
);
`

// nativeTxs records a block's native transactions and their address rows.
func (w *writer) nativeTxs(b *explorer.IndexedBlock) error {
	if len(b.Native) == 0 {
		return nil
	}
	// Every transaction of the chain counts, as in Blockscout: the total
	// and the day's totals (their gas stays the EVM block's).
	w.txs += uint64(len(b.Native))
	w.day(b.Block.Time).txs += int64(len(b.Native))
	var rows, sides [][]any
	for i := range b.Native {
		t := &b.Native[i]
		msgs, err := json.Marshal(t.Msgs)
		if err != nil {
			return err
		}
		rows = append(rows, []any{
			key(t.Hash[:]), int64(t.BlockNumber), t.Position, key(t.BlockHash[:]), int64(t.Time), addrKey(t.Sender),
			int64(min(t.Sequence, 1<<63-1)), w.wei(t.Fee), w.wei(t.BurntFee), w.wei(t.Value), int64(min(t.GasWanted, 1<<63-1)), int64(min(t.GasUsed, 1<<63-1)), int64(t.Code),
			t.Codespace, t.Log, t.Memo, string(msgs),
		})
		for _, a := range t.Addresses() {
			sides = append(sides, []any{addrKey(a), int64(t.BlockNumber), t.Position})
		}
	}
	if err := w.execRows(`INSERT INTO native_txs (hash, block_number, position, block_hash, timestamp, sender, sequence, fee, burnt_fee, value,
		gas_wanted, gas_used, code, codespace, log, memo, messages) VALUES `, rows, ``); err != nil {
		return err
	}
	return w.execRows(`INSERT INTO address_native_txs (address, block_number, position) VALUES `, sides, ``)
}

const nativeCols = `n.hash, n.block_number, n.position, n.block_hash, n.timestamp, n.sender, n.sequence, n.fee, n.burnt_fee,
	n.value, n.gas_wanted, n.gas_used, n.code, n.codespace, n.log, n.memo, n.messages`

func (s *Store) scanNative(r scanner) (*explorer.NativeTx, error) {
	var (
		t                                explorer.NativeTx
		num, ts, seq, wanted, used, code int64
		hash, blockHash, sender, fee     string
		burnt, value, msgs               string
	)
	if err := r.Scan(&hash, &num, &t.Position, &blockHash, &ts, &sender, &seq, &fee, &burnt, &value, &wanted, &used, &code,
		&t.Codespace, &t.Log, &t.Memo, &msgs); err != nil {
		return nil, err
	}
	c := decoder{d: s.d}
	t.Hash, t.BlockNumber, t.Time, t.Sender, t.Sequence = c.hash(hash), uint64(num), uint64(ts), c.addr(sender), uint64(seq)
	t.BlockHash, t.BurntFee = c.hash(blockHash), c.wei(burnt)
	t.Fee, t.Value, t.GasWanted, t.GasUsed, t.Code = c.wei(fee), c.wei(value), uint64(wanted), uint64(used), uint32(code)
	if err := json.Unmarshal([]byte(msgs), &t.Msgs); err != nil && c.err == nil {
		c.err = fmt.Errorf("native tx %s messages: %w", hash, err)
	}
	return &t, c.err
}

// NativeTx implements explorer.NativeStore.
func (s *Store) NativeTx(ctx context.Context, hash common.Hash) (*explorer.NativeTx, error) {
	return one(ctx, s, s.scanNative, `SELECT `+nativeCols+` FROM native_txs n WHERE n.hash = ?`, key(hash[:]))
}

// BlockNativeTxs implements explorer.NativeStore.
func (s *Store) BlockNativeTxs(ctx context.Context, number uint64, from int, limit int) ([]explorer.NativeTx, error) {
	return many(ctx, s, s.scanNative, `SELECT `+nativeCols+` FROM native_txs n WHERE n.block_number = ? AND n.position >= ?
		ORDER BY n.position LIMIT ?`, int64(number), from, limit)
}

// AddressNativeTxs implements explorer.NativeStore.
func (s *Store) AddressNativeTxs(ctx context.Context, addr common.Address, after explorer.NativeCursor, limit int) ([]explorer.NativeTx, error) {
	cond, args := keyset("a.block_number", "a.position", explorer.TxCursor{Set: after.Set, BlockNumber: after.BlockNumber, Index: after.Position})
	args = append([]any{addrKey(addr)}, append(args, limit)...)
	return many(ctx, s, s.scanNative, `SELECT `+nativeCols+` FROM address_native_txs a
		JOIN native_txs n ON n.block_number = a.block_number AND n.position = a.position
		WHERE a.address = ?`+cond+` ORDER BY a.block_number DESC, a.position DESC LIMIT ?`, args...)
}

// NativeTxs implements explorer.NativeStore: a keyset range of the unique
// (block_number, position) index, newest first.
func (s *Store) NativeTxs(ctx context.Context, after explorer.NativeCursor, limit int) ([]explorer.NativeTx, error) {
	cond, args := keyset("n.block_number", "n.position", explorer.TxCursor{Set: after.Set, BlockNumber: after.BlockNumber, Index: after.Position})
	return many(ctx, s, s.scanNative, `SELECT `+nativeCols+` FROM native_txs n WHERE 1 = 1`+cond+`
		ORDER BY n.block_number DESC, n.position DESC LIMIT ?`, append(args, limit)...)
}

// NativeTxCount implements explorer.NativeStore.
func (s *Store) NativeTxCount(ctx context.Context) (uint64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM native_txs`).Scan(&n)
	return uint64(n), err
}
