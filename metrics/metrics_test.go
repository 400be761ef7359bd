package metrics

import (
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// TestExposition scrapes the handler over HTTP and checks series names,
// labels and values after a block, calls and source readings.
func TestExposition(t *testing.T) {
	m := New(Sources{
		Pool:      func() (int, int, uint64) { return 3, 2, 7 },
		WebSocket: func() (int, int) { return 4, 5 },
		Filters:   func() int { return 6 },
		Explorer:  func() (uint64, uint64, bool) { return 90, 100, true },
	})
	rpc := m.NewRPC([]string{"eth_blockNumber", "eth_call"})
	rpc.ObserveCall("eth_blockNumber", 0, time.Millisecond)
	rpc.ObserveCall("eth_blockNumber", 0, time.Millisecond)
	rpc.ObserveCall("eth_call", 3, time.Millisecond)
	rpc.ObserveCall("eth_noSuchMethod", -32601, time.Millisecond)
	m.Executed(2*time.Millisecond, 3)
	m.Tx(0)
	m.Tx(1)
	m.Tx(5)
	m.Committed(time.Millisecond)
	m.Block(42, 21000, 1e9)

	srv := httptest.NewServer(Handler(m))
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	got := string(body)
	for _, line := range []string{
		`ember_head_height 42`,
		`ember_block_gas_used 21000`,
		`ember_gas_used_total 21000`,
		`ember_base_fee_wei 1e+09`,
		`ember_txs_total{code="0"} 1`,
		`ember_txs_total{code="1"} 1`,
		`ember_txs_total{code="5"} 1`,
		`ember_block_txs_count 1`,
		`ember_block_txs_sum 3`,
		`ember_block_execution_seconds_count 1`,
		`ember_block_commit_seconds_count 1`,
		`ember_txpool_pending 3`,
		`ember_txpool_queued 2`,
		`ember_txpool_evicted_total 7`,
		`ember_rpc_ws_connections 4`,
		`ember_rpc_subscriptions 5`,
		`ember_rpc_filters 6`,
		`ember_explorer_indexed_height 90`,
		`ember_explorer_lag_blocks 10`,
		`ember_rpc_requests_total{code="0",method="eth_blockNumber"} 2`,
		`ember_rpc_requests_total{code="3",method="eth_call"} 1`,
		`ember_rpc_requests_total{code="0",method="eth_call"} 0`,
		`ember_rpc_requests_total{code="-32601",method="other"} 1`,
		`ember_rpc_request_duration_seconds_count{method="eth_blockNumber"} 2`,
		`ember_rpc_request_duration_seconds_count{method="other"} 1`,
		`# TYPE ember_rpc_request_duration_seconds histogram`,
		`# TYPE ember_txpool_evicted_total counter`,
		`go_goroutines `, // the default registry, where CometBFT's series live
	} {
		if !strings.Contains(got, "\n"+line) {
			t.Errorf("exposition lacks %q", line)
		}
	}
	if strings.Contains(got, "eth_noSuchMethod") {
		t.Error("an unknown method got its own label")
	}
}

// TestObserveCallAllocs: a successful call of a served method allocates
// nothing.
func TestObserveCallAllocs(t *testing.T) {
	rpc := New(Sources{}).NewRPC([]string{"eth_blockNumber"})
	if n := testing.AllocsPerRun(100, func() { rpc.ObserveCall("eth_blockNumber", 0, time.Millisecond) }); n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}

// TestDBSizes measures the entries of a data directory.
func TestDBSizes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/ember/000001.sst", 1000)
	writeFile(t, dir+"/ember/sub/MANIFEST", 24)
	writeFile(t, dir+"/state.db/x", 5)
	m := New(Sources{})
	m.sampleDBSizes(dir)
	if got := gaugeValue(t, m, "ember", 1024); !got {
		t.Error("ember")
	}
	if got := gaugeValue(t, m, "state.db", 5); !got {
		t.Error("state.db")
	}
}

func writeFile(t *testing.T, path string, size int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gaugeValue(t *testing.T, m *Metrics, db string, want float64) bool {
	t.Helper()
	var out dto.Metric
	if err := m.dbSize.WithLabelValues(db).Write(&out); err != nil {
		t.Fatal(err)
	}
	if got := out.GetGauge().GetValue(); got != want {
		t.Logf("db %s: %v bytes, want %v", db, got, want)
		return false
	}
	return true
}
