package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/internal/wait"
)

// TestMetricsPrometheus runs a real Prometheus server (Debian's package,
// installed by scripts/prometheus-test.sh when absent) scraping a dev node
// every second while clients load it, and reads the node's series back
// through Prometheus' HTTP API.
func TestMetricsPrometheus(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	prom := startPrometheus(t, n.Metrics)
	prom.waitUp(t)

	// Load: transfers from one account, reads from others, until stopped.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	to := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			tx := n.send(t, devKeys[1].Private, txOpts{To: &to, Value: gwei(1)})
			n.WaitReceipt(t, tx.Hash())
		}
	}()
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := n.Eth.BlockNumber(ctx(t)); err != nil {
				t.Error(err)
				return
			}
			if _, err := n.Eth.BalanceAt(ctx(t), to, nil); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	// Each method the clients call is counted, whichever path answered it
	// (eth_sendRawTransaction goes to go-ethereum's server, the reads to the
	// fast path).
	for _, method := range []string{"eth_blockNumber", "eth_getBalance", "eth_sendRawTransaction", "eth_getTransactionReceipt", "eth_chainId"} {
		q := fmt.Sprintf(`sum(rate(ember_rpc_requests_total{method=%q,code="0"}[1m]))`, method)
		prom.waitFor(t, q, func(v float64) bool { return v > 0 }, "> 0")
	}
	close(stop)
	wg.Wait()

	// At a quiet moment the scraped head is the node's block number.
	prom.waitFor(t, `ember_head_height`, func(v float64) bool {
		num, err := n.Eth.BlockNumber(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		return v == float64(num)
	}, "= eth_blockNumber")
	prom.waitFor(t, `sum(ember_txs_total{code="0"})`, func(v float64) bool { return v > 0 }, "> 0")
	prom.waitFor(t, `ember_explorer_indexed_height`, func(v float64) bool { return v > 0 }, "> 0")
	prom.waitFor(t, `cometbft_consensus_height`, func(v float64) bool { return v > 1 }, "> 1") // CometBFT's own, same endpoint

	// Memory by part (docs/memory.md): the parts read, the limits a dev
	// home's defaults.
	for _, part := range []string{"go_heap_inuse", "go_stacks", "pebble_memtables", "trie_clean_cache", "sqlite_page_cache"} {
		prom.waitFor(t, fmt.Sprintf(`ember_memory_bytes{part=%q}`, part), func(v float64) bool { return v > 0 }, "> 0")
	}
	for part, want := range map[string]float64{"pebble_block_cache": 256 << 20, "pebble_memtables": 256 << 20, "trie_clean_cache": 128 << 20,
		"sqlite_page_cache": 64 << 20 * 16, "sqlite_mmap": 1 << 30} {
		prom.waitFor(t, fmt.Sprintf(`ember_memory_limit_bytes{part=%q}`, part), func(v float64) bool { return v == want }, fmt.Sprint("= ", want))
	}
	prom.waitFor(t, `ember_memory_go_gc_percent`, func(v float64) bool { return v == 400 }, "= 400 (a dev home's)")

	// A nonce gap: the tx after the next goes to queued, then filling the
	// gap makes both pending and then included.
	key := devKeys[2].Private
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce := n.pendingNonce(t, from)
	gapped := n.signTx(t, key, txOpts{To: &to, Nonce: ptr(nonce + 1)})
	n.mustSend(t, gapped)
	prom.waitFor(t, `ember_txpool_queued`, func(v float64) bool { return v == 1 }, "= 1")
	prom.waitFor(t, `ember_txpool_pending`, func(v float64) bool { return v == 0 }, "= 0")
	fill := n.send(t, key, txOpts{To: &to, Nonce: ptr(nonce)})
	n.WaitReceipt(t, fill.Hash())
	n.WaitReceipt(t, gapped.Hash())
	prom.waitFor(t, `ember_txpool_queued`, func(v float64) bool { return v == 0 }, "= 0")
	prom.waitFor(t, `ember_txpool_pending`, func(v float64) bool { return v == 0 }, "= 0")
}

// prometheus is a Prometheus server's HTTP API.
type prometheus struct{ url string }

// startPrometheus starts a server scraping target every second; it is
// stopped when the test ends (or, by the script's watcher, when this test
// binary exits).
func startPrometheus(t *testing.T, target string) prometheus {
	t.Helper()
	dir, err := os.MkdirTemp("", "ember-prometheus-")
	if err != nil {
		t.Fatal(err)
	}
	script := "../../scripts/prometheus-test.sh"
	out, err := exec.Command(script, "start", dir, target, strconv.Itoa(os.Getpid())).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s start: %v\n%s", script, err, stderr)
	}
	t.Cleanup(func() {
		_ = exec.Command(script, "stop", dir).Run()
		if t.Failed() {
			if log, err := os.ReadFile(dir + "/prometheus.log"); err == nil {
				t.Logf("prometheus log:\n%s", log)
			}
		}
		os.RemoveAll(dir)
	})
	return prometheus{url: strings.TrimSpace(string(out))}
}

// waitUp waits until Prometheus has scraped the target successfully.
func (p prometheus) waitUp(t *testing.T) {
	t.Helper()
	p.waitFor(t, `up{job="ember"}`, func(v float64) bool { return v == 1 }, "= 1")
}

// waitFor evaluates query (an instant query with one result) until ok
// accepts its value; it fails the test after a minute, with the last value.
func (p prometheus) waitFor(t *testing.T, query string, ok func(float64) bool, want string) {
	t.Helper()
	wait.Eventually(t, time.Minute, "prometheus: "+query+" "+want, func() error {
		v, found, err := p.query(query)
		switch {
		case err != nil:
			return err
		case !found:
			return errors.New("no result")
		}
		return wait.Check(ok(v), "%s", strconv.FormatFloat(v, 'g', -1, 64))
	})
}

// query runs an instant query and returns the value of its single sample.
func (p prometheus) query(q string) (float64, bool, error) {
	res, err := http.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return 0, false, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, false, err
	}
	var out struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"` // [unix time, "value"]
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return 0, false, fmt.Errorf("decode %s: %w", body, err)
	}
	if out.Status != "success" {
		return 0, false, fmt.Errorf("query failed: %s", out.Error)
	}
	switch len(out.Data.Result) {
	case 0:
		return 0, false, nil
	case 1:
	default:
		return 0, false, fmt.Errorf("%d series, want one: %s", len(out.Data.Result), body)
	}
	s, _ := out.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil, err
}
