package rpc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/rs/cors"
	"golang.org/x/net/netutil"
)

// Namespace is one JSON-RPC namespace and the receiver of its methods.
type Namespace struct {
	Name    string
	Service any
}

// Server serves the enabled namespaces over HTTP and WebSocket.
//
// The private namespaces (PrivateNamespaces), when enabled, are registered
// only in a second go-ethereum server, priv, which also holds the public
// ones (the same service objects). A request or WebSocket upgrade carrying a
// valid bearer token is served by priv; one without a token by rpc, which
// cannot run a private method whatever the body says. A token that does not
// verify is refused with HTTP 401.
type Server struct {
	cfg      Config
	rpc      *gethrpc.Server // the public namespaces
	priv     *gethrpc.Server // public and private namespaces; nil when no private one is enabled
	auth     *authenticator  // nil when no private namespace is enabled
	fast     *fastPath       // single requests for the hottest read methods, then rpc
	fastPriv *fastPath       // the same for authenticated requests, then priv
	log      *slog.Logger
	noFront  bool // net/http alone on the HTTP port (tests compare the two)
	hosts    *hostFilter
	ready    func() Readiness // GET /ready on the HTTP port (ready.go); nil: not served
	methods  []string         // namespace_method names served (observe.go)
	mu       sync.Mutex
	srvs     []*http.Server
	fronts   []*front            // the fast fronts of the HTTP listeners
	addr     map[string]net.Addr // "http", "ws" -> bound address

	// conns are the open WebSocket connections by remote address (what
	// geth's rpc.PeerInfo reports), so a slow subscriber can be cut off.
	connsMu sync.Mutex
	conns   map[string]net.Conn
}

// NewServer registers the namespaces enabled in cfg.API; the others answer
// "method not found" (-32601) as unknown methods do. auth is needed when a
// private namespace is enabled.
func NewServer(cfg Config, namespaces []Namespace, auth Auth, log *slog.Logger) (*Server, error) {
	known := make(map[string]bool)
	for _, ns := range namespaces {
		known[ns.Name] = true
	}
	var private []string
	for _, name := range cfg.API {
		if !known[name] {
			return nil, fmt.Errorf("unknown JSON-RPC namespace %q in api list (have %s)", name, strings.Join(names(namespaces), ","))
		}
		if slices.Contains(PrivateNamespaces, name) && !slices.Contains(private, name) {
			private = append(private, name)
		}
	}
	s := &Server{cfg: cfg, rpc: newGethServer(cfg), log: log, hosts: newHostFilter(cfg.VHosts),
		addr: make(map[string]net.Addr), conns: make(map[string]net.Conn)}
	if len(private) > 0 {
		if len(auth.Secret) != 32 {
			return nil, fmt.Errorf("JSON-RPC namespaces %s are private and need a 32-byte JWT secret", strings.Join(private, ","))
		}
		s.priv, s.auth = newGethServer(cfg), newAuthenticator(auth)
	}
	public, all := make(map[string][]any), make(map[string][]any)
	for _, ns := range namespaces {
		if !slices.Contains(cfg.API, ns.Name) {
			continue
		}
		if !slices.Contains(PrivateNamespaces, ns.Name) {
			if err := s.rpc.RegisterName(ns.Name, ns.Service); err != nil {
				return nil, fmt.Errorf("register namespace %s: %w", ns.Name, err)
			}
			public[ns.Name] = append(public[ns.Name], ns.Service)
		}
		if s.priv != nil {
			if err := s.priv.RegisterName(ns.Name, ns.Service); err != nil {
				return nil, fmt.Errorf("register namespace %s: %w", ns.Name, err)
			}
			all[ns.Name] = append(all[ns.Name], ns.Service)
		}
	}
	s.methods = methodNames(all)
	if s.priv == nil {
		s.methods = methodNames(public)
	}
	bodyLimit := cfg.MaxBodySize
	if bodyLimit <= 0 {
		bodyLimit = 5 * 1024 * 1024 // go-ethereum's default
	}
	s.fast = newFastPath(s.rpc, public, bodyLimit, log)
	if s.priv != nil {
		s.fast.guard = &privateGuard{namespaces: private}
		s.fastPriv = newFastPath(s.priv, all, bodyLimit, log)
	}
	return s, nil
}

// newGethServer is a go-ethereum server with cfg's limits.
func newGethServer(cfg Config) *gethrpc.Server {
	srv := gethrpc.NewServer()
	srv.SetBatchLimits(cfg.BatchRequestLimit, cfg.BatchResponseMaxSize)
	if cfg.MaxBodySize > 0 {
		srv.SetHTTPBodyLimit(cfg.MaxBodySize)
	}
	return srv
}

func names(nss []Namespace) []string {
	out := make([]string, len(nss))
	for i, ns := range nss {
		out[i] = ns.Name
	}
	return out
}

// Start binds the listeners and serves in the background.
func (s *Server) Start() error {
	ws := s.trackConns(s.rpc.WebsocketHandler(s.cfg.WSOrigins))
	if s.priv != nil {
		ws = s.byToken(ws, s.trackConns(s.priv.WebsocketHandler(s.cfg.WSOrigins)))
	}
	var rpcHandler http.Handler = s.fast
	if s.priv != nil {
		rpcHandler = s.byToken(s.fast, s.fastPriv)
	}
	httpHandler := cors.New(cors.Options{
		AllowedOrigins: s.cfg.CORSOrigins,
		AllowedMethods: []string{http.MethodPost, http.MethodGet},
		AllowedHeaders: []string{"*"},
		MaxAge:         600,
	}).Handler(rpcHandler)
	httpHandler = s.readyHandler(httpHandler) // ready.go
	// The HTTP port also takes WebSocket upgrades, as geth's does.
	both := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isWebsocket(r) {
			ws.ServeHTTP(w, r)
			return
		}
		httpHandler.ServeHTTP(w, r)
	})
	// The host check comes first, on both ports: geth checks HTTP only,
	// but a rebinding page can open a WebSocket as well (and ws-origins is
	// "*" by default).
	if err := s.listen("http", s.cfg.Address, s.hosts.handler(both)); err != nil {
		return err
	}
	if s.cfg.WSAddress != "" && s.cfg.WSAddress != s.cfg.Address {
		if err := s.listen("ws", s.cfg.WSAddress, s.hosts.handler(ws)); err != nil {
			s.Stop()
			return err
		}
	}
	return nil
}

func (s *Server) listen(kind, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("JSON-RPC %s listener on %s: %w", kind, addr, err)
	}
	if s.cfg.MaxOpenConnections > 0 {
		ln = netutil.LimitListener(ln, s.cfg.MaxOpenConnections)
	}
	srv := &http.Server{
		Handler:     h,
		IdleTimeout: s.cfg.HTTPIdleTimeout.Std(),
	}
	if kind == "http" {
		// As geth: the request must be read within http-timeout and answered
		// within it; go-ethereum's server sees the write deadline and answers
		// a method still running 100 ms before it with -32002 "request timed
		// out" (and cancels it). WebSocket upgrades on this port clear the
		// deadlines; the dedicated WebSocket listener has none.
		srv.ReadHeaderTimeout = s.cfg.HTTPTimeout.Std()
		srv.ReadTimeout = s.cfg.HTTPTimeout.Std()
		srv.WriteTimeout = s.cfg.HTTPTimeout.Std()
	}
	serve := srv.Serve
	if kind == "http" && !s.noFront {
		// Single fast-path requests are answered by front; net/http
		// serves the rest (front.go).
		fr := newFront(s.fast, srv, s.log)
		fr.hosts = s.hosts
		serve = fr.Serve
		s.mu.Lock()
		s.fronts = append(s.fronts, fr)
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.srvs = append(s.srvs, srv)
	s.addr[kind] = ln.Addr()
	s.mu.Unlock()
	go func() {
		if err := serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("JSON-RPC server stopped", "kind", kind, "addr", addr, "err", err)
		}
	}()
	s.log.Info("JSON-RPC listening", "kind", kind, "addr", ln.Addr().String())
	return nil
}

// Addr returns the bound address of the "http" or "ws" listener.
func (s *Server) Addr(kind string) net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr[kind]
}

// Stop closes the listeners and every open connection, then the RPC server
// (which ends all subscriptions).
func (s *Server) Stop() {
	s.mu.Lock()
	srvs, fronts := s.srvs, s.fronts
	s.srvs, s.fronts = nil, nil
	s.mu.Unlock()
	// The fronts' connections are closed here, not only by Shutdown's hook,
	// which runs on its own goroutine: a call that ends after Stop returned
	// must not answer. The node stops its transaction journal after Stop,
	// and an eth_sendRawTransaction answered after that would be lost by a
	// restart although the client was given its hash (TestCrashRecovery).
	for _, fr := range fronts {
		fr.close()
	}
	for _, srv := range srvs {
		ctx, cancel := context.WithTimeout(context.Background(), 0)
		_ = srv.Shutdown(ctx)
		cancel()
		_ = srv.Close()
	}
	s.rpc.Stop()
	if s.priv != nil {
		s.priv.Stop()
	}
}

// byToken sends a request without a bearer token to public, one with a
// valid token to private, and refuses one with an invalid token. The only
// cost to unauthenticated requests is reading one header.
func (s *Server) byToken(public, private http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearer(r)
		if !ok {
			public.ServeHTTP(w, r)
			return
		}
		if err := s.auth.verify(token); err != nil {
			refuse(w, err)
			return
		}
		private.ServeHTTP(w, r)
	})
}

func isWebsocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") &&
		strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade")
}

// trackConns records the connection each WebSocket upgrade hijacks, until
// it closes.
func (s *Server) trackConns(ws http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			ws.ServeHTTP(w, r)
			return
		}
		ws.ServeHTTP(&hijackRecorder{ResponseWriter: w, hj: hj, s: s}, r)
	})
}

type hijackRecorder struct {
	http.ResponseWriter
	hj http.Hijacker
	s  *Server
}

func (h *hijackRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := h.hj.Hijack()
	if err == nil {
		conn = &trackedConn{Conn: conn, s: h.s, key: conn.RemoteAddr().String()}
		h.s.connsMu.Lock()
		h.s.conns[conn.(*trackedConn).key] = conn
		h.s.connsMu.Unlock()
	}
	return conn, rw, err
}

type trackedConn struct {
	net.Conn
	s    *Server
	key  string
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.s.connsMu.Lock()
		delete(c.s.conns, c.key)
		c.s.connsMu.Unlock()
	})
	return c.Conn.Close()
}

// Disconnect closes the WebSocket connection from remoteAddr, if open; its
// subscriptions end with it. It reports whether there was one.
func (s *Server) Disconnect(remoteAddr string) bool {
	s.connsMu.Lock()
	conn := s.conns[remoteAddr]
	s.connsMu.Unlock()
	if conn == nil {
		return false
	}
	s.log.Warn("closing slow WebSocket subscriber", "remote", remoteAddr)
	conn.Close()
	return true
}
