package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/emberchain/ember/test/perturb"
)

// TestPerturbationShort is the short form of the perturbation suite
// (test/perturb; `make perturb` is the long one): four validators under
// transfer load from eight senders go through a kill -9 and restart of one,
// a graceful restart (SIGTERM), a kill -9 of two at once, a SIGSTOP/SIGCONT, a 1|3 and a 2|2 partition (which halts the chain until
// healed) and, as root, a full disk on validator 3 (which must fail-stop
// and catch up once restarted). Then every height is the same block, state
// root and app hash on every node, every accepted transfer was included or
// replaced by another tx of its sender's nonce, and the supply is exact at
// every height. Parallel: its network has ports and a mesh of its own.
func TestPerturbationShort(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	t.Parallel()
	faults := []perturb.Fault{
		{Kind: perturb.KillKind, Nodes: []int{1}, Hold: 3 * time.Second},
		{Kind: perturb.RestartKind, Nodes: []int{0}, Hold: 2 * time.Second},
		{Kind: perturb.KillKind, Nodes: []int{2, 3}, Hold: 3 * time.Second}, // the chain halts until they are back
		{Kind: perturb.PauseKind, Nodes: []int{2}, Hold: 6 * time.Second},
		{Kind: perturb.PartitionKind, Groups: [][]int{{0}, {1, 2, 3}}, Hold: 10 * time.Second},
		{Kind: perturb.PartitionKind, Groups: [][]int{{0, 1}, {2, 3}}, Hold: 10 * time.Second},
		{Kind: perturb.DiskFullKind},
	}
	dir := filepath.Join(t.TempDir(), "testnet")
	t.Cleanup(func() { // before the temporary directory goes
		if t.Failed() {
			dumpPerturbLogs(t, dir)
		}
	})
	cfg := perturb.Config{
		Emberd:     emberdBin,
		Dir:        dir,
		Validators: 4,
		Faults:     faults,
		Seed:       uint64(time.Now().UnixNano()),
		TmpfsSize:  "128m",
		Rate:       20,
		Senders:    8,
		Gap:        3 * time.Second,
		Logf:       t.Logf,
	}
	c, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	start := time.Now()
	report, err := perturb.Run(c, cfg)
	if report != nil {
		t.Logf("after %v:\n%s", time.Since(start).Round(time.Second), report)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Err(); err != nil {
		t.Fatal(err)
	}

	// The schedule ran whole: disk-full is skipped only without root or a
	// mountable tmpfs, and then said so.
	want := map[perturb.Kind]int{perturb.KillKind: 2, perturb.RestartKind: 1, perturb.PauseKind: 1, perturb.PartitionKind: 2, perturb.DiskFullKind: 1}
	if len(report.Skipped) > 0 {
		if os.Geteuid() == 0 {
			t.Logf("as root, yet: %v", report.Skipped)
		}
		delete(want, perturb.DiskFullKind)
	}
	got := report.KindCounts()
	if len(got) != len(want) {
		t.Fatalf("faults injected %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("faults injected %v, want %v", got, want)
		}
	}
	if n := report.ForkHeights(); n != 0 {
		t.Fatalf("%d heights differ between nodes", n)
	}
	if lost := len(report.Txs.Lost); lost != 0 || report.Txs.Included+len(report.Txs.Replaced) != report.Accepted {
		t.Fatalf("%d accepted: %d included, %d replaced, %d lost", report.Accepted, report.Txs.Included, len(report.Txs.Replaced), lost)
	}
	// At 20/s over a run of a minute or more: several hundred included, even on busy cores.
	if report.Txs.Included < 300 {
		t.Fatalf("only %d transfers included", report.Txs.Included)
	}
	if len(report.Supply.Errors) != 0 || report.Supply.Minted.Sign() <= 0 || report.Supply.Burned.Sign() <= 0 {
		t.Fatalf("supply: %+v", report.Supply)
	}
	if report.Height < 20 {
		t.Fatalf("checked only %d heights", report.Height)
	}
}

// dumpPerturbLogs logs the end of every node's emberd.log.
func dumpPerturbLogs(t *testing.T, dir string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "node*", "emberd.log"))
	for _, path := range logs {
		b, _ := os.ReadFile(path)
		if len(b) > 8000 {
			b = b[len(b)-8000:]
		}
		t.Logf("%s (end):\n%s", path, b)
	}
}
