package sqlstore

// contractsMigration adds verified contracts: one row per verified address
// with its metadata, sources and ABI (written by the verification API, not
// by the indexer). code_hash finds verified twins; name_lower serves the
// list's name search.
const contractsMigration = `
CREATE TABLE verified_contracts (
	id               BIGINT NOT NULL UNIQUE,
	address          TEXT NOT NULL UNIQUE,
	name             TEXT NOT NULL,
	name_lower       TEXT NOT NULL,
	language         TEXT NOT NULL,
	compiler_version TEXT NOT NULL,
	evm_version      TEXT NOT NULL,
	optimization     INTEGER NOT NULL,
	optimizer_runs   BIGINT,
	license_type     TEXT NOT NULL,
	abi              TEXT NOT NULL,
	file_path        TEXT NOT NULL,
	source_code      TEXT NOT NULL,
	settings         TEXT NOT NULL,
	metadata         TEXT NOT NULL,
	constructor_args {{bytes}},
	creation_code    {{bytes}},
	deployed_code    {{bytes}} NOT NULL,
	code_hash        TEXT NOT NULL,
	full_match       INTEGER NOT NULL,
	verified_at      BIGINT NOT NULL
);
CREATE INDEX verified_contracts_code_hash ON verified_contracts (code_hash);
CREATE INDEX verified_contracts_verified_at ON verified_contracts (verified_at);

CREATE TABLE verified_sources (
	address   TEXT NOT NULL,
	file_path TEXT NOT NULL,
	content   TEXT NOT NULL,
	PRIMARY KEY (address, file_path)
);
`
