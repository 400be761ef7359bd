package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestReadResponse(t *testing.T) {
	raw := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 39\r\n\r\n" +
		`{"jsonrpc":"2.0","id":1,"result":"0x1"}` +
		"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" +
		"5\r\n{\"jso\r\n22;ext=1\r\nnrpc\":\"2.0\",\"id\":1,\"result\":\"0x2\"}\r\n0\r\nTrailer: x\r\n\r\n" +
		"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2\r\nConnection: close\r\n\r\nno"
	br := bufio.NewReader(strings.NewReader(raw))
	for _, want := range []struct {
		status  int
		body    string
		closing bool
	}{
		{200, `{"jsonrpc":"2.0","id":1,"result":"0x1"}`, false},
		{200, `{"jsonrpc":"2.0","id":1,"result":"0x2"}`, false},
		{500, "no", true},
	} {
		status, body, closing, err := readResponse(br, nil)
		if err != nil || status != want.status || string(body) != want.body || closing != want.closing {
			t.Fatalf("got %d %q %v %v, want %+v", status, body, closing, err, want)
		}
	}
}

func TestValidate(t *testing.T) {
	for body, ok := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"result":"0x1"}`:                                true,
		`{"jsonrpc":"2.0","id":1,"result":{"a":"error"}}`:                        true,
		`{"jsonrpc":"2.0","id":1,"result":null}`:                                 false,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"x"}}`:         false,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"\"result\":\"x"}}`: false,
	} {
		if err := validate(200, []byte(body)); (err == nil) != ok {
			t.Errorf("%s: %v", body, err)
		}
	}
	if validate(503, []byte(`{"result":"0x1"}`)) == nil {
		t.Error("HTTP 503 accepted")
	}
}

// The load generator against a real net/http server: every request is
// answered, counted in the window, and a wrong answer is an error.
func TestRunAgainstServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	big := `{"jsonrpc":"2.0","id":1,"result":"0x` + strings.Repeat("ab", 5000) + `"}`
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("big") != "" {
			fmt.Fprint(w, big) // chunked: larger than net/http's buffer
			return
		}
		fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":"0x2a"}`)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String()
	m := method{name: "eth_blockNumber", body: request("eth_blockNumber"), fixed: true}
	s, err := run(url, 0, m, 4, 50*time.Millisecond, 200*time.Millisecond)
	if err != nil || s.errors != 0 || s.requests == 0 || s.respBytes != 40 {
		t.Fatalf("small: %+v %v", s, err)
	}
	s, err = run(url+"/?big=1", 0, m, 4, 50*time.Millisecond, 200*time.Millisecond)
	if err != nil || s.errors != 0 || s.requests == 0 || s.respBytes != len(big) {
		t.Fatalf("chunked: errors %d (%s), %d requests, %d bytes", s.errors, s.firstErr, s.requests, s.respBytes)
	}
	m.check = func(json.RawMessage) error { return fmt.Errorf("wrong") }
	if s, _ = run(url, 0, m, 2, 0, 100*time.Millisecond); s.errors == 0 {
		t.Fatal("wrong answer not counted")
	}
}
