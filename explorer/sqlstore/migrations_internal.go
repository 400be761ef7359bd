package sqlstore

// internalTxsMigration adds internal transactions (call frames below each
// transaction's top-level call), the addresses on either side of each, and
// a per-address count. trace_address is the frame's path of child indexes,
// comma-separated ("0,1").
const internalTxsMigration = `
CREATE TABLE internal_txs (
	block_number     BIGINT NOT NULL,
	tx_index         INTEGER NOT NULL,
	idx              INTEGER NOT NULL,
	block_index      INTEGER NOT NULL,
	tx_hash          TEXT NOT NULL,
	timestamp        BIGINT NOT NULL,
	type             TEXT NOT NULL,
	from_addr        TEXT NOT NULL,
	to_addr          TEXT,
	created_contract TEXT,
	value            {{wei}} NOT NULL,
	gas              BIGINT NOT NULL,
	gas_used         BIGINT NOT NULL,
	input            {{bytes}} NOT NULL,
	output           {{bytes}} NOT NULL,
	error            TEXT,
	trace_address    TEXT NOT NULL,
	PRIMARY KEY (block_number, tx_index, idx)
);
CREATE INDEX internal_txs_tx ON internal_txs (tx_hash, idx);

CREATE TABLE address_internal_txs (
	address      TEXT NOT NULL,
	block_number BIGINT NOT NULL,
	tx_index     INTEGER NOT NULL,
	idx          INTEGER NOT NULL,
	sent         INTEGER NOT NULL,
	received     INTEGER NOT NULL,
	PRIMARY KEY (address, block_number, tx_index, idx)
);

CREATE TABLE address_internal_counts (
	address TEXT PRIMARY KEY,
	count   BIGINT NOT NULL
);
`
