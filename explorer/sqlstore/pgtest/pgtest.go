// Package pgtest gives tests a throwaway PostgreSQL server: the first DSN
// call starts one through scripts/postgres-test.sh (which installs Debian's
// postgresql package when absent), each call creates a fresh database on it,
// and Stop, called from TestMain, shuts it down. A server that cannot be had
// fails the test with the script's reason: PostgreSQL support is not
// optional, so it is never skipped silently.
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx"

	"github.com/emberchain/ember/internal/freeport"
)

var (
	once     sync.Once
	dir      string // the server's data and socket directory
	baseDSN  string // the maintenance database, where databases are created
	startErr error
	seq      atomic.Int64
)

// DSN returns the URL of a new, empty database on the test server, starting
// the server on first use. It fails t when no server can be started.
func DSN(t testing.TB) string {
	t.Helper()
	once.Do(func() { startErr = startOnFreePort() })
	if startErr != nil {
		t.Fatalf("PostgreSQL test server: %v", startErr)
	}
	name := dbName(t.Name())
	db, err := sql.Open("pgx", baseDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database %s: %v", name, err)
	}
	return strings.Replace(baseDSN, "/postgres?", "/"+name+"?", 1)
}

// Stop shuts the server down and removes its files; a no-op when none was
// started. Call it from TestMain after m.Run.
func Stop() {
	if dir == "" {
		return
	}
	cmd := exec.Command("bash", script(), "stop", dir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: stop:", err)
	}
	os.RemoveAll(dir)
	dir = ""
}

// startOnFreePort starts the server, again on another port when its port
// was taken between choosing it and binding it (packages test in parallel).
func startOnFreePort() error {
	for attempt := 1; ; attempt++ {
		port, err := freeport.Port()
		if err != nil {
			return err
		}
		err = start(port)
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "already in use") {
			return err
		}
	}
}

// start runs the script on port and waits for the first connection.
func start(port int) error {
	d, err := os.MkdirTemp("", "ember-pg-")
	if err != nil {
		return err
	}
	// Our pid lets the script's watcher stop the server if this binary
	// dies before Stop runs.
	cmd := exec.Command("bash", script(), "start", d, strconv.Itoa(port), strconv.Itoa(os.Getpid()))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		os.RemoveAll(d)
		return fmt.Errorf("%s start: %v\n%s", script(), err, strings.TrimSpace(stderr.String()))
	}
	dir, baseDSN = d, strings.TrimSpace(string(out))
	return ping(baseDSN)
}

func ping(dsn string) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("server started but does not answer at %s: %w", dsn, err)
	}
	return nil
}

// script is scripts/postgres-test.sh of this source tree.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "postgres-test.sh")
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9_]+`)

// dbName is a valid, unique database name derived from the test's name.
func dbName(test string) string {
	s := unsafeChars.ReplaceAllString(strings.ToLower(test), "_")
	if len(s) > 40 {
		s = s[:40]
	}
	return fmt.Sprintf("t%d_%s_%d", os.Getpid(), s, seq.Add(1))
}
