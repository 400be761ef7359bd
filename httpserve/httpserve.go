// Package httpserve runs an http.Server in the background on a listener of
// its own: what the explorer API, native REST and metrics servers share.
// (The JSON-RPC server has its own, with a fast front; see rpc/server.go.)
package httpserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Server is a running HTTP listener.
type Server struct {
	name  string
	srv   *http.Server
	ln    net.Listener
	grace time.Duration
	log   *slog.Logger
}

// Start listens on addr and serves srv in the background. name labels its
// errors and log lines ("REST", "metrics", ...); Stop gives requests in
// flight up to grace to finish.
func Start(name, addr string, srv *http.Server, grace time.Duration, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s listener on %s: %w", name, addr, err)
	}
	s := &Server{name: name, srv: srv, ln: ln, grace: grace, log: log}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(name+" server stopped", "err", err)
		}
	}()
	log.Info(name+" listening", "addr", ln.Addr().String())
	return s, nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Stop closes the listener, waits up to the grace period for requests in
// flight, then closes the connections still open.
func (s *Server) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), s.grace)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.log.Warn(s.name+" shutdown", "err", err)
	}
	_ = s.srv.Close()
}
