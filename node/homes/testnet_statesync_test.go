package homes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/emberchain/ember/node/config"
)

// add-node --state-sync needs the testnet running: on a stopped one it
// says so and writes no home. (TestStateSync in test/e2e runs it against
// a running network.)
func TestAddStateSyncNodeStopped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tn")
	if _, err := InitTestnet(TestnetOptions{Dir: dir, Validators: 2, BasePort: 30500}); err != nil {
		t.Fatal(err)
	}
	_, err := AddStateSyncNode(dir)
	if err == nil || !strings.Contains(err.Error(), "no validator answered for a trusted block (is the testnet running?)") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node2")); !os.IsNotExist(err) {
		t.Fatalf("a home was written: %v", err)
	}
	tn, err := LoadTestnet(dir)
	if err != nil || len(tn.Nodes) != 2 {
		t.Fatalf("manifest changed: %v %v", tn, err)
	}
	cfg, err := config.Load(tn.Nodes[0].Home)
	if err != nil || cfg.StateSync.SnapshotInterval != config.TestnetSnapshotInterval || cfg.StateSync.SnapshotKeepRecent != config.DefaultSnapshotKeepRecent {
		t.Fatalf("testnet home [state-sync] %+v %v", cfg.StateSync, err)
	}
}
