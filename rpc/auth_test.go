package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/golang-jwt/jwt/v4"
	"github.com/gorilla/websocket"
)

// privService counts the calls that ran.
type privService struct{ calls atomic.Int64 }

func (p *privService) NewAccount(pass string) string { p.calls.Add(1); return "0xnew" }

var testSecret = bytes.Repeat([]byte{7}, 32)

// startAuthServer serves eth (public) and personal (private), with the
// authenticator's clock at now (nil: the real one).
func startAuthServer(t *testing.T, now func() time.Time, api ...string) (*Server, *privService) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Address, cfg.WSAddress = "127.0.0.1:0", ""
	cfg.API = api
	priv := &privService{}
	srv, err := NewServer(cfg, []Namespace{{Name: "eth", Service: testService{}}, {Name: "personal", Service: priv}},
		Auth{Secret: testSecret}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if now != nil && srv.auth != nil {
		srv.auth.now = now
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv, priv
}

func token(t *testing.T, secret []byte, claims jwt.MapClaims) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// post sends body with an optional bearer token and returns status and body.
func post(t *testing.T, srv *Server, tok, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+srv.Addr("http").String(), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

const authRequired = `authentication required: personal_newAccount is in the private \"personal\" namespace; send the header 'Authorization: Bearer \u003cJWT\u003e' ('emberd auth token' makes one)`

// TestPrivateCallsNeedToken checks the exact answers to private calls
// without a token (single, batch, notification, chunked body) and that none
// of them ran, and that public calls are unaffected.
func TestPrivateCallsNeedToken(t *testing.T) {
	srv, priv := startAuthServer(t, nil, "eth", "personal")
	for _, c := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`, `{"jsonrpc":"2.0","id":1,"result":"0x1234"}`},
		{`{"jsonrpc":"2.0","id":7,"method":"personal_newAccount","params":["x"]}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-40100,"message":"` + authRequired + `"}}`},
		{`[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":"a","method":"personal_newAccount","params":["x"]},{"jsonrpc":"2.0","method":"personal_newAccount","params":["x"]}]`,
			`[{"jsonrpc":"2.0","id":1,"error":{"code":-40100,"message":"not executed: this batch also calls private methods, which need authentication"}},` +
				`{"jsonrpc":"2.0","id":"a","error":{"code":-40100,"message":"` + authRequired + `"}}]`},
		{`{"jsonrpc":"2.0","method":"personal_newAccount","params":["x"]}`, ``},
		// Non-object items answer -32600 with id null, as without a private call.
		{`[{"jsonrpc":"2.0","id":1,"method":"personal_listAccounts"}, 5, null]`,
			`[{"jsonrpc":"2.0","id":1,"error":{"code":-40100,"message":"authentication required: personal_listAccounts is in the private \"personal\" namespace; send the header 'Authorization: Bearer \u003cJWT\u003e' ('emberd auth token' makes one)"}},` +
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]`},
		{`[5, null]`, `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]`},
		// JSON escapes get past the guard's wording, not the server: "not found".
		{`{"jsonrpc":"2.0","id":2,"method":"\u0070ersonal_newAccount","params":["x"]}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"the method personal_newAccount does not exist/is not available"}}`},
	} {
		status, got := post(t, srv, "", c.body)
		if status != http.StatusOK || strings.TrimSpace(got) != c.want {
			t.Errorf("%s:\n got %d %s\nwant 200 %s", c.body, status, got, c.want)
		}
	}
	// A chunked body (no Content-Length) is read by the guard too.
	req, _ := http.NewRequest(http.MethodPost, "http://"+srv.Addr("http").String(),
		io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":3,`), strings.NewReader(`"method":"personal_newAccount","params":["x"]}`)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := `{"jsonrpc":"2.0","id":3,"error":{"code":-40100,"message":"` + authRequired + `"}}`; string(body) != want {
		t.Errorf("chunked: %s", body)
	}
	if n := priv.calls.Load(); n != 0 {
		t.Fatalf("%d private calls ran without a token", n)
	}
}

// TestTokenChecks accepts a fresh token and refuses, with 401 and the
// reason, a wrong secret, a stale or future iat, no iat, another algorithm
// and garbage; a refused request runs nothing, public methods included.
func TestTokenChecks(t *testing.T) {
	now := time.Unix(time.Now().Unix(), 0) // whole seconds, as iat
	srv, priv := startAuthServer(t, func() time.Time { return now }, "eth", "personal")
	call := `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":2,"method":"personal_newAccount","params":["x"]}]`
	status, got := post(t, srv, token(t, testSecret, jwt.MapClaims{"iat": now.Unix()}), call)
	if want := `[{"jsonrpc":"2.0","id":1,"result":"0x1234"},{"jsonrpc":"2.0","id":2,"result":"0xnew"}]`; status != 200 || strings.TrimSpace(got) != want {
		t.Fatalf("valid token: %d %s", status, got)
	}
	// Clock drift within 60 s either way is fine.
	for _, iat := range []time.Time{now.Add(-50 * time.Second), now.Add(50 * time.Second)} {
		if status, got := post(t, srv, token(t, testSecret, jwt.MapClaims{"iat": iat.Unix()}), call); status != 200 {
			t.Errorf("iat %v: %d %s", iat.Sub(now), status, got)
		}
	}
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.MapClaims{"iat": now.Unix()}).SignedString(testSecret)
	for _, c := range []struct{ name, tok, want string }{
		{"wrong secret", token(t, bytes.Repeat([]byte{8}, 32), jwt.MapClaims{"iat": now.Unix()}),
			"invalid JWT: the signature does not match this node's secret"},
		{"stale", token(t, testSecret, jwt.MapClaims{"iat": now.Add(-2 * time.Minute).Unix()}),
			"invalid JWT: stale token: iat " + itoa(now.Add(-2*time.Minute).Unix()) + " is 2m0s before the node's clock (at most 1m0s allowed)"},
		{"future", token(t, testSecret, jwt.MapClaims{"iat": now.Add(2 * time.Minute).Unix()}),
			"invalid JWT: iat " + itoa(now.Add(2*time.Minute).Unix()) + " is 2m0s after the node's clock (at most 1m0s allowed)"},
		{"no iat", token(t, testSecret, jwt.MapClaims{}), "invalid JWT: no iat (issued-at) claim"},
		{"expired", token(t, testSecret, jwt.MapClaims{"iat": now.Unix(), "exp": now.Add(-time.Second).Unix()}), "invalid JWT: token is expired (exp)"},
		{"HS512", hs512, "invalid JWT: signing method HS512 is invalid"},
		{"garbage", "abc", "invalid JWT: token contains an invalid number of segments"},
	} {
		status, got := post(t, srv, c.tok, call)
		want := `{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"` + c.want + `"}}`
		if status != http.StatusUnauthorized || got != want {
			t.Errorf("%s:\n got %d %s\nwant 401 %s", c.name, status, got, want)
		}
	}
	if n := priv.calls.Load(); n != 3 {
		t.Fatalf("%d private calls ran, want the 3 authenticated ones", n)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestWebSocketUpgradeAuth: a token is checked at the upgrade; with a
// valid one the connection reaches personal, without one only the public
// namespaces, with a bad one the upgrade is refused.
func TestWebSocketUpgradeAuth(t *testing.T) {
	srv, priv := startAuthServer(t, nil, "eth", "personal")
	url := "ws://" + srv.Addr("http").String()
	hdr := func(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }

	_, resp, err := websocket.DefaultDialer.Dial(url, hdr(token(t, testSecret, jwt.MapClaims{"iat": time.Now().Add(-time.Hour).Unix()})))
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("stale token upgrade: %v %v", resp, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "stale token") {
		t.Fatalf("refusal body: %s", body)
	}

	ctx := context.Background()
	c, err := gethrpc.DialOptions(ctx, url, gethrpc.WithHeaders(hdr(token(t, testSecret, jwt.MapClaims{"iat": time.Now().Unix()}))))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out string
	if err := c.Call(&out, "personal_newAccount", "x"); err != nil || out != "0xnew" {
		t.Fatalf("authenticated WebSocket: %q %v", out, err)
	}

	pub, err := gethrpc.DialWebsocket(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	if err := pub.Call(&out, "eth_blockNumber"); err != nil {
		t.Fatal(err)
	}
	if err := pub.Call(&out, "personal_newAccount", "x"); err == nil {
		t.Fatal("private call on an unauthenticated WebSocket ran")
	}
	if n := priv.calls.Load(); n != 1 {
		t.Fatalf("%d private calls ran, want 1", n)
	}
}

// TestNoPrivateNamespaceNoAuth: with no private namespace enabled the server
// ignores Authorization headers (a proxy's) as it always did.
func TestNoPrivateNamespaceNoAuth(t *testing.T) {
	srv, _ := startAuthServer(t, nil, "eth")
	if srv.auth != nil || srv.priv != nil {
		t.Fatal("auth set up without a private namespace")
	}
	status, got := post(t, srv, "garbage", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`)
	if status != 200 || strings.TrimSpace(got) != `{"jsonrpc":"2.0","id":1,"result":"0x1234"}` {
		t.Fatalf("%d %s", status, got)
	}
}

// TestJWTSecretFile: created once with mode 0600, then read back; NewJWT's
// tokens verify.
func TestJWTSecretFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config", "jwt.hex")
	secret, err := EnsureJWTSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", st, err)
	}
	again, err := EnsureJWTSecret(path)
	if err != nil || !bytes.Equal(again, secret) {
		t.Fatalf("second load: %x %v", again, err)
	}
	tok, err := NewJWT(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := newAuthenticator(Auth{Secret: secret}).verify(tok); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("0x1234"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadJWTSecret(path); err == nil || !strings.Contains(err.Error(), "2 bytes, want 32") {
		t.Fatalf("short secret: %v", err)
	}
}

// TestPrivateCallsAnyVerb: go-ethereum's server runs PATCH, OPTIONS and GET
// bodies as JSON-RPC too, so the guard answers them as it answers POST.
func TestPrivateCallsAnyVerb(t *testing.T) {
	srv, priv := startAuthServer(t, nil, "eth", "personal")
	for _, verb := range []string{http.MethodPatch, http.MethodOptions, http.MethodGet} {
		req, _ := http.NewRequest(verb, "http://"+srv.Addr("http").String(),
			strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"personal_newAccount","params":["x"]}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := `{"jsonrpc":"2.0","id":7,"error":{"code":-40100,"message":"` + authRequired + `"}}`; resp.StatusCode != 200 || string(body) != want {
			t.Errorf("%s: %d %s", verb, resp.StatusCode, body)
		}
	}
	if n := priv.calls.Load(); n != 0 {
		t.Fatalf("%d private calls ran without a token", n)
	}
}

// TestLongMethodName: a method name longer than go-ethereum's 2,048 is an
// unknown method (-32601), with or without private namespaces; the server
// answers the next call.
func TestLongMethodName(t *testing.T) {
	long := strings.Repeat("a", 10_000)
	for _, api := range [][]string{{"eth"}, {"eth", "personal"}} {
		srv, _ := startAuthServer(t, nil, api...)
		status, got := post(t, srv, "", `{"jsonrpc":"2.0","id":1,"method":"`+long+`"}`)
		if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method ` + long + ` does not exist/is not available"}}`; status != 200 || got != want {
			t.Errorf("%v: %d %.200s", api, status, got)
		}
		status, got = post(t, srv, "", `{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}`)
		if want := `{"jsonrpc":"2.0","id":2,"result":"0x1234"}`; status != 200 || strings.TrimSpace(got) != want {
			t.Errorf("%v after: %d %s", api, status, got)
		}
	}
}
