package rpc

import (
	"net"
	"net/http"
	"strings"
)

// hostFilter is go-ethereum's virtual-host check (--http.vhosts): a
// request whose Host header names a host not in the list is refused with
// 403. It stops DNS rebinding: a web page the user visits can make its
// own name resolve to 127.0.0.1 and then reach a node on the user's machine
// as same-origin, CORS or not, but its requests still carry its own name
// as Host. As in geth, a request without a Host and one whose Host is an
// IP address pass (a rebinding page cannot name an IP as its origin's
// host), and "*" lets every host through.
type hostFilter struct {
	any   bool
	names map[string]bool // lower case
}

// newHostFilter is the filter for the configured vhosts; nil when it lets
// everything through.
func newHostFilter(vhosts []string) *hostFilter {
	h := &hostFilter{names: make(map[string]bool, len(vhosts))}
	for _, v := range vhosts {
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "*" {
			return nil
		}
		if v != "" {
			h.names[v] = true
		}
	}
	return h
}

// allows reports whether a request with Host header host is served.
func (h *hostFilter) allows(host string) bool {
	if h == nil || host == "" {
		return true
	}
	name, _, err := net.SplitHostPort(host)
	if err != nil { // no port, or not host:port at all
		name = host
	}
	if net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")) != nil {
		return true
	}
	return h.names[strings.ToLower(name)]
}

// errInvalidHost is the body of the 403, as geth words it.
const errInvalidHost = "invalid host specified"

// handler refuses a request for a host not allowed, before next sees it.
func (h *hostFilter) handler(next http.Handler) http.Handler {
	if h == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.allows(r.Host) {
			http.Error(w, errInvalidHost, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
