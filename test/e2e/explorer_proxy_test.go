package e2e

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/node/config"
)

// TestExplorerProxy drives the contract page from a browser that cannot
// reach the node's JSON-RPC port (Chromium blocks it): reads go through
// the explorer's POST /api/eth-rpc, an ember1… argument is accepted,
// other methods are refused with -32601, and the page shows a
// "Disconnected — retrying…" banner while the node is down and hides it
// when the node is back on the same home and ports.
func TestExplorerProxy(t *testing.T) {
	n := StartDev(t, "--explorer.enable", "--empty-block-interval", "0")
	// `start` (the restart below) reads the explorer settings from app.toml.
	cfg, err := config.Load(n.Home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Explorer.Enable = true
	if err := config.Write(n.Home, cfg); err != nil {
		t.Fatal(err)
	}

	owner := devKeys[6]
	erc20 := contracts.MustLoad("EmberToken")
	supply := "1000000000000000000000000"
	supplyInt, _ := new(big.Int).SetString(supply, 10)
	token := n.deploy(t, owner, erc20, supplyInt)
	n.waitIndexed(t, n.blockNumber(t))
	if status, body := n.verifyMultipart(t, token, artifactFiles(erc20)); status != http.StatusOK {
		t.Fatalf("verify: %d %s", status, body)
	}

	br := startBrowser(t)
	rpcOrigin := "http://" + n.HTTP
	var mu sync.Mutex
	var toRPC []string // requests the page made to the JSON-RPC port
	br.run(t, "block the JSON-RPC port", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{{URLPattern: rpcOrigin + "/*", Block: true}}})
		return err
	}))
	events, stop := context.WithCancel(br.ctx)
	defer stop()
	go func() {
		for ev, err := range chromedp.Events(events, network.RequestWillBeSent) {
			if err != nil {
				return
			}
			if strings.HasPrefix(ev.Request.URL, rpcOrigin) {
				mu.Lock()
				toRPC = append(toRPC, ev.Request.URL)
				mu.Unlock()
			}
		}
	}()
	base := "http://" + n.Explorer
	br.open(t, base+"/address/"+token.Hex()+"#contract")
	if got := get(t, br, "the JSON-RPC port blocked", chromedp.Evaluate[string](`fetch(`+fmt.Sprintf("%q", rpcOrigin)+`, {method: "POST"}).then(() => "reached", (e) => e.name)`, chromedp.EvalAwaitPromise)); got != "TypeError" {
		t.Fatalf("the browser reached the JSON-RPC port: %s", got)
	}
	// totalSupply() is read as the page opens; balanceOf takes the owner
	// as ember1….
	br.expect(t, `[data-method="totalSupply"] [data-field="result"]`, supply)
	sel := `#read-methods [data-method="balanceOf"]`
	query := func(arg string) string {
		br.run(t, "call balanceOf("+arg+")",
			chromedp.SetValue(chromedp.CSS(sel+` input[name="arg0"]`), arg),
			chromedp.Click(chromedp.CSS(sel+` button[type="submit"]`)),
			chromedp.WaitNotPresent(chromedp.JSPath(`[...document.querySelectorAll('`+sel+` [data-field="result"]')].filter(e => e.textContent === "" || e.textContent === "…")`)))
		return br.text(t, sel+` [data-field="result"]`)
	}
	if got := query(accounts.Bech32("ember", owner.Address)); got != supply {
		t.Errorf("balanceOf(ember1… owner) = %q, want %q", got, supply)
	}
	if got := query(owner.Address.Hex()); got != supply {
		t.Errorf("balanceOf(0x owner) = %q, want %q", got, supply)
	}
	other := common.HexToAddress("0x00000000000000000000000000000000000000e1")
	if got := query(accounts.Bech32("ember", other)); got != "0" {
		t.Errorf("balanceOf(ember1… stranger) = %q, want 0", got)
	}
	// One character changed: the checksum fails, said in words.
	bad := []byte(accounts.Bech32("ember", owner.Address))
	if bad[10] == 'q' {
		bad[10] = 'p'
	} else {
		bad[10] = 'q'
	}
	if got, want := query(string(bad)), "address: "+string(bad)+" is not a valid ember1… address (bad checksum or length)"; got != want {
		t.Errorf("bad bech32: %q, want %q", got, want)
	}
	br.shot(t, "proxy-contract")

	// A method the proxy does not forward, as the page's fetch sees it.
	refused := get(t, br, "eth_accounts through the proxy", chromedp.Evaluate[string](`fetch("/api/eth-rpc", {method: "POST", headers: {"content-type": "application/json"},
		body: JSON.stringify({jsonrpc: "2.0", id: 9, method: "eth_accounts", params: []})}).then(async (r) => r.status + " " + await r.text())`, chromedp.EvalAwaitPromise))
	if want := `200 {"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"method eth_accounts is not available through the explorer: it forwards eth_call, eth_estimateGas, eth_chainId and eth_blockNumber"}}`; refused != want {
		t.Errorf("refused method: %s\nwant %s", refused, want)
	}
	mu.Lock()
	if len(toRPC) != 1 { // the probe above, and nothing of the page's
		t.Errorf("requests to the JSON-RPC port: %q, want only the probe", toRPC)
	}
	mu.Unlock()
	br.noErrors(t, "contract through the proxy", regexp.MustCompile(regexp.QuoteMeta(rpcOrigin)))

	// The node stops: the banner shows, the page keeps its content.
	banner := `#connection`
	visible := func() bool {
		return get(t, br, "banner shown", chromedp.Evaluate[bool](`getComputedStyle(document.querySelector("#connection")).display !== "none"`))
	}
	if visible() {
		t.Fatal("the banner shows while the explorer answers")
	}
	n.Stop()
	proxyWaitFor(t, 20*time.Second, "the banner to show", visible)
	br.expect(t, banner, "Disconnected — retrying…")
	if got := br.text(t, `[data-field="contract-name"]`); got != "EmberToken" {
		t.Errorf("contract name while disconnected = %q", got)
	}
	// A read while disconnected says so in words, not "Failed to fetch".
	if got := query(owner.Address.Hex()); got != "the explorer is not answering (disconnected); try again when it is back" {
		t.Errorf("read while disconnected: %q", got)
	}
	br.shot(t, "proxy-disconnected")
	n.Start("start")
	proxyWaitFor(t, 30*time.Second, "the banner to hide", func() bool { return !visible() })
	if got := query(owner.Address.Hex()); got != supply {
		t.Errorf("balanceOf after the restart = %q, want %q", got, supply)
	}
	stop()
	br.noErrors(t, "reconnect", regexp.MustCompile(`ERR_CONNECTION_REFUSED|Failed to fetch|`+regexp.QuoteMeta(rpcOrigin)))
}

// proxyWaitFor polls cond every 250 ms until it holds or d passes.
func proxyWaitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
