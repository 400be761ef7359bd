package rpc

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"time"
	"unicode"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// CallObserver is told of each JSON-RPC call the HTTP port answers: its
// method, its error code (0 for a result) and how long it took. The node
// passes its metrics here (metrics.RPC); nil observes nothing.
//
// Calls are observed in one place per path: fastPath.answer for the calls
// the fast path and the front answer, observeForward for the HTTP requests
// handed to go-ethereum's server (batches, the other methods).
type CallObserver interface {
	ObserveCall(method string, code int, elapsed time.Duration)
}

// Observe sets the observer of JSON-RPC calls; call it before Start.
func (s *Server) Observe(o CallObserver) {
	s.fast.observer = o
	if s.fastPriv != nil {
		s.fastPriv.observer = o
	}
}

// MethodNames lists the namespace_method names the server serves (as
// go-ethereum derives them from the services' exported methods), sorted.
func (s *Server) MethodNames() []string { return slices.Clone(s.methods) }

// WebSocketConns is the number of open WebSocket connections.
func (s *Server) WebSocketConns() int {
	s.connsMu.Lock()
	defer s.connsMu.Unlock()
	return len(s.conns)
}

// methodNames is what go-ethereum registers for the services: each exported
// method, first letter lowered, after its namespace.
func methodNames(services map[string][]any) []string {
	var out []string
	for ns, svcs := range services {
		for _, svc := range svcs {
			t := reflect.TypeOf(svc)
			for i := range t.NumMethod() {
				name := []rune(t.Method(i).Name)
				name[0] = unicode.ToLower(name[0])
				out = append(out, ns+"_"+string(name))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// errorCode is the JSON-RPC code go-ethereum's server answers err with.
func errorCode(err error) int {
	if err == nil {
		return 0
	}
	if ec, ok := err.(gethrpc.Error); ok {
		return ec.ErrorCode()
	}
	return -32000
}

// observeForward answers the request whose body is body with serve and tells the
// observer of each call in it, reading the methods from the request and the
// error codes from the answer. It runs only for what the fast path did not
// take, where go-ethereum's server costs far more than this decoding.
func (f *fastPath) observeForward(w http.ResponseWriter, body []byte, serve func(http.ResponseWriter)) {
	if f.observer == nil {
		serve(w)
		return
	}
	start := time.Now()
	rec := &answerRecorder{ResponseWriter: w}
	serve(rec)
	elapsed := time.Since(start)
	calls := parseCalls(body)
	codes := parseCodes(rec.body.Bytes())
	for _, c := range calls {
		code, answered := codes[string(c.ID)]
		if len(c.ID) == 0 || !answered {
			code = 0 // a notification, or no JSON-RPC answer (HTTP error)
			if !answered && rec.status >= 400 {
				code = -rec.status
			}
		}
		f.observer.ObserveCall(c.Method, code, elapsed)
	}
}

// answerRecorder passes the answer on and keeps a copy of it.
type answerRecorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (a *answerRecorder) WriteHeader(code int) {
	a.status = code
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerRecorder) Write(p []byte) (int, error) {
	a.body.Write(p)
	return a.ResponseWriter.Write(p)
}

// Flush lets streamed answers through.
func (a *answerRecorder) Flush() {
	if fl, ok := a.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

type callHead struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// parseCalls reads the calls of a single or batch request; a body that is
// not JSON-RPC yields none (go-ethereum answers it with a parse error and
// no method to count).
func parseCalls(body []byte) []callHead {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return nil
	}
	if trimmed[0] == '[' {
		var calls []callHead
		if json.Unmarshal(trimmed, &calls) != nil {
			return nil
		}
		return calls
	}
	var c callHead
	if json.Unmarshal(trimmed, &c) != nil || c.Method == "" {
		return nil
	}
	return []callHead{c}
}

type answerHead struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// parseCodes maps each answer's id (as written) to its error code.
func parseCodes(answer []byte) map[string]int {
	var list []answerHead
	trimmed := bytes.TrimLeft(answer, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &list) != nil {
			return nil
		}
	} else {
		var a answerHead
		if json.Unmarshal(trimmed, &a) != nil {
			return nil
		}
		list = []answerHead{a}
	}
	codes := make(map[string]int, len(list))
	for _, a := range list {
		code := 0
		if a.Error != nil {
			code = a.Error.Code
		}
		codes[string(a.ID)] = code
	}
	return codes
}
