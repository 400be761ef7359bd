package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/emberchain/ember/bench/internal/peer"
)

// The load generator is a minimal HTTP/1.1 client: one keep-alive TCP
// connection per worker, the request pre-encoded once, the response read
// into a reused buffer. It spends far less CPU per request than net/http's
// client (no per-request allocations, no connection goroutines), which
// matters because it shares the machine's cores with the node it measures.

// method is one JSON-RPC read to measure on one node.
type method struct {
	name  string
	body  []byte                             // the JSON-RPC request
	check func(result json.RawMessage) error // the right answer, checked on each worker's first response
	fixed bool                               // immutable answer: every response has the first one's length
}

// stats is one method's measurement on one node.
type stats struct {
	requests  int
	errors    int
	firstErr  string
	elapsed   time.Duration
	lat       []time.Duration // sorted
	respBytes int
	first     []byte        // a whole answer, for -dump
	cpuNode   time.Duration // CPU time the node's process used during the measured window
	cpuBench  time.Duration // CPU time this process (the load generator) used
}

func (s *stats) rps() float64 { return float64(s.requests) / s.elapsed.Seconds() }
func (s *stats) pct(p float64) time.Duration {
	if len(s.lat) == 0 {
		return 0
	}
	return s.lat[int(float64(len(s.lat)-1)*p)]
}

// merge adds another round of the same method on the same node.
func (s *stats) merge(o *stats) {
	s.requests += o.requests
	s.errors += o.errors
	if s.firstErr == "" {
		s.firstErr = o.firstErr
	}
	s.elapsed += o.elapsed
	s.lat = append(s.lat, o.lat...)
	slices.Sort(s.lat)
	s.respBytes, s.first = o.respBytes, o.first
	s.cpuNode += o.cpuNode
	s.cpuBench += o.cpuBench
}

type workerResult struct {
	lat       []time.Duration
	errors    int
	firstErr  string
	respBytes int
	first     []byte
}

// run drives m against the node at rawURL with conc workers for warm-up +
// dur; only requests completing within the dur window after the warm-up
// count. pid, if non-zero, is the node's process, whose CPU time is sampled.
func run(rawURL string, pid int, m method, conc int, warm, dur time.Duration) (*stats, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	path := u.RequestURI()
	req := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		path, u.Host, len(m.body), m.body)

	conns := make([]net.Conn, conc)
	for i := range conns {
		if conns[i], err = net.Dial("tcp", u.Host); err != nil {
			for _, c := range conns[:i] {
				c.Close()
			}
			return nil, err
		}
	}
	var (
		wg      sync.WaitGroup
		results = make([]workerResult, conc)
		start   = time.Now()
		t0      = start.Add(warm)
		t1      = t0.Add(dur)
		cpu0    cpuSample
	)
	// Sample CPU time at the window's edges.
	sampled := make(chan cpuSample, 1)
	go func() {
		time.Sleep(time.Until(t0))
		cpu0 = sampleCPU(pid)
		time.Sleep(time.Until(t1))
		sampled <- sampleCPU(pid)
	}()
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = worker(conns[i], u.Host, req, m, t0, t1)
		}()
	}
	wg.Wait()
	cpu1 := <-sampled
	for _, c := range conns {
		c.Close()
	}
	s := &stats{elapsed: dur, cpuNode: cpu1.node - cpu0.node, cpuBench: cpu1.self - cpu0.self}
	for _, r := range results {
		s.requests += len(r.lat)
		s.errors += r.errors
		if s.firstErr == "" {
			s.firstErr = r.firstErr
		}
		s.lat = append(s.lat, r.lat...)
		if r.respBytes > 0 {
			s.respBytes, s.first = r.respBytes, r.first
		}
	}
	slices.Sort(s.lat)
	return s, nil
}

func worker(conn net.Conn, host string, req []byte, m method, t0, t1 time.Time) workerResult {
	var (
		r    = workerResult{lat: make([]time.Duration, 0, 1<<14)}
		br   = bufio.NewReaderSize(conn, 64<<10)
		body []byte
		err  error
		fail = func(e error) {
			r.errors++
			if r.firstErr == "" {
				r.firstErr = e.Error()
			}
		}
	)
	for first := true; ; {
		begin := time.Now()
		if !begin.Before(t1) {
			return r
		}
		var status int
		var closing bool
		if _, err = conn.Write(req); err == nil {
			status, body, closing, err = readResponse(br, body[:0])
		}
		end := time.Now()
		if err == nil {
			err = validate(status, body)
		}
		if err == nil && first {
			err = checkFirst(body, m.check)
			r.respBytes, r.first = len(body), append([]byte(nil), body...)
			first = false
		} else if err == nil && m.fixed && len(body) != r.respBytes {
			err = fmt.Errorf("response of %d bytes, the first was %d", len(body), r.respBytes)
		}
		if err != nil {
			fail(err) // warm-up errors count too: any error fails the run
			closing = true
		}
		if err == nil && !end.Before(t0) && end.Before(t1) {
			r.lat = append(r.lat, end.Sub(begin))
		}
		if closing { // reconnect (the server closed, or the stream is out of step)
			conn.Close()
			if conn, err = net.Dial("tcp", host); err != nil {
				fail(err)
				return r
			}
			br.Reset(conn)
		}
	}
}

var (
	resultKey = []byte(`"result":`)
	errorKey  = []byte(`"error"`)
)

// validate checks an answer cheaply: HTTP 200, a non-null result and no
// error member ahead of it (JSON-RPC answers carry one or the other).
func validate(status int, body []byte) error {
	if status != 200 {
		return fmt.Errorf("HTTP %d: %.200s", status, body)
	}
	i := bytes.Index(body, resultKey)
	if i < 0 || bytes.Contains(body[:i], errorKey) {
		return fmt.Errorf("no result: %.300s", body)
	}
	rest := bytes.TrimLeft(body[i+len(resultKey):], " ")
	if bytes.HasPrefix(rest, []byte("null")) {
		return fmt.Errorf("null result: %.300s", body)
	}
	return nil
}

// checkFirst decodes a whole answer and checks its value.
func checkFirst(body []byte, check func(json.RawMessage) error) error {
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return fmt.Errorf("undecodable answer: %v: %.300s", err, body)
	}
	if resp.Error != nil {
		return fmt.Errorf("error %d: %s", resp.Error.Code, resp.Error.Message)
	}
	if check != nil {
		if err := check(resp.Result); err != nil {
			return fmt.Errorf("wrong answer: %w", err)
		}
	}
	return nil
}

// readResponse reads one HTTP/1.1 response (Content-Length or chunked) into
// buf. closing reports a "Connection: close" answer.
func readResponse(br *bufio.Reader, buf []byte) (status int, body []byte, closing bool, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, buf, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, buf, false, fmt.Errorf("bad status line %q", line)
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, buf, false, fmt.Errorf("bad status line %q", line)
	}
	length, chunked := -1, false
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return 0, buf, false, err
		}
		if len(line) <= 2 { // "\r\n": end of headers
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			continue
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case asciiEqualFold(name, "content-length"):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, buf, false, fmt.Errorf("bad content-length %q", value)
			}
		case asciiEqualFold(name, "transfer-encoding"):
			chunked = asciiEqualFold(value, "chunked")
		case asciiEqualFold(name, "connection"):
			closing = asciiEqualFold(value, "close")
		}
	}
	switch {
	case chunked:
		for {
			line, err = br.ReadSlice('\n')
			if err != nil {
				return 0, buf, false, err
			}
			hex := bytes.TrimSpace(line)
			if i := bytes.IndexByte(hex, ';'); i >= 0 {
				hex = hex[:i]
			}
			n, err := strconv.ParseUint(string(hex), 16, 31)
			if err != nil {
				return 0, buf, false, fmt.Errorf("bad chunk size %q", line)
			}
			if n == 0 {
				for { // trailers, then the final CRLF
					if line, err = br.ReadSlice('\n'); err != nil || len(line) <= 2 {
						return status, buf, closing, err
					}
				}
			}
			buf, err = readN(br, buf, int(n))
			if err != nil {
				return 0, buf, false, err
			}
			if _, err = br.Discard(2); err != nil {
				return 0, buf, false, err
			}
		}
	case length >= 0:
		buf, err = readN(br, buf, length)
		return status, buf, closing, err
	default:
		return 0, buf, false, errors.New("response without length")
	}
}

func readN(br *bufio.Reader, buf []byte, n int) ([]byte, error) {
	off := len(buf)
	buf = slices.Grow(buf, n)[:off+n]
	_, err := io.ReadFull(br, buf[off:])
	return buf, err
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// cpuSample is the CPU time (user + system) used so far by the node's
// process and by this one.
type cpuSample struct{ node, self time.Duration }

func sampleCPU(pid int) cpuSample {
	s := cpuSample{self: peer.SelfCPU()}
	if pid > 0 {
		s.node = peer.ProcCPU(pid)
	}
	return s
}
