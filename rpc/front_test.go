package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// startFrontServer serves testService as eth, with the front on the HTTP
// port or (noFront) net/http alone.
func startFrontServer(t *testing.T, noFront bool, configure func(*Config)) *Server {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Address, cfg.WSAddress = "127.0.0.1:0", ""
	cfg.API = APIList{"eth"}
	cfg.MaxBodySize = 1 << 10
	if configure != nil {
		configure(&cfg)
	}
	srv, err := NewServer(cfg, []Namespace{{Name: "eth", Service: testService{}}}, Auth{},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv.noFront = noFront
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

// httpReq is one raw HTTP/1.1 request.
func httpReq(body string, headers ...string) string {
	h := "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
	for _, x := range headers {
		h += x + "\r\n"
	}
	return h + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

var dateHeader = regexp.MustCompile(`Date: [^\r]*\r\n`)

// exchange writes each piece on one connection (pausing between pieces, so
// a request may arrive split) and returns everything read until the server
// closes the connection, Date headers blanked.
func exchange(t *testing.T, addr net.Addr, pieces ...string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(c)
		done <- b
	}()
	for _, p := range pieces {
		if _, err := c.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case b := <-done:
		return dateHeader.ReplaceAllString(string(b), "Date: -\r\n")
	case <-time.After(10 * time.Second):
		t.Fatalf("no end of answer to %.300q", pieces)
		return ""
	}
}

// TestFrontAnswersLikeNetHTTP sends the same byte streams to a server with
// the front and to one with net/http alone, and checks every byte of the
// answers is the same (Date aside): fast-path answers, requests the front
// hands to net/http (batches, CORS, tokens, chunked bodies, size limits,
// other methods and versions), several requests on one connection before
// and after a hand-over, pipelined and split requests. Each stream ends
// with "Connection: close", so both servers close the connection.
func TestFrontAnswersLikeNetHTTP(t *testing.T) {
	withFront, plain := startFrontServer(t, false, nil), startFrontServer(t, true, nil)
	var (
		bn     = `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`
		bal    = `{"jsonrpc":"2.0","id":"x","method":"eth_getBalance","params":["0x0000000000000000000000000000000000000007","latest"]}`
		balErr = `{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000007","0x1000"]}`
		revert = `{"jsonrpc":"2.0","id":3,"method":"eth_call","params":["0x"]}`
		crash  = `{"jsonrpc":"2.0","id":4,"method":"eth_call","params":["0xff"]}`
		batch  = `[` + bn + `,` + bal + `]`
		bad    = `{"jsonrpc":"2.0","id":5,"method":"eth_getBalance","params":["0x07","latest"]}`
		close_ = httpReq(bn, "Connection: close")
	)
	streams := map[string][]string{
		"fast":              {httpReq(bn) + httpReq(bal) + httpReq(balErr) + httpReq(revert) + httpReq(crash) + close_},
		"fast, odd spacing": {httpReq(" { \"jsonrpc\" : \"2.0\" , \"id\" : 1e3 , \"method\" : \"eth_blockNumber\" } ") + close_},
		"batch then fast":   {httpReq(bn) + httpReq(batch) + httpReq(bn) + close_},
		"bad params":        {httpReq(bad) + httpReq(bn) + close_},
		"origin":            {httpReq(bn, "Origin: http://example.com") + close_},
		"preflight":         {"OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://a.b\r\nAccess-Control-Request-Method: POST\r\n\r\n" + close_},
		"health":            {"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n" + close_},
		"bearer":            {httpReq(bn, "Authorization: Bearer abc") + close_},
		"too large":         {httpReq(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":["`+strings.Repeat("a", 2000)+`"]}`) + close_},
		"wrong type":        {strings.Replace(httpReq(bn), "application/json", "text/plain", 1) + close_},
		"two types":         {httpReq(bn, "Content-Type: text/plain") + close_},
		"chunked":           {"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(bn), bn) + close_},
		"http/1.0":          {strings.Replace(httpReq(bn), "HTTP/1.1", "HTTP/1.0", 1)},
		"no host":           {strings.Replace(httpReq(bn), "Host: 127.0.0.1\r\n", "", 1)},
		"two hosts":         {httpReq(bn, "Host: other") + close_},
		"put":               {strings.Replace(httpReq(bn), "POST", "PUT", 1) + close_},
		"bad header":        {httpReq(bn, "X-Bad: a\x01b") + close_},
		"folded header":     {httpReq(bn, "X-A: a", " folded") + close_},
		"expect":            {httpReq(bn, "Expect: 100-continue") + close_},
		"empty body":        {httpReq("") + close_},
		"not json":          {httpReq("{not json") + close_},
		"trailing data":     {httpReq(bn+" x") + close_},
		"notification":      {httpReq(`{"jsonrpc":"2.0","method":"eth_blockNumber"}`) + close_},
		"split":             {httpReq(bn)[:10], httpReq(bn)[10:40], httpReq(bn)[40:] + httpReq(bal)[:70], httpReq(bal)[70:] + close_},
		"split then batch":  {httpReq(batch)[:30], httpReq(batch)[30:] + close_},
		"garbage":           {"HELLO\r\n\r\n"},
		"big head":          {httpReq(bn, "X-Pad: "+strings.Repeat("p", 9000)) + close_},
		"foreign host":      {httpReq(bn) + strings.Replace(httpReq(bn), "127.0.0.1", "evil.example", 1) + close_},
	}
	for name, pieces := range streams {
		got, want := exchange(t, withFront.Addr("http"), pieces...), exchange(t, plain.Addr("http"), pieces...)
		if got != want {
			t.Errorf("%s:\nfront:    %q\nnet/http: %q", name, got, want)
		}
		if !strings.HasPrefix(want, "HTTP/1.") {
			t.Errorf("%s: no answer: %q", name, want)
		}
	}
}

// TestFrontHandsOverWebSocket upgrades a connection on the HTTP port and
// calls through it, and uses a kept-alive connection for several calls.
func TestFrontHandsOverWebSocket(t *testing.T) {
	srv := startFrontServer(t, false, nil)
	ctx := context.Background()
	ws, err := gethrpc.DialWebsocket(ctx, "ws://"+srv.Addr("http").String(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var n hexutil.Uint64
	if err := ws.CallContext(ctx, &n, "eth_blockNumber"); err != nil || n != 0x1234 {
		t.Fatalf("over WebSocket: %v %v", n, err)
	}
	c, err := gethrpc.DialHTTP("http://" + srv.Addr("http").String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 3; i++ {
		n = 0
		if err := c.CallContext(ctx, &n, "eth_blockNumber"); err != nil || n != 0x1234 {
			t.Fatalf("over HTTP: %v %v", n, err)
		}
	}
}

// TestFrontStopClosesConnections checks Stop ends kept-alive connections
// the front is serving, and those it handed to net/http.
func TestFrontStopClosesConnections(t *testing.T) {
	srv := startFrontServer(t, false, nil)
	var conns []net.Conn
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`, `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}]`} {
		c, err := net.Dial("tcp", srv.Addr("http").String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte(httpReq(body))); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		if n, err := c.Read(buf); err != nil || !bytes.HasPrefix(buf[:n], []byte("HTTP/1.1 200 OK")) {
			t.Fatalf("answer %q %v", buf[:n], err)
		}
		conns = append(conns, c)
	}
	srv.Stop()
	for i, c := range conns {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if n, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("connection %d still open after Stop (read %d bytes)", i, n)
		} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("connection %d still open after Stop", i)
		}
	}
}

// TestFrontIdleTimeout checks a kept-alive connection is closed after the
// idle timeout, as net/http closes it.
func TestFrontIdleTimeout(t *testing.T) {
	srv := startFrontServer(t, false, func(c *Config) { c.HTTPIdleTimeout = Duration(200 * time.Millisecond) })
	c, err := net.Dial("tcp", srv.Addr("http").String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(httpReq(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`))); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("connection not closed by the server: %v", err)
	}
	if !bytes.Contains(b, []byte(`"result":"0x1234"`)) {
		t.Fatalf("answer %q", b)
	}
}

// TestFrontLargeBody sends a fast-path request whose body is larger than
// the front's buffer, whole and in pieces, and compares with net/http.
func TestFrontLargeBody(t *testing.T) {
	big := func(c *Config) { c.MaxBodySize = 1 << 20 }
	withFront, plain := startFrontServer(t, false, big), startFrontServer(t, true, big)
	input := "0x01" + strings.Repeat("ab", 150_000)
	req := httpReq(`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":["` + input + `"]}`)
	next := httpReq(`{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}`, "Connection: close")
	for name, pieces := range map[string][]string{
		"whole":     {req + next},
		"in pieces": {req[:100], req[100:70_000], req[70_000:] + next},
	} {
		got, want := exchange(t, withFront.Addr("http"), pieces...), exchange(t, plain.Addr("http"), pieces...)
		if got != want {
			t.Errorf("%s: answers differ (%d and %d bytes)", name, len(got), len(want))
		}
		if !strings.Contains(want, input) || !strings.Contains(want, `"id":2,"result":"0x1234"`) {
			t.Errorf("%s: answer %.200q", name, want)
		}
	}
}

// tokenChar holds exactly RFC 9110's tchar: the bytes a header name may
// have (a name with any other goes to net/http).
func TestTokenChar(t *testing.T) {
	tchar := "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for c := 0; c < 256; c++ {
		if want := strings.IndexByte(tchar, byte(c)) >= 0; tokenChar[c] != want {
			t.Errorf("tokenChar[%q] = %v, want %v", byte(c), tokenChar[c], want)
		}
	}
}

// A deadline moves to now+d only when that is more than a tenth of d (at
// most a second) later, or when it is earlier.
func TestLazyDeadline(t *testing.T) {
	var l lazyDeadline
	now := time.Unix(1000, 0)
	if !l.extend(now, 30*time.Second) || !l.at.Equal(now.Add(30*time.Second)) {
		t.Fatalf("first extend: at %v", l.at)
	}
	if l.extend(now.Add(999*time.Millisecond), 30*time.Second) {
		t.Fatal("moved for 0.999 s of a 30 s deadline")
	}
	if !l.extend(now.Add(1001*time.Millisecond), 30*time.Second) || !l.at.Equal(now.Add(31001*time.Millisecond)) {
		t.Fatalf("kept after 1.001 s: at %v", l.at)
	}
	if !l.extend(now.Add(2*time.Second), 5*time.Second) || !l.at.Equal(now.Add(7*time.Second)) {
		t.Fatalf("a shorter d did not bring it earlier: at %v", l.at)
	}
	if l.extend(now.Add(2400*time.Millisecond), 5*time.Second) {
		t.Fatal("moved for 0.4 s of a 5 s deadline (a tenth is 0.5 s)")
	}
	if l.extend(now.Add(time.Hour), 0) {
		t.Fatal("moved for d = 0 (no timeout)")
	}
}

// TestCallDeadline: eth_call gets its request's deadline, 100 ms before the
// write timeout, as go-ethereum's server gives it; from the front, where
// only that deadline can end the request, without a Done channel
// (deadlineOnly; evm.Call turns it into its timer). A call still running at
// its deadline answers "request timed out" either way.
func TestCallDeadline(t *testing.T) {
	for _, noFront := range []bool{false, true} {
		srv := startFrontServer(t, noFront, func(c *Config) { c.HTTPTimeout = Duration(time.Second) })
		call := func(input string) string {
			// Not exchange: the front hands a request asking to close the
			// connection to net/http.
			resp, err := http.Post("http://"+srv.Addr("http").String(), "application/json",
				strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":["`+input+`"]}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			return string(body)
		}
		var got struct {
			Result hexutil.Bytes `json:"result"`
		}
		if err := json.Unmarshal([]byte(call("0xfd")), &got); err != nil || len(got.Result) != 3 {
			t.Fatalf("front %v: context answer %q: %v", !noFront, got.Result, err)
		}
		if doneNil := got.Result[0] == 1; doneNil == noFront {
			t.Errorf("front %v: Done nil = %v", !noFront, doneNil)
		}
		if left := got.Result[2]; got.Result[1] != 1 || left < 80 || left > 90 {
			t.Errorf("front %v: deadline %v, %d0 ms left, want 800-900", !noFront, got.Result[1] == 1, left)
		}
		if body, want := call("0xfe"), `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"request timed out"}}`; body != want {
			t.Errorf("front %v: past its deadline: %s, want %s", !noFront, body, want)
		}
	}
}
