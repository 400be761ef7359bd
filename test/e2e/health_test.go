package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/emberchain/ember/internal/wait"
	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/rpc"
)

// TestReadinessHaltedNetwork runs two validators (each needed for more than
// two thirds of the votes) with [health] max-block-age 2s and metrics on.
// While both run, validator 0's GET /ready answers 200 ready and its
// metrics read ember_ready 1, ember_consensus_halted 0. With validator 1
// stopped the chain halts: within seconds /ready answers 503 with "no
// block for" and ember_ready reads 0, ember_head_age_seconds more than 2.
// CometBFT's /health still answers 200 (the process works; it is the
// network that does not). Validator 1 back, blocks resume and validator 0
// reads ready again.
func TestReadinessHaltedNetwork(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 2, 0)
	vals := nw.Nodes
	for _, n := range vals {
		cfg, err := config.Load(n.Home)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Metrics.Enable = true
		cfg.Health.MaxBlockAge = rpc.Duration(2 * time.Second)
		if err := config.Write(n.Home, cfg); err != nil {
			t.Fatal(err)
		}
		n.Metrics = "127.0.0.1:" + strconv.Itoa(freePort(t))
		n.Start("start")
	}
	waitAllHeight(t, 3, vals...)
	v0 := vals[0]
	ready := waitReadiness(t, v0, true)
	if ready.Halted || ready.CatchingUp || ready.Reason != "" || ready.BlocksBehind > 1 {
		t.Errorf("ready answer of a healthy validator: %+v", ready)
	}
	if m := scrape(t, v0); m["ember_ready"] != 1 || m["ember_consensus_halted"] != 0 || m["ember_catching_up"] != 0 {
		t.Errorf("healthy validator's metrics: %v", m)
	}

	vals[1].Stop()
	notReady := waitReadiness(t, v0, false)
	if !strings.HasPrefix(notReady.Reason, "no block for ") || notReady.BlockAgeSeconds <= 2 || notReady.Halted {
		t.Errorf("ready answer of a validator whose chain halted: %+v", notReady)
	}
	if m := scrape(t, v0); m["ember_ready"] != 0 || m["ember_head_age_seconds"] <= 2 || m["ember_consensus_halted"] != 0 {
		t.Errorf("metrics of a validator whose chain halted: %v", m)
	}
	if code, body := getStatus("http://" + v0.CometRPC + "/health"); code != http.StatusOK {
		t.Errorf("CometBFT /health of a running validator of a halted chain: %d %s", code, body)
	}
	t.Logf("halted chain: %+v", notReady)

	vals[1].Start("start")
	waitAllHeight(t, notReady.Height+2, vals...)
	waitReadiness(t, v0, true)
}

// waitReadiness polls GET /ready until it answers ready (200) or not (503)
// as want says, and returns that answer.
func waitReadiness(t *testing.T, n *Node, want bool) rpc.Readiness {
	t.Helper()
	return wait.For(t, 30*time.Second, fmt.Sprintf("/ready to read %v", want), func() (rpc.Readiness, error) {
		code, body := getStatus("http://" + n.HTTP + rpc.ReadyPath)
		var r rpc.Readiness
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			return r, fmt.Errorf("%d %s: %v", code, body, err)
		}
		if wantCode := map[bool]int{true: http.StatusOK, false: http.StatusServiceUnavailable}[r.Ready]; code != wantCode {
			return r, wait.Stop(fmt.Errorf("status %d with %s", code, body))
		}
		if r.Ready != want {
			return r, fmt.Errorf("%s", body)
		}
		return r, nil
	})
}

var sample = regexp.MustCompile(`(?m)^(ember_[a-z_]+) (\S+)$`)

// scrape reads the node's unlabelled ember_* series.
func scrape(t *testing.T, n *Node) map[string]float64 {
	t.Helper()
	res, err := http.Get("http://" + n.Metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]float64)
	for _, m := range sample.FindAllStringSubmatch(string(b), -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			t.Fatalf("%s %s: %v", m[1], m[2], err)
		}
		out[m[1]] = v
	}
	return out
}

// TestVirtualHostsDefault sends eth_chainId to a dev node's JSON-RPC HTTP
// port with several Host headers: evil.example (and a name ending in
// .localhost's look-alike) get 403 "invalid host specified", localhost and
// 127.0.0.1 the chain id; a WebSocket upgrade naming evil.example on the
// WebSocket port gets 403 too. A node started with --json-rpc.vhosts
// node.example serves that name and refuses localhost.
func TestVirtualHostsDefault(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	const chainID = `{"jsonrpc":"2.0","id":1,"result":"0x7a69"}` // 31337, the dev chain
	for host, want := range map[string]string{
		"evil.example": "403 invalid host specified", "evil.example:8545": "403 invalid host specified",
		"localhost.evil.example": "403 invalid host specified",
		"localhost":              "200 " + chainID, "localhost:8545": "200 " + chainID,
		"127.0.0.1": "200 " + chainID, n.HTTP: "200 " + chainID,
	} {
		if got := postWithHost(t, n.HTTP, host); got != want {
			t.Errorf("Host %s: %q, want %q", host, got, want)
		}
	}
	for host, status := range map[string]int{"evil.example": http.StatusForbidden, "localhost": http.StatusSwitchingProtocols} {
		c, res, err := websocket.DefaultDialer.Dial("ws://"+n.WS, http.Header{"Host": {host}})
		if c != nil {
			c.Close()
		}
		if res == nil || res.StatusCode != status {
			t.Errorf("WebSocket port, Host %s: %v %v, want %d", host, res, err, status)
		}
	}

	named := StartDev(t, "--json-rpc.vhosts", "node.example")
	for host, want := range map[string]string{
		"node.example": "200 " + chainID, "NODE.example:443": "200 " + chainID,
		"localhost": "403 invalid host specified", "127.0.0.1": "200 " + chainID,
	} {
		if got := postWithHost(t, named.HTTP, host); got != want {
			t.Errorf("vhosts node.example, Host %s: %q, want %q", host, got, want)
		}
	}
}

// postWithHost is the status code and trimmed body of eth_chainId sent
// to addr with Host: host.
func postWithHost(t *testing.T, addr, host string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return strconv.Itoa(res.StatusCode) + " " + strings.TrimSpace(string(b))
}
