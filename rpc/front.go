package rpc

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// front is a minimal HTTP/1.1 keep-alive server in front of net/http on the
// JSON-RPC HTTP port. It answers the requests the fast path takes (a POST
// with a Content-Length and a JSON body calling one of fastMethods, and
// nothing in its headers that net/http or the handlers behind it would act
// on) with the bytes net/http would have sent; at the first request it does
// not take, it hands the connection, with every byte it has read and not
// answered, to net/http, which serves it from then on exactly as before:
// CORS, bearer tokens and private namespaces, WebSocket upgrades, batches,
// chunked bodies, size limits, go-ethereum's errors.
//
// Why: under load the fixed cost of net/http (parsing into an http.Request
// with its header map, the response writer, per-request contexts and
// deadlines) was about half of emberd's CPU per eth_blockNumber, the rest
// being the socket reads and writes every server pays (bench/reads).
type front struct {
	fast    *fastPath
	srv     *http.Server // serves what front hands over
	queue   *connQueue   // srv's listener
	ctx     context.Context
	idle    time.Duration // wait for the next request on a kept-alive connection
	read    time.Duration // read one request
	write   time.Duration // write one answer
	bufSize int
	hosts   *hostFilter // a request for a host it refuses goes to net/http, which answers 403
	log     *slog.Logger

	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{} // connections front is serving
	closed bool
}

func newFront(fast *fastPath, srv *http.Server, log *slog.Logger) *front {
	f := &front{fast: fast, srv: srv, read: srv.ReadTimeout, write: srv.WriteTimeout, idle: srv.IdleTimeout,
		bufSize: 4 << 10, log: log, conns: make(map[net.Conn]struct{})}
	if f.idle == 0 {
		f.idle = f.read // as net/http
	}
	// The context a request has in net/http, as far as the fast methods and
	// requestContext can tell: it holds the server, whose WriteTimeout bounds
	// a call.
	f.ctx = context.WithValue(context.Background(), http.ServerContextKey, srv)
	srv.RegisterOnShutdown(f.close)
	return f
}

// Serve accepts connections on ln until it is closed, as http.Server.Serve.
func (f *front) Serve(ln net.Listener) error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return http.ErrServerClosed
	}
	f.ln, f.queue = ln, newConnQueue(ln.Addr())
	f.mu.Unlock()
	srvDone := make(chan error, 1)
	go func() { srvDone <- f.srv.Serve(f.queue) }()
	var delay time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if f.isClosed() {
				<-srvDone
				return http.ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				// Out of descriptors, or the like: wait and retry, as net/http.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				f.log.Error("JSON-RPC accept error; retrying", "err", err, "delay", delay)
				time.Sleep(delay)
				continue
			}
			f.queue.Close()
			<-srvDone
			return err
		}
		delay = 0
		if !f.track(c) {
			c.Close()
			continue
		}
		go f.serveConn(c)
	}
}

func (f *front) isClosed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

func (f *front) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *front) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
}

// close stops accepting and closes the connections front is serving
// (net/http closes those it was handed).
func (f *front) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	if f.ln != nil {
		f.ln.Close()
		f.queue.Close()
	}
	for c := range f.conns {
		c.Close()
	}
	clear(f.conns)
}

// serveConn answers requests on c while the fast path takes them.
func (f *front) serveConn(c net.Conn) {
	defer func() { // as net/http: a panic ends the connection, not the node
		if p := recover(); p != nil {
			buf := make([]byte, 64<<10)
			buf = buf[:runtime.Stack(buf, false)]
			f.log.Error("JSON-RPC connection handler crashed", "remote", c.RemoteAddr().String(), "panic", p, "stack", string(buf))
			f.untrack(c)
			c.Close()
		}
	}()
	in := &reqBuf{buf: make([]byte, f.bufSize)}
	out := new(bytes.Buffer)
	body := new(bytes.Buffer)
	var (
		writeDeadline lazyDeadline
		now           time.Time // when the last answer was written
	)
	for {
		req, err := in.next(c, f.fast.bodyLimit, f.hosts, f.idle, f.read, now)
		if err != nil {
			f.untrack(c)
			c.Close()
			return
		}
		if req.take {
			body.Reset()
			ok, done, err := f.fast.answer(f.ctx, req.body, body)
			if err == nil && ok {
				if now = done; now.IsZero() {
					now = time.Now()
				}
				out.Reset()
				writeHead(out, body.Len(), now)
				out.Write(body.Bytes())
				if writeDeadline.extend(now, f.write) {
					c.SetWriteDeadline(writeDeadline.at)
				}
				if _, err := c.Write(out.Bytes()); err != nil {
					f.untrack(c)
					c.Close()
					return
				}
				in.consume(req.size)
				continue
			}
		}
		// net/http takes the connection, starting with this request.
		f.untrack(c)
		c.SetDeadline(time.Time{})
		f.queue.put(&prefixedConn{Conn: c, prefix: bytes.Clone(in.pending())})
		return
	}
}

// writeHead writes the status line and headers net/http writes for a fast
// path answer behind the CORS handler, with a request without Origin:
// the handler's headers in sorted order, then Date.
func writeHead(out *bytes.Buffer, n int, now time.Time) {
	out.WriteString("HTTP/1.1 200 OK\r\nContent-Length: ")
	var num [20]byte
	out.Write(strconv.AppendInt(num[:0], int64(n), 10))
	out.WriteString("\r\nContent-Type: application/json\r\nVary: Origin\r\nDate: ")
	out.WriteString(httpDate(now))
	out.WriteString("\r\n\r\n")
}

// httpDate is the Date header's value, formatted once a second.
func httpDate(now time.Time) string {
	if d := dateCache.Load(); d != nil && d.sec == now.Unix() {
		return d.text
	}
	d := &cachedDate{sec: now.Unix(), text: now.UTC().Format(http.TimeFormat)}
	dateCache.Store(d)
	return d.text
}

type cachedDate struct {
	sec  int64
	text string
}

var dateCache atomic.Pointer[cachedDate]

// fastRequest is the next request on a connection: whether the fast path
// may take it (then body is its body), and its size in bytes.
type fastRequest struct {
	take bool
	body []byte
	size int
}

// reqBuf holds what has been read from a connection and not yet answered.
type reqBuf struct {
	buf        []byte
	start, end int
	deadline   lazyDeadline // the connection's read deadline
}

// lazyDeadline is a connection's read or write deadline, for a wait or a
// write that may last about d. A deadline already within a tenth of d (at
// most a second) of now+d is kept: resetting the runtime's timer for every
// request of a busy connection cost more than the rest of parsing it, and
// for every answer a visible share of the lightest reads.
type lazyDeadline struct{ at time.Time }

// extend reports whether the deadline moved to now+d; the caller then sets
// the connection's to at.
func (l *lazyDeadline) extend(now time.Time, d time.Duration) bool {
	if d <= 0 {
		return false
	}
	want := now.Add(d)
	if want.Sub(l.at) > min(d/10, time.Second) || l.at.After(want) {
		l.at = want
		return true
	}
	return false
}

func (b *reqBuf) pending() []byte { return b.buf[b.start:b.end] }

func (b *reqBuf) consume(n int) {
	b.start += n
	if b.start == b.end {
		b.start, b.end = 0, 0
		if len(b.buf) > maxKeptBuf { // a large body came: do not keep its room
			b.buf = make([]byte, maxKeptBuf)
		}
	}
}

// maxKeptBuf is the most a connection keeps for reading between requests.
const maxKeptBuf = 64 << 10

// next reads until it holds a whole request head and, when the fast path
// may take the request, its body. A request it will not take is reported
// as soon as that is known (take false): net/http reads the rest. last is
// when the connection's previous answer was written (zero: none yet), where
// its idle wait begins.
func (b *reqBuf) next(c net.Conn, bodyLimit int, hosts *hostFilter, idle, read time.Duration, last time.Time) (fastRequest, error) {
	waited := false
	for {
		p := b.pending()
		if end := bytes.Index(p, crlfcrlf); end >= 0 {
			n, ok := parseHead(p[:end+2], bodyLimit, hosts)
			if !ok {
				return fastRequest{}, nil
			}
			size := end + 4 + n
			if len(p) >= size {
				return fastRequest{take: true, body: p[end+4 : size], size: size}, nil
			}
			if read > 0 { // the rest of the body within the read timeout
				b.deadline.at = time.Now().Add(read)
				c.SetReadDeadline(b.deadline.at)
			}
			if err := b.fill(c, size); err != nil {
				return fastRequest{}, err
			}
			continue
		}
		if len(p) >= maxFastHead {
			return fastRequest{}, nil
		}
		// Wait for the next request with the idle timeout, then read it
		// within the read timeout.
		if len(p) == 0 && !waited {
			waited = true
			if last.IsZero() {
				last = time.Now()
			}
			if b.deadline.extend(last, idle) {
				c.SetReadDeadline(b.deadline.at)
			}
		} else if read > 0 {
			b.deadline.at = time.Now().Add(read)
			c.SetReadDeadline(b.deadline.at)
		}
		if err := b.fill(c, len(p)+1); err != nil {
			return fastRequest{}, err
		}
	}
}

// maxFastHead bounds the request head the fast path parses; longer heads
// go to net/http, which allows up to 1 MiB.
const maxFastHead = 8 << 10

var crlfcrlf = []byte("\r\n\r\n")

// fill reads at least until b holds want pending bytes.
func (b *reqBuf) fill(c net.Conn, want int) error {
	if b.start+want > len(b.buf) {
		if want > len(b.buf) {
			nb := make([]byte, max(want, 2*len(b.buf)))
			b.end = copy(nb, b.pending())
			b.buf = nb
		} else {
			b.end = copy(b.buf, b.pending())
		}
		b.start = 0
	}
	for b.end-b.start < want {
		n, err := c.Read(b.buf[b.end:])
		b.end += n
		if err != nil && b.end-b.start < want {
			return err
		}
	}
	return nil
}

// parseHead reads a request head (up to and including the last header's
// CRLF) and returns the body's length when the fast path may take the
// request: "POST <path> HTTP/1.1", one Host, one Content-Length within the
// limit, one JSON Content-Type, and no header that net/http or a handler
// behind it acts on (Transfer-Encoding, Connection other than keep-alive,
// Upgrade, Expect, Authorization, Origin, ...), and a Host that hosts
// allows (net/http answers the others 403). Anything unusual, even if
// valid, is net/http's.
func parseHead(h []byte, bodyLimit int, hosts *hostFilter) (int, bool) {
	line, rest, _ := bytes.Cut(h, crlf)
	target, ok := bytes.CutPrefix(line, []byte("POST "))
	if !ok {
		return 0, false
	}
	target, ok = bytes.CutSuffix(target, []byte(" HTTP/1.1"))
	if !ok || len(target) == 0 || target[0] != '/' || !visibleASCII(target) {
		return 0, false
	}
	length, hostCount, types := -1, 0, 0
	for len(rest) > 0 {
		line, rest, _ = bytes.Cut(rest, crlf)
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !tokenBytes(line[:colon]) {
			return 0, false
		}
		name, value := line[:colon], bytes.Trim(line[colon+1:], " \t")
		if !fieldValue(value) {
			return 0, false
		}
		switch {
		case asciiFold(name, "content-length"):
			if length >= 0 {
				return 0, false
			}
			if length = decimal(value); length < 0 || length > bodyLimit {
				return 0, false
			}
		case asciiFold(name, "content-type"):
			// The usual value compares without a string made of it.
			if types++; string(value) != "application/json" && !jsonContentType(string(value)) {
				return 0, false
			}
		case asciiFold(name, "host"):
			if hostCount++; !hostBytes(value) || !hosts.allows(string(value)) {
				return 0, false
			}
		case asciiFold(name, "connection"):
			if !asciiFold(value, "keep-alive") {
				return 0, false
			}
		case asciiFold(name, "transfer-encoding"), asciiFold(name, "upgrade"), asciiFold(name, "expect"),
			asciiFold(name, "authorization"), asciiFold(name, "origin"), asciiFold(name, "te"),
			asciiFold(name, "trailer"), asciiFold(name, "content-encoding"):
			return 0, false
		}
	}
	if length < 0 || hostCount != 1 || types != 1 {
		return 0, false
	}
	return length, true
}

var crlf = []byte("\r\n")

func asciiFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// decimal parses a Content-Length value (digits only), or returns -1.
func decimal(b []byte) int {
	if len(b) == 0 || len(b) > 9 {
		return -1
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func visibleASCII(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// tokenBytes: a header name as RFC 9110 allows it.
func tokenBytes(b []byte) bool {
	for _, c := range b {
		if !tokenChar[c] {
			return false
		}
	}
	return true
}

// tokenChar: visible ASCII but the separators (a table: testing each byte
// against the separator list showed in the profile of every request).
var tokenChar = func() (t [256]bool) {
	for c := '!'; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c)
	}
	return t
}()

// fieldValue: no control characters but tab (net/http refuses them).
func fieldValue(b []byte) bool {
	for _, c := range b {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// hostBytes: a plain host[:port] (anything fancier is net/http's to judge).
func hostBytes(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == ':' || c == '[' || c == ']' || c == '_') {
			return false
		}
	}
	return true
}

// prefixedConn is a connection handed to net/http: what front read and did
// not answer comes first.
type prefixedConn struct {
	net.Conn
	prefix []byte
}

func (c *prefixedConn) Read(p []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(p, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// connQueue is the listener net/http serves: the connections front hands
// over.
type connQueue struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
	addr net.Addr
}

func newConnQueue(addr net.Addr) *connQueue {
	return &connQueue{ch: make(chan net.Conn), done: make(chan struct{}), addr: addr}
}

func (q *connQueue) put(c net.Conn) {
	select {
	case q.ch <- c:
	case <-q.done:
		c.Close()
	}
}

func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.ch:
		return c, nil
	case <-q.done:
		return nil, net.ErrClosed
	}
}

func (q *connQueue) Close() error {
	q.once.Do(func() { close(q.done) })
	return nil
}

func (q *connQueue) Addr() net.Addr { return q.addr }
