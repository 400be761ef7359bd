package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/golang-jwt/jwt/v4"
	"github.com/gorilla/websocket"
)

// jwtSecret reads the node's JWT secret, <home>/config/jwt.hex, as geth
// reads its jwtsecret file: hex, optional 0x, surrounding space ignored.
func (n *Node) jwtSecret(t testing.TB) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(n.Home, "config", "jwt.hex"))
	if err != nil {
		t.Fatalf("read jwt.hex: %v", err)
	}
	secret := common.FromHex(strings.TrimSpace(string(raw)))
	if len(secret) != 32 {
		t.Fatalf("jwt.hex holds %d bytes, want 32", len(secret))
	}
	return secret
}

// jwtToken signs an HS256 token with claim iat, as geth's node.NewJWTAuth
// (what Foundry's --jwt-secret and the engine API clients do).
func jwtToken(t testing.TB, secret []byte, iat time.Time) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iat": iat.Unix()}).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// privateClient is a JSON-RPC client on the node's HTTP endpoint that sends
// a fresh token (iat = now) signed with secret on every request.
func (n *Node) privateClient(t testing.TB, secret []byte) *rpc.Client {
	t.Helper()
	auth := func(h http.Header) error {
		h.Set("Authorization", "Bearer "+jwtToken(t, secret, time.Now()))
		return nil
	}
	c, err := rpc.DialOptions(context.Background(), "http://"+n.HTTP, rpc.WithHTTPAuth(auth))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// CallPrivate calls a method of a private namespace (personal, miner) over
// HTTP with a fresh JWT made from the node's jwt.hex, and fails the test on
// an error.
func (n *Node) CallPrivate(t testing.TB, result any, method string, params ...any) {
	t.Helper()
	if err := n.CallPrivateErr(t, result, method, params...); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// CallPrivateErr is CallPrivate returning the call's error.
func (n *Node) CallPrivateErr(t testing.TB, result any, method string, params ...any) error {
	t.Helper()
	c := n.privateClient(t, n.jwtSecret(t))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return c.CallContext(ctx, result, method, params...)
}

// postJSON posts a JSON-RPC body to the node with an optional
// Authorization header and returns the status and body.
func (n *Node) postJSON(t testing.TB, authorization, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+n.HTTP, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// keyFiles counts the key files in the node's keyring of backend.
func (n *Node) keyFiles(t testing.TB, backend string) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(n.Home, "keyring-"+backend))
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestAuthPrivateCallsRefused: personal_* without a JWT, with a wrong
// secret, with a stale iat, in a batch, and over a WebSocket opened without
// or with a bad token is refused with the documented errors, and none of
// them creates a key; with a fresh token (from the test, from `emberd auth
// token`, on HTTP and on the WebSocket upgrade) it works.
func TestAuthPrivateCallsRefused(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	st, err := os.Stat(filepath.Join(n.Home, "config", "jwt.hex"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("jwt.hex: %v %v", st, err)
	}
	secret := n.jwtSecret(t)
	before := n.keyFiles(t, "test")
	if before != 10 {
		t.Fatalf("%d key files in keyring-test, want the 10 dev keys", before)
	}
	newAccount := `{"jsonrpc":"2.0","id":1,"method":"personal_newAccount","params":["pw"]}`
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-40100,"message":"authentication required: personal_newAccount is in the private \"personal\" namespace; ` +
		`send the header 'Authorization: Bearer \u003cJWT\u003e' ('emberd auth token' makes one)"}}`
	if status, got := n.postJSON(t, "", newAccount); status != 200 || got != want {
		t.Errorf("no token:\n got %d %s\nwant 200 %s", status, got, want)
	}
	// The refusal names no path of the server.
	for _, verb := range []string{http.MethodPost, http.MethodPatch, http.MethodOptions} {
		req, _ := http.NewRequest(verb, "http://"+n.HTTP, strings.NewReader(newAccount))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(got) != want || bytes.Contains(got, []byte(n.Home)) || bytes.Contains(got, []byte("jwt.hex")) {
			t.Errorf("%s without token: %d %s", verb, resp.StatusCode, got)
		}
	}
	mixed := `[{"jsonrpc":"2.0","id":1,"method":"personal_listAccounts"}, 5, null]`
	wantMixed := `[{"jsonrpc":"2.0","id":1,"error":{"code":-40100,"message":"authentication required: personal_listAccounts is in the private \"personal\" namespace; ` +
		`send the header 'Authorization: Bearer \u003cJWT\u003e' ('emberd auth token' makes one)"}},` +
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]`
	if status, got := n.postJSON(t, "", mixed); status != 200 || got != wantMixed {
		t.Errorf("batch with non-objects:\n got %d %s\nwant 200 %s", status, got, wantMixed)
	}
	// The same non-object items without a private call: go-ethereum's answer.
	if status, got := n.postJSON(t, "", `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}, 5, null]`); status != 200 ||
		!strings.HasSuffix(got, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]`) {
		t.Errorf("public batch with non-objects: %d %s", status, got)
	}
	// A method name of 10,000 characters is an unknown method; the server
	// keeps answering.
	long := strings.Repeat("x", 10_000)
	if status, got := n.postJSON(t, "", `{"jsonrpc":"2.0","id":9,"method":"`+long+`"}`); status != 200 ||
		got != `{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"the method `+long+` does not exist/is not available"}}` {
		t.Errorf("long method: %d %.300s", status, got)
	}
	if status, got := n.postJSON(t, "", `{"jsonrpc":"2.0","id":10,"method":"eth_chainId"}`); status != 200 || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":10,"result":"0x`) {
		t.Errorf("after the long method: %d %s", status, got)
	}
	batch := `[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"personal_newAccount","params":["pw"]}]`
	if status, got := n.postJSON(t, "", batch); status != 200 || !strings.Contains(got, `"id":1,"error":{"code":-40100,"message":"not executed`) {
		t.Errorf("batch without token: %d %s", status, got)
	}
	wrong := bytes.Repeat([]byte{0x42}, 32)
	for _, c := range []struct{ name, token, want string }{
		{"wrong secret", jwtToken(t, wrong, time.Now()),
			"invalid JWT: the signature does not match this node's secret\"}}"},
		{"stale iat", jwtToken(t, secret, time.Now().Add(-90*time.Second)), "invalid JWT: stale token: iat "},
	} {
		status, got := n.postJSON(t, "Bearer "+c.token, newAccount)
		if status != http.StatusUnauthorized || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":null,"error":{"code":-40100,"message":"`+c.want) {
			t.Errorf("%s: %d %s", c.name, status, got)
		}
		// The same through go-ethereum's client, as a wallet sees it.
		c2, _ := rpc.DialOptions(context.Background(), "http://"+n.HTTP, rpc.WithHeader("Authorization", "Bearer "+c.token))
		var addr common.Address
		err := c2.Call(&addr, "personal_newAccount", "pw")
		c2.Close()
		var httpErr rpc.HTTPError
		if !errors.As(err, &httpErr) || httpErr.StatusCode != 401 || !strings.Contains(string(httpErr.Body), c.want) {
			t.Errorf("%s through the client: %v", c.name, err)
		}
	}

	// WebSocket: a bad token is refused at the upgrade; without a token the
	// connection has only the public namespaces.
	_, resp, err := websocket.DefaultDialer.Dial("ws://"+n.WS, http.Header{"Authorization": {"Bearer " + jwtToken(t, wrong, time.Now())}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("WebSocket upgrade with a wrong secret: %v %v", resp, err)
	}
	pub, err := rpc.Dial("ws://" + n.WS)
	if err != nil {
		t.Fatal(err)
	}
	var addr common.Address
	if err := pub.Call(&addr, "personal_newAccount", "pw"); err == nil || !strings.Contains(err.Error(), "does not exist/is not available") {
		t.Errorf("personal_newAccount on an unauthenticated WebSocket: %v", err)
	}
	pub.Close()
	if got := n.keyFiles(t, "test"); got != before {
		t.Fatalf("refused calls created %d key files", got-before)
	}

	// Authenticated: the test's token on HTTP, on the WebSocket upgrade, and
	// the CLI's token.
	n.CallPrivate(t, &addr, "personal_newAccount", "pw")
	ws, err := rpc.DialOptions(context.Background(), "ws://"+n.WS,
		rpc.WithHeaders(http.Header{"Authorization": {"Bearer " + jwtToken(t, secret, time.Now())}}))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var listed []common.Address
	if err := ws.Call(&listed, "personal_listAccounts"); err != nil || len(listed) != 11 || !slices.Contains(listed, addr) {
		t.Fatalf("personal_listAccounts over an authenticated WebSocket: %v %v", listed, err)
	}
	out, err := exec.Command(emberdBin, "auth", "token", "--home", n.Home).Output()
	if err != nil {
		t.Fatalf("emberd auth token: %v", err)
	}
	status, got := n.postJSON(t, "Bearer "+strings.TrimSpace(string(out)), `{"jsonrpc":"2.0","id":1,"method":"personal_listAccounts","params":[]}`)
	if status != 200 || !strings.Contains(got, strings.ToLower(addr.Hex())) {
		t.Fatalf("with the CLI's token: %d %s", status, got)
	}
	if got := n.keyFiles(t, "test"); got != before+1 {
		t.Fatalf("%d new key files, want 1", got-before)
	}
	// emberd dev told how to get here.
	banner, _ := os.ReadFile(n.logPath)
	for _, line := range []string{
		"Private    personal, miner: header 'Authorization: Bearer <JWT>', HS256 with the secret in " + filepath.Join(n.Home, "config", "jwt.hex"),
		`curl -H "Authorization: Bearer $(emberd auth token --home ` + n.Home + `)"`,
		"cast rpc --rpc-url http://" + n.HTTP + " --jwt-secret " + hex.EncodeToString(secret) + " personal_listAccounts",
	} {
		if !bytes.Contains(banner, []byte(line)) {
			t.Errorf("dev banner lacks %q", line)
		}
	}
}
