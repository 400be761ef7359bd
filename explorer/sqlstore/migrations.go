package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migrations are applied in order, each once, in its own transaction; the
// versions applied are kept in schema_migrations. Never edit a released
// migration: append a new one.
var migrations = []string{
	// 1: blocks, transactions, logs, addresses, balances, counters.
	`
CREATE TABLE blocks (
	number       BIGINT PRIMARY KEY,
	hash         TEXT NOT NULL UNIQUE,
	parent_hash  TEXT NOT NULL,
	miner        TEXT NOT NULL,
	timestamp    BIGINT NOT NULL,
	gas_used     BIGINT NOT NULL,
	gas_limit    BIGINT NOT NULL,
	base_fee     {{wei}},
	size         BIGINT NOT NULL,
	tx_count     INTEGER NOT NULL,
	state_root   TEXT NOT NULL,
	extra_data   {{bytes}} NOT NULL,
	nonce        TEXT NOT NULL,
	difficulty   {{wei}} NOT NULL,
	burnt_fees   {{wei}} NOT NULL,
	priority_fee {{wei}} NOT NULL,
	tx_fees      {{wei}} NOT NULL
);
CREATE INDEX blocks_timestamp ON blocks (timestamp);
CREATE INDEX blocks_miner ON blocks (miner, number);

CREATE TABLE transactions (
	hash             TEXT PRIMARY KEY,
	block_number     BIGINT NOT NULL,
	tx_index         INTEGER NOT NULL,
	block_hash       TEXT NOT NULL,
	timestamp        BIGINT NOT NULL,
	from_addr        TEXT NOT NULL,
	to_addr          TEXT,
	created_contract TEXT,
	value            {{wei}} NOT NULL,
	gas              BIGINT NOT NULL,
	gas_used         BIGINT NOT NULL,
	gas_price        {{wei}} NOT NULL,
	max_fee          {{wei}},
	max_tip          {{wei}},
	base_fee         {{wei}},
	nonce            BIGINT NOT NULL,
	type             INTEGER NOT NULL,
	status           INTEGER NOT NULL,
	input            {{bytes}} NOT NULL,
	method_id        TEXT,
	fee              {{wei}} NOT NULL,
	burnt_fee        {{wei}} NOT NULL,
	UNIQUE (block_number, tx_index)
);

CREATE TABLE address_txs (
	address      TEXT NOT NULL,
	block_number BIGINT NOT NULL,
	tx_index     INTEGER NOT NULL,
	sent         INTEGER NOT NULL,
	received     INTEGER NOT NULL,
	PRIMARY KEY (address, block_number, tx_index)
);

CREATE TABLE logs (
	block_number BIGINT NOT NULL,
	log_index    INTEGER NOT NULL,
	block_hash   TEXT NOT NULL,
	tx_hash      TEXT NOT NULL,
	tx_index     INTEGER NOT NULL,
	address      TEXT NOT NULL,
	topic0       TEXT,
	topic1       TEXT,
	topic2       TEXT,
	topic3       TEXT,
	data         {{bytes}} NOT NULL,
	PRIMARY KEY (block_number, log_index)
);
CREATE INDEX logs_tx ON logs (tx_hash, log_index);
CREATE INDEX logs_address ON logs (address, block_number, log_index);

CREATE TABLE addresses (
	hash             TEXT PRIMARY KEY,
	balance          {{wei}} NOT NULL,
	balance_block    BIGINT NOT NULL,
	first_seen       BIGINT NOT NULL,
	last_seen        BIGINT NOT NULL,
	tx_count         BIGINT NOT NULL,
	gas_used         BIGINT NOT NULL,
	blocks_validated BIGINT NOT NULL,
	is_contract      INTEGER NOT NULL,
	creator          TEXT,
	creation_tx      TEXT
);
CREATE INDEX addresses_balance ON addresses (balance, hash);

CREATE TABLE coin_balances (
	address      TEXT NOT NULL,
	block_number BIGINT NOT NULL,
	value        {{wei}} NOT NULL,
	delta        TEXT NOT NULL,
	tx_hash      TEXT,
	PRIMARY KEY (address, block_number)
);

CREATE TABLE counters (
	name  TEXT PRIMARY KEY,
	value BIGINT NOT NULL
);
`,
	tokensMigration,      // tokens, token transfers, holders, NFT instances (migrations_tokens.go)
	internalTxsMigration, // internal transactions (migrations_internal.go)
	contractsMigration,   // verified contracts and their sources (migrations_contracts.go)
	nativeTxsMigration,   // native (Cosmos) transactions (native.go)
	// 6: the CometBFT block hash beside the EVM one; NULL for blocks
	// indexed before, and from sources that do not know it. Indexed for
	// the search box.
	`ALTER TABLE blocks ADD COLUMN comet_hash TEXT;
CREATE INDEX blocks_comet_hash ON blocks (comet_hash);`,
	// 7: transactions and gas per UTC day (day = timestamp / 86400), kept
	// by the indexer for the daily chart and today's stats; filled here
	// from the blocks indexed so far.
	`
CREATE TABLE daily_totals (
	day      BIGINT PRIMARY KEY,
	tx_count BIGINT NOT NULL,
	gas_used BIGINT NOT NULL
);
INSERT INTO daily_totals (day, tx_count, gas_used)
	SELECT timestamp / 86400, SUM(tx_count), SUM(gas_used) FROM blocks GROUP BY timestamp / 86400;
`,
	// 8: native transactions count among the chain's transactions (the
	// total and each day's), as every transaction does in Blockscout;
	// added here for those indexed before. ("WHERE true": SQLite's
	// upsert after a SELECT needs a WHERE to parse.)
	`
INSERT INTO daily_totals (day, tx_count, gas_used)
	SELECT timestamp / 86400, COUNT(*), 0 FROM native_txs WHERE true GROUP BY timestamp / 86400
	ON CONFLICT (day) DO UPDATE SET tx_count = daily_totals.tx_count + excluded.tx_count;
UPDATE counters SET value = value + (SELECT COUNT(*) FROM native_txs) WHERE name = 'transactions';
`,
	// 9: balance_block is the block an address's balance last changed in
	// (its newest coin_balances row), or, never changed, the block it was
	// first seen in; indexed before, it was the block last seen.
	`
UPDATE addresses SET balance_block = COALESCE(
	(SELECT MAX(block_number) FROM coin_balances WHERE coin_balances.address = addresses.hash), first_seen);
`,
}

// migrate brings the schema up to date.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	var current int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if current > len(migrations) {
		return fmt.Errorf("explorer database schema version %d is newer than this binary's %d", current, len(migrations))
	}
	for v := current + 1; v <= len(migrations); v++ {
		if err := s.apply(ctx, v, s.d.types.Replace(migrations[v-1])); err != nil {
			return fmt.Errorf("migration %d: %w", v, err)
		}
	}
	return nil
}

func (s *Store) apply(ctx context.Context, version int, ddl string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.d.rebind(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), version, time.Now().Unix())
		return err
	})
}
