package e2e

import (
	"testing"

	"github.com/emberchain/ember/explorer/sqlstore/pgtest"
)

// The explorer tests again on PostgreSQL: the same node, the same requests,
// the same assertions, with --explorer.db naming a fresh database on a
// throwaway server (scripts/postgres-test.sh, stopped by TestMain).

func TestExplorerAPIPostgres(t *testing.T) {
	t.Parallel()
	testExplorerAPI(t, "--explorer.db", pgDSN(t))
}

func TestExplorerRestartPostgres(t *testing.T) {
	t.Parallel()
	testExplorerRestart(t, pgDSN(t))
}

// pgDSN is a new database on the test server. Under -short StartDev skips
// before a server would be started for nothing.
func pgDSN(t *testing.T) string {
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	return pgtest.DSN(t)
}
