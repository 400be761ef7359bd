package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // pure-Go SQLite: no cgo, one static binary

	"github.com/emberchain/ember/explorer"
)

// Store is explorer.Store on a SQL database.
type Store struct {
	db *sql.DB
	d  dialect
}

var _ explorer.Store = (*Store)(nil)

// Open opens the database dsn names — a postgres:// URL, or else the path of
// a SQLite file (created with its directory) — and applies any pending
// migrations.
func Open(ctx context.Context, dsn string) (*Store, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return nil, fmt.Errorf("explorer database %s: PostgreSQL is not supported yet; leave explorer db empty for SQLite", redact(dsn))
	}
	return OpenSQLite(ctx, dsn)
}

// OpenSQLite opens (creating) the SQLite database file at path in WAL mode,
// so that API readers never wait for the indexer's writes.
func OpenSQLite(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("explorer database: empty SQLite path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(10000)", "foreign_keys(1)"} {
		q.Add("_pragma", p)
	}
	db, err := sql.Open(sqlite.driver, "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open explorer database %s: %w", path, err)
	}
	s := &Store{db: db, d: sqlite}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("explorer database %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// inTx runs fn in a transaction, committing when it returns nil.
func (s *Store) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// redact hides a DSN's password in messages.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable DSN)"
	}
	return u.Redacted()
}
