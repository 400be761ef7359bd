package rpc

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// hostAnswer is the status line and body of the answer to one
// eth_blockNumber sent with Host: host. A request the front may take
// follows, on the same connection, one that closes it (which the front
// leaves to net/http).
func hostAnswer(t *testing.T, srv *Server, host string) string {
	t.Helper()
	bn := `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`
	req := strings.Replace(httpReq(bn), "Host: 127.0.0.1", "Host: "+host, 1)
	got := exchange(t, srv.Addr("http"), req+httpReq(bn, "Connection: close"))
	status, rest, _ := strings.Cut(got, "\r\n")
	_, rest, _ = strings.Cut(rest, "\r\n\r\n")
	body, _, _ := strings.Cut(rest, "HTTP/1.1 ")
	return status + " " + body
}

const (
	blockNumberOK = "HTTP/1.1 200 OK " + `{"jsonrpc":"2.0","id":1,"result":"0x1234"}`
	hostRefused   = "HTTP/1.1 403 Forbidden invalid host specified\n"
)

// TestVirtualHosts checks geth's vhosts rules on the HTTP port, with the
// fast front and with net/http alone: by default localhost and any IP
// address are served and another name is refused with 403; configured
// names replace localhost; "*" serves every name.
func TestVirtualHosts(t *testing.T) {
	cases := []struct {
		vhosts []string
		want   map[string]string
	}{
		{nil, nil}, // the default
		{[]string{"Node.Example", "rpc.internal"}, map[string]string{
			"node.example:8545": blockNumberOK, "RPC.internal": blockNumberOK, "localhost:8545": hostRefused,
			"localhost": hostRefused, "127.0.0.1": blockNumberOK, "evil.example": hostRefused,
		}},
		{[]string{"*"}, map[string]string{"evil.example": blockNumberOK, "localhost": blockNumberOK}},
	}
	defaults := map[string]string{
		"localhost": blockNumberOK, "localhost:8545": blockNumberOK, "LocalHost:1": blockNumberOK,
		"127.0.0.1": blockNumberOK, "127.0.0.1:8545": blockNumberOK, "[::1]:8545": blockNumberOK, "10.1.2.3:80": blockNumberOK,
		"evil.example": hostRefused, "evil.example:8545": hostRefused, "localhost.evil.example": hostRefused,
		"127.0.0.1.nip.io": hostRefused,
	}
	for _, c := range cases {
		want := c.want
		if want == nil {
			want = defaults
		}
		for _, noFront := range []bool{false, true} {
			srv := startFrontServer(t, noFront, func(cfg *Config) {
				if c.vhosts != nil {
					cfg.VHosts = c.vhosts
				}
			})
			for host, w := range want {
				if got := hostAnswer(t, srv, host); got != w {
					t.Errorf("vhosts %v, front %v, Host %s: got %q, want %q", c.vhosts, !noFront, host, got, w)
				}
			}
		}
	}
}

// TestVirtualHostsWebSocket checks the WebSocket port and upgrades on the
// HTTP port refuse a foreign Host with 403 and accept localhost.
func TestVirtualHostsWebSocket(t *testing.T) {
	srv := startFrontServer(t, false, func(cfg *Config) { cfg.WSAddress = "localhost:0" }) // not the HTTP address: a port of its own
	for _, kind := range []string{"http", "ws"} {
		url := "ws://" + srv.Addr(kind).String()
		for host, status := range map[string]int{"evil.example": http.StatusForbidden, "localhost": http.StatusSwitchingProtocols} {
			h := http.Header{"Host": {host}}
			c, res, err := websocket.DefaultDialer.Dial(url, h)
			if c != nil {
				c.Close()
			}
			if res == nil {
				t.Fatalf("%s port, Host %s: no answer: %v", kind, host, err)
			}
			if res.StatusCode != status {
				t.Errorf("%s port, Host %s: status %d, want %d", kind, host, res.StatusCode, status)
			}
		}
	}
}
