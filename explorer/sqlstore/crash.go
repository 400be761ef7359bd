package sqlstore

import (
	"fmt"
	"os"
	"strconv"
)

// CrashEnv names a fault-injection switch for the end-to-end tests: with
// EMBER_TEST_EXPLORER_CRASH_AT=N the process exits (code 3) inside the
// database transaction that writes block N, after that block's rows were
// sent, so a test can prove that a crash in the middle of a batch loses
// nothing and counts nothing twice once the node restarts. Never set it
// outside tests.
const CrashEnv = "EMBER_TEST_EXPLORER_CRASH_AT"

var crashAt = func() int64 {
	n, err := strconv.ParseInt(os.Getenv(CrashEnv), 10, 64)
	if err != nil {
		return -1
	}
	return n
}()

// crashPoint exits the process when block n is the injected crash point.
func (w *writer) crashPoint(n uint64) error {
	if crashAt < 0 || int64(n) != crashAt {
		return nil
	}
	if err := w.flush(); err != nil { // the rows reach the open transaction
		return err
	}
	fmt.Fprintf(os.Stderr, "explorer: %s=%d: exiting inside the database transaction of block %d\n", CrashEnv, n, n)
	os.Exit(3)
	return nil
}
