package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx" for database/sql
	_ "modernc.org/sqlite"             // pure-Go SQLite: no cgo, one static binary

	"github.com/emberchain/ember/explorer"
)

// Store is explorer.Store on a SQL database.
type Store struct {
	db     *sql.DB
	d      dialect
	sqlite *SQLiteOptions // as opened; nil on PostgreSQL
}

var _ explorer.Store = (*Store)(nil)

// Open opens the database dsn names — a postgres:// (or postgresql://) URL,
// or else the path of a SQLite file (created with its directory) — and
// applies any pending migrations.
func Open(ctx context.Context, dsn string) (*Store, error) {
	return OpenWith(ctx, dsn, SQLiteOptions{})
}

// OpenWith is Open with a SQLite database's memory bounds (ignored for
// PostgreSQL).
func OpenWith(ctx context.Context, dsn string, opts SQLiteOptions) (*Store, error) {
	if IsPostgres(dsn) {
		return OpenPostgres(ctx, dsn)
	}
	if strings.Contains(dsn, "://") {
		return nil, fmt.Errorf("explorer database %s: unknown scheme; use a postgres:// URL or a SQLite file path", redact(dsn))
	}
	return OpenSQLiteWith(ctx, dsn, opts)
}

// IsPostgres reports whether dsn names a PostgreSQL database.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// OpenPostgres connects to the PostgreSQL database the URL names (pgx
// syntax: postgres://user:pass@host:port/db?sslmode=…, or host=/socket/dir
// for a unix socket) and applies any pending migrations. The database must
// exist; the tables are created in the connection's default schema.
func OpenPostgres(ctx context.Context, dsn string) (*Store, error) {
	db, err := sql.Open(postgres.driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("explorer database %s: %w", redact(dsn), err)
	}
	// One writer plus concurrent API readers; more connections than that
	// only queue inside the server.
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(8)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("explorer database %s: connect: %w", redact(dsn), err)
	}
	s := &Store{db: db, d: postgres}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("explorer database %s: %w", redact(dsn), err)
	}
	return s, nil
}

// OpenSQLite opens (creating) the SQLite database file at path in WAL mode,
// so that API readers never wait for the indexer's writes.
func OpenSQLite(ctx context.Context, path string) (*Store, error) {
	return OpenSQLiteWith(ctx, path, SQLiteOptions{})
}

// OpenSQLiteWith is OpenSQLite with the page cache, mapping and connections
// opts bound (zero fields: DefaultSQLite's).
func OpenSQLiteWith(ctx context.Context, path string, opts SQLiteOptions) (*Store, error) {
	opts = opts.withDefaults()
	if path == "" {
		return nil, fmt.Errorf("explorer database: empty SQLite path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	q := url.Values{}
	// The page cache and mapping sizes: see DefaultSQLite.
	for _, p := range append([]string{"journal_mode(WAL)", "synchronous(NORMAL)", "busy_timeout(10000)", "foreign_keys(1)"}, opts.pragmas()...) {
		q.Add("_pragma", p)
	}
	db, err := sql.Open(sqlite.driver, "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open explorer database %s: %w", path, err)
	}
	// Each connection may fill its own page cache: capping them caps the
	// caches' sum (SQLiteOptions.MaxConns).
	db.SetMaxOpenConns(opts.MaxConns)
	s := &Store{db: db, d: sqlite, sqlite: &opts}
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
