package api

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ethRPCSite is the explorer's handler forwarding to upstream, with what
// upstream received.
func ethRPCSite(t *testing.T, upstream string) http.Handler {
	t.Helper()
	return Site(&Backend{Store: nil, Prefix: "ember", JSONRPCURL: upstream}, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

func postRPC(t *testing.T, h http.Handler, body string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/eth-rpc", strings.NewReader(body)))
	return rec.Code, strings.TrimSpace(rec.Body.String())
}

func TestEthRPCProxy(t *testing.T) {
	var got []string
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.Header.Get("Content-Type")+" "+string(b))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":"0x2a"}`)
	}))
	defer node.Close()
	h := ethRPCSite(t, node.URL)

	// Allowed: forwarded with only the JSON-RPC fields, answered verbatim.
	code, body := postRPC(t, h, `{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"to":"0x00000000000000000000000000000000000000aa","data":"0x70a08231"},"latest"],"extra":1}`)
	if code != 200 || body != `{"jsonrpc":"2.0","id":7,"result":"0x2a"}` {
		t.Fatalf("eth_call: %d %s", code, body)
	}
	want := `POST application/json {"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"to":"0x00000000000000000000000000000000000000aa","data":"0x70a08231"},"latest"]}`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("node received %q, want %q", got, want)
	}
	for _, m := range []string{"eth_chainId", "eth_blockNumber", "eth_estimateGas"} {
		if code, body := postRPC(t, h, `{"jsonrpc":"2.0","id":7,"method":"`+m+`","params":[]}`); code != 200 || body != `{"jsonrpc":"2.0","id":7,"result":"0x2a"}` {
			t.Errorf("%s: %d %s", m, code, body)
		}
	}
	got = nil

	// Refused, never reaching the node.
	refusals := []struct{ name, body, want string }{
		{"send", `{"jsonrpc":"2.0","id":"a","method":"eth_sendRawTransaction","params":["0x00"]}`,
			`{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"method eth_sendRawTransaction is not available through the explorer: it forwards eth_call, eth_estimateGas, eth_chainId and eth_blockNumber"}}`},
		{"personal", `{"jsonrpc":"2.0","id":3,"method":"personal_listAccounts"}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method personal_listAccounts is not available through the explorer: it forwards eth_call, eth_estimateGas, eth_chainId and eth_blockNumber"}}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}]`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batches are not accepted here: send one request at a time"}}`},
		{"not json", `eth_call`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"not a JSON-RPC request: invalid character 'e' looking for beginning of value"}}`},
		{"no version", `{"id":1,"method":"eth_chainId"}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"want {\"jsonrpc\":\"2.0\",\"id\":…,\"method\":…,\"params\":[…]}"}}`},
	}
	for _, c := range refusals {
		if code, body := postRPC(t, h, c.body); code != 200 || body != c.want {
			t.Errorf("%s: %d %s\nwant 200 %s", c.name, code, body, c.want)
		}
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"data":"0x` + strings.Repeat("00", ethRPCMaxBody) + `"}]}`
	if code, body := postRPC(t, h, big); code != http.StatusRequestEntityTooLarge || body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body larger than 131072 bytes"}}` {
		t.Errorf("too big: %d %s", code, body)
	}
	if len(got) != 0 {
		t.Errorf("refused requests reached the node: %q", got)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/eth-rpc", nil))
	if body := strings.TrimSpace(rec.Body.String()); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "POST" ||
		body != `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"POST a JSON-RPC request to /api/eth-rpc"}}` {
		t.Errorf("GET /api/eth-rpc: %d %s", rec.Code, body)
	}

	// The node gone: a 502 the page can tell from a refusal, without the
	// node's address.
	node.Close()
	if code, body := postRPC(t, h, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`); code != http.StatusBadGateway || body != `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"the node's JSON-RPC did not answer"}}` {
		t.Errorf("node down: %d %s", code, body)
	}
	// No upstream configured.
	if code, body := postRPC(t, ethRPCSite(t, ""), `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`); code != http.StatusServiceUnavailable || body != `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"this explorer knows no JSON-RPC endpoint to forward to"}}` {
		t.Errorf("no upstream: %d %s", code, body)
	}
}

func TestUpstreamURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://0.0.0.0:8545":   "http://127.0.0.1:8545",
		"http://[::]:8545":      "http://127.0.0.1:8545",
		"http://127.0.0.1:8545": "http://127.0.0.1:8545",
		"https://rpc.example/x": "https://rpc.example/x",
	} {
		if got := upstreamURL(in); got != want {
			t.Errorf("upstreamURL(%q) = %q, want %q", in, got, want)
		}
	}
}
