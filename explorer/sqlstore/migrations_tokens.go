package sqlstore

// tokensMigration adds tokens, their transfers, holders' balances and NFT
// instances. Token ids are wei columns (any uint256, ordered numerically);
// token_balances.token_id is 0 for ERC-20 and ERC-721 rows (an ERC-721
// balance is the number of tokens held) and has_id tells ERC-1155 rows.
const tokensMigration = `
CREATE TABLE tokens (
	address         TEXT PRIMARY KEY,
	type            TEXT NOT NULL,
	name            TEXT,
	symbol          TEXT,
	name_lower      TEXT,
	symbol_lower    TEXT,
	decimals        TEXT,
	total_supply    {{wei}},
	holders_count   BIGINT NOT NULL,
	transfers_count BIGINT NOT NULL,
	first_block     BIGINT NOT NULL
);
CREATE INDEX tokens_holders ON tokens (holders_count, address);

CREATE TABLE token_transfers (
	block_number BIGINT NOT NULL,
	log_index    INTEGER NOT NULL,
	batch_index  INTEGER NOT NULL,
	is_batch     INTEGER NOT NULL,
	block_hash   TEXT NOT NULL,
	tx_hash      TEXT NOT NULL,
	tx_index     INTEGER NOT NULL,
	timestamp    BIGINT NOT NULL,
	token        TEXT NOT NULL,
	token_type   TEXT NOT NULL,
	from_addr    TEXT NOT NULL,
	to_addr      TEXT NOT NULL,
	token_id     {{wei}},
	amount       {{wei}} NOT NULL,
	PRIMARY KEY (block_number, log_index, batch_index)
);
CREATE INDEX token_transfers_tx ON token_transfers (tx_hash, log_index, batch_index);
CREATE INDEX token_transfers_token ON token_transfers (token, block_number, log_index, batch_index);
CREATE INDEX token_transfers_instance ON token_transfers (token, token_id, block_number, log_index, batch_index);

CREATE TABLE address_token_transfers (
	address      TEXT NOT NULL,
	block_number BIGINT NOT NULL,
	log_index    INTEGER NOT NULL,
	batch_index  INTEGER NOT NULL,
	sent         INTEGER NOT NULL,
	received     INTEGER NOT NULL,
	PRIMARY KEY (address, block_number, log_index, batch_index)
);

CREATE TABLE token_balances (
	token        TEXT NOT NULL,
	has_id       INTEGER NOT NULL,
	token_id     {{wei}} NOT NULL,
	address      TEXT NOT NULL,
	token_type   TEXT NOT NULL,
	value        {{wei}} NOT NULL,
	block_number BIGINT NOT NULL,
	PRIMARY KEY (token, has_id, token_id, address)
);
CREATE INDEX token_balances_value ON token_balances (token, value, address, token_id);
CREATE INDEX token_balances_id_value ON token_balances (token, token_id, value, address);
CREATE INDEX token_balances_holder ON token_balances (address, value, token, token_id);

CREATE TABLE token_instances (
	token          TEXT NOT NULL,
	token_id       {{wei}} NOT NULL,
	token_type     TEXT NOT NULL,
	owner          TEXT,
	token_uri      TEXT,
	metadata       TEXT,
	metadata_error TEXT,
	fetched        INTEGER NOT NULL,
	first_block    BIGINT NOT NULL,
	PRIMARY KEY (token, token_id)
);
CREATE INDEX token_instances_owner ON token_instances (owner, token, token_id);
CREATE INDEX token_instances_unfetched ON token_instances (fetched, first_block);
`
