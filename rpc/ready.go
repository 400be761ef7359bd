package rpc

import (
	"encoding/json"
	"net/http"
)

// ReadyPath is where the HTTP port answers whether the node is ready to
// serve: 200 when it is, 503 when it is not, with a Readiness as the body.
const ReadyPath = "/ready"

// Readiness is a node's answer at ReadyPath: whether it is advancing with
// its network, and why not when it is not.
type Readiness struct {
	Ready  bool   `json:"ready"`
	Reason string `json:"reason,omitempty"` // why not ready; empty when ready
	Height uint64 `json:"height"`           // the node's head
	// BlockAgeSeconds is how long ago the head block was made (its
	// timestamp against this node's clock).
	BlockAgeSeconds float64 `json:"block_age_seconds"`
	// BlocksBehind is how far the highest height a peer reports is above
	// the head; 0 without peers.
	BlocksBehind uint64 `json:"blocks_behind"`
	CatchingUp   bool   `json:"catching_up"` // block sync or state sync under way
	Halted       bool   `json:"halted"`      // a write failed: the node stopped (fail-stop)
}

// SetReadiness has GET ReadyPath answered with ready(); call it before
// Start.
func (s *Server) SetReadiness(ready func() Readiness) { s.ready = ready }

// readyHandler answers ReadyPath and hands every other request to next.
func (s *Server) readyHandler(next http.Handler) http.Handler {
	if s.ready == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != ReadyPath || r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		rd := s.ready()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if !rd.Ready {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		if r.Method == http.MethodGet {
			_ = json.NewEncoder(w).Encode(rd)
		}
	})
}
