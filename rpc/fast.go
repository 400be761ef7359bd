package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// fastMethods are the methods clients call most: the light reads, and
// eth_sendRawTransaction, whose admission (sender recovery, pool checks)
// costs about what go-ethereum's per-call overhead does, so a write burst
// spent a sixth of the node's CPU in that overhead. A single (non-batch)
// HTTP request for one of them is answered by fastPath; everything else goes
// to go-ethereum's server.
var fastMethods = []string{
	"eth_blockNumber", "eth_chainId", "eth_gasPrice", "eth_maxPriorityFeePerGas", "eth_baseFee",
	"eth_getBalance", "eth_getTransactionCount", "eth_getCode", "eth_getStorageAt", "eth_call",
	"eth_getBlockByNumber", "eth_getBlockByHash", "eth_getTransactionByHash", "eth_getTransactionReceipt",
	"eth_sendRawTransaction", "net_version", "web3_clientVersion",
}

// fastPath answers single HTTP JSON-RPC requests for fastMethods by calling
// the same method go-ethereum's server would, with the same argument
// decoding, result and error encoding, on the request's own goroutine.
//
// Why: go-ethereum's server spends more per request than a light read costs
// (a handler, a goroutine and timers per call, tracing spans), which made
// eth_blockNumber and eth_getBalance slower than anvil (bench/reads). The
// fast path takes only requests it understands completely: anything else
// (batches, notifications, a wrong version, a parameter that does not
// decode, ...) is handed, body untouched, to go-ethereum's server, which then
// produces the exact error it always does.
type fastPath struct {
	next      http.Handler
	methods   map[string]*fastMethod
	bodyLimit int
	log       *slog.Logger
	bufs      sync.Pool
	// guard, on the unauthenticated path when private namespaces are
	// enabled, answers requests for private methods before next sees them.
	// Fast methods are all public: it only looks at what falls through.
	guard *privateGuard
	// observer is told of each call answered here or forwarded (observe.go).
	observer CallObserver
}

// fastMethod is one method as go-ethereum's server would call it.
type fastMethod struct {
	name    string
	fn      reflect.Value // bound method
	hasCtx  bool
	args    []argType
	withErr bool // last result is an error
	// plain calls the method directly (plainCall); nil: through fn.
	plain func() any
	// typed calls it directly with its decoded arguments (typedCall); nil:
	// through fn.
	typed func(args []reflect.Value) (any, error)
	// boundsItself: the method watches its context's deadline itself, and
	// only that (deadlineBound), so when nothing else can cancel the
	// request it gets the deadline alone (deadlineOnly).
	boundsItself bool
}

// deadlineBound are the fast methods whose only use of their context is to
// stop at its deadline by a timer of their own: eth_call (evm.Call folds the
// deadline into the timer of its EVM time budget). For a request that only
// its deadline can end (the front's), the context and timer requestContext
// makes per call are wasted on them, and a measurable cost of a light
// eth_call.
var deadlineBound = map[string]bool{"eth_call": true}

var (
	ctxType = reflect.TypeOf((*context.Context)(nil)).Elem()
	errType = reflect.TypeOf((*error)(nil)).Elem()
)

// newFastPath finds fastMethods among the registered services; a method
// whose shape go-ethereum's server would not call the same way is left to it.
func newFastPath(next http.Handler, services map[string][]any, bodyLimit int, log *slog.Logger) *fastPath {
	f := &fastPath{next: next, methods: make(map[string]*fastMethod), bodyLimit: bodyLimit, log: log}
	for _, name := range fastMethods {
		ns, method, _ := strings.Cut(name, "_")
		for _, svc := range services[ns] {
			if m := lookupMethod(svc, method); m != nil {
				m.name, m.boundsItself = name, deadlineBound[name]
				f.methods[name] = m
				break
			}
		}
	}
	return f
}

func lookupMethod(svc any, name string) *fastMethod {
	goName := string(unicode.ToUpper(rune(name[0]))) + name[1:]
	fn := reflect.ValueOf(svc).MethodByName(goName)
	if !fn.IsValid() {
		return nil
	}
	t := fn.Type()
	m := &fastMethod{fn: fn}
	first := 0
	if t.NumIn() > 0 && t.In(0) == ctxType {
		m.hasCtx, first = true, 1
	}
	for i := first; i < t.NumIn(); i++ {
		m.args = append(m.args, newArgType(t.In(i)))
	}
	switch {
	case t.NumOut() == 1 && t.Out(0) != errType:
	case t.NumOut() == 2 && t.Out(1) == errType:
		m.withErr = true
	default:
		return nil
	}
	m.plain, m.typed = plainCall(svc, goName), typedCall(svc, goName)
	return m
}

// request is a JSON-RPC call as go-ethereum decodes it, except that params
// must be an array or null (anything else is go-ethereum's to refuse).
type request struct {
	Version string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`

	// scanCall's: the method name as written, and room for the params.
	method []byte
	params [4]json.RawMessage
}

func (f *fastPath) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ContentLength > int64(f.bodyLimit) || !jsonContentType(r.Header.Get("Content-Type")) {
		f.serveOther(w, r)
		return
	}
	if r.ContentLength < 0 {
		f.serveOther(w, r)
		return
	}
	buf := f.getBuf()
	defer f.bufs.Put(buf)
	if _, err := io.Copy(buf, io.LimitReader(r.Body, r.ContentLength)); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body := buf.Bytes()
	out := f.getBuf()
	defer f.bufs.Put(out)
	ok, _, err := f.answer(r.Context(), body, out)
	switch {
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	case ok:
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(out.Len()))
		w.Write(out.Bytes())
	default:
		f.observeForward(w, body, func(w http.ResponseWriter) {
			if f.preAnswer(w, body) {
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			f.next.ServeHTTP(w, r)
		})
	}
}

// answer appends to out the whole answer to body when the fast path takes
// the request (ok). ctx is the HTTP request's context: a method that takes
// a context gets it bounded as go-ethereum's server bounds it. done is when
// the call ended if answer read the clock then (for the metrics), else zero:
// the front dates its answer with it rather than read the clock again
// (clock reads showed up in the profile of the lightest reads).
func (f *fastPath) answer(ctx context.Context, body []byte, out *bytes.Buffer) (ok bool, done time.Time, err error) {
	var req request
	m, args, ok := f.decode(body, &req)
	if !ok {
		return false, done, nil
	}
	switch {
	case !m.hasCtx:
	case m.boundsItself && ctx.Done() == nil:
		ctx = deadlineOnly(ctx)
	default:
		var cancel context.CancelFunc
		ctx, cancel = requestContext(ctx)
		defer cancel()
	}
	var start time.Time
	if f.observer != nil {
		start = time.Now()
	}
	resp := f.call(ctx, req.Method, m, args)
	if f.observer != nil {
		done = time.Now()
		f.observer.ObserveCall(m.name, errorCode(resp.err), done.Sub(start))
	}
	return true, done, encodeResponse(out, req.ID, resp)
}

// serveOther hands any request the fast path does not take (another HTTP
// verb, which go-ethereum's server also runs as JSON-RPC: GET with a body,
// PATCH, OPTIONS; a body of unknown length; ...) to go-ethereum's server,
// after preAnswer has read it (up to the body limit; go-ethereum refuses
// longer ones): one rule for private methods whatever the verb.
func (f *fastPath) serveOther(w http.ResponseWriter, r *http.Request) {
	buf := f.getBuf()
	defer f.bufs.Put(buf)
	if _, err := io.Copy(buf, io.LimitReader(r.Body, int64(f.bodyLimit)+1)); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.observeForward(w, buf.Bytes(), func(w http.ResponseWriter) {
		if buf.Len() <= f.bodyLimit && f.preAnswer(w, buf.Bytes()) {
			return
		}
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(buf.Bytes()), r.Body))
		f.next.ServeHTTP(w, r)
	})
}

// decode parses a single call to a fast method with its arguments, or
// reports that go-ethereum's server must take the request.
func (f *fastPath) decode(body []byte, req *request) (*fastMethod, []reflect.Value, bool) {
	scanned := scanCall(body, req)
	if !scanned {
		*req = request{}
		trimmed := bytes.TrimLeft(body, " \t\r\n")
		if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(body, req) != nil {
			return nil, nil, false
		}
	}
	if req.Version != "2.0" || len(req.ID) == 0 || req.ID[0] == '{' || req.ID[0] == '[' {
		return nil, nil, false
	}
	if scanned {
		req.Method = ""
		if m := f.methods[string(req.method)]; m != nil {
			req.Method = m.name
		}
	}
	m := f.methods[req.Method]
	if m == nil {
		return nil, nil, false
	}
	args, ok := decodeArgs(req.Params, m.args, scanned)
	return m, args, ok
}

// decodeArgs decodes positional parameters as go-ethereum does: absent or
// null params are no arguments, missing trailing arguments must be pointers
// (then nil). scanned tells that scanCall has validated the JSON.
func decodeArgs(raw []json.RawMessage, types []argType, scanned bool) ([]reflect.Value, bool) {
	if len(raw) > len(types) {
		return nil, false
	}
	args := make([]reflect.Value, len(types))
	for i, at := range types {
		if i >= len(raw) {
			if at.t.Kind() != reflect.Pointer {
				return nil, false
			}
			args[i] = reflect.Zero(at.t)
			continue
		}
		if scanned {
			v, ok := at.decodeScanned(raw[i])
			if !ok {
				return nil, false
			}
			args[i] = v
			continue
		}
		v := reflect.New(at.t)
		if json.Unmarshal(raw[i], v.Interface()) != nil {
			return nil, false
		}
		args[i] = v.Elem()
	}
	return args, true
}

// invoke calls the method with ctx (if it takes one) and args, and returns
// its result and its error.
func (m *fastMethod) invoke(ctx context.Context, args []reflect.Value) (any, error) {
	if m.plain != nil {
		return m.plain(), nil
	}
	if m.typed != nil {
		return m.typed(args)
	}
	in := args
	if m.hasCtx {
		// ctx as a value of the parameter's interface type: a concrete
		// context type would be checked against context.Context's method
		// set on every call.
		in = append([]reflect.Value{reflect.ValueOf(&ctx).Elem()}, args...)
	}
	out := m.fn.Call(in)
	if m.withErr && !out[1].IsNil() {
		return nil, out[1].Interface().(error)
	}
	return out[0].Interface(), nil
}

// plainCall calls svc's method goName without reflect when it is one of
// the fast methods without parameters (eth_blockNumber, eth_chainId,
// eth_baseFee, web3_clientVersion, net_version); nil for any other.
// reflect.Value.Call costs more than these methods' own work.
//
// The method is bound through a one-method interface, not through reflect:
// a method value reflect makes (Value.MethodByName(...).Interface()) still
// calls through reflect's trampoline (callMethod, a layout lookup in a
// sync.Map, the arguments copied twice).
func plainCall(svc any, goName string) func() any {
	switch goName {
	case "BlockNumber":
		if s, ok := svc.(interface{ BlockNumber() hexutil.Uint64 }); ok {
			return func() any { return s.BlockNumber() }
		}
	case "ChainId":
		if s, ok := svc.(interface{ ChainId() *hexutil.Big }); ok {
			return func() any { return s.ChainId() }
		}
	case "BaseFee":
		if s, ok := svc.(interface{ BaseFee() *hexutil.Big }); ok {
			return func() any { return s.BaseFee() }
		}
	case "Version":
		if s, ok := svc.(interface{ Version() string }); ok {
			return func() any { return s.Version() }
		}
	case "ClientVersion":
		if s, ok := svc.(interface{ ClientVersion() string }); ok {
			return func() any { return s.ClientVersion() }
		}
	}
	return nil
}

// typedCall calls svc's method goName without reflect, bound as plainCall
// binds, when it is one of the busiest fast methods with parameters and no
// context (eth_getBalance, eth_getTransactionCount, eth_getCode,
// eth_getBlockByNumber, eth_getBlockByHash, eth_getTransactionReceipt) with
// the signature the server's reflection found; nil for any other.
// reflect.Value.Call is a visible share of these light reads.
func typedCall(svc any, goName string) func([]reflect.Value) (any, error) {
	type bnh = gethrpc.BlockNumberOrHash
	switch goName {
	case "GetBalance":
		if s, ok := svc.(interface {
			GetBalance(common.Address, bnh) (*hexutil.Big, error)
		}); ok {
			return addressAt(s.GetBalance)
		}
	case "GetTransactionCount":
		if s, ok := svc.(interface {
			GetTransactionCount(common.Address, bnh) (*hexutil.Uint64, error)
		}); ok {
			return addressAt(s.GetTransactionCount)
		}
	case "GetCode":
		if s, ok := svc.(interface {
			GetCode(common.Address, bnh) (hexutil.Bytes, error)
		}); ok {
			return addressAt(s.GetCode)
		}
	case "GetBlockByNumber":
		if s, ok := svc.(interface {
			GetBlockByNumber(gethrpc.BlockNumber, bool) (json.RawMessage, error)
		}); ok {
			return func(a []reflect.Value) (any, error) {
				return result(s.GetBlockByNumber(arg[gethrpc.BlockNumber](a[0]), arg[bool](a[1])))
			}
		}
	case "GetBlockByHash":
		if s, ok := svc.(interface {
			GetBlockByHash(common.Hash, bool) (json.RawMessage, error)
		}); ok {
			return func(a []reflect.Value) (any, error) {
				return result(s.GetBlockByHash(arg[common.Hash](a[0]), arg[bool](a[1])))
			}
		}
	case "GetTransactionReceipt":
		if s, ok := svc.(interface {
			GetTransactionReceipt(common.Hash) (map[string]any, error)
		}); ok {
			return func(a []reflect.Value) (any, error) { return result(s.GetTransactionReceipt(arg[common.Hash](a[0]))) }
		}
	}
	return nil
}

// addressAt calls a method of an address at a block (eth_getBalance and
// its kind) with its decoded arguments.
func addressAt[T any](f func(common.Address, gethrpc.BlockNumberOrHash) (T, error)) func([]reflect.Value) (any, error) {
	return func(a []reflect.Value) (any, error) {
		return result(f(arg[common.Address](a[0]), arg[gethrpc.BlockNumberOrHash](a[1])))
	}
}

// arg is a decoded argument as a T, through its address when it has one
// (no copy into an interface).
func arg[T any](v reflect.Value) T {
	if v.CanAddr() {
		return *v.Addr().Interface().(*T)
	}
	return v.Interface().(T)
}

// result is a method's result as reflect's path returns it: no result
// with an error.
func result[T any](v T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// response is what one call answers: a result or an error.
type response struct {
	result json.RawMessage
	err    error
}

// call runs the method as go-ethereum's server does: a panic is
// "method handler crashed" (-32603), a method still running at the
// request's deadline is "request timed out" (-32002).
func (f *fastPath) call(ctx context.Context, name string, m *fastMethod, args []reflect.Value) (resp response) {
	defer func() {
		if p := recover(); p != nil {
			buf := make([]byte, 64<<10)
			buf = buf[:runtime.Stack(buf, false)]
			f.log.Error("RPC method "+name+" crashed", "panic", p, "stack", string(buf))
			resp = response{err: &rpcError{code: -32603, msg: "method handler crashed"}}
		}
	}()
	result, err := m.invoke(ctx, args)
	if timedOut(ctx) {
		return response{err: &rpcError{code: -32002, msg: "request timed out"}}
	}
	if err != nil {
		return response{err: err}
	}
	// As go-ethereum: a json.Marshaler (an encoded block) encodes itself,
	// without json.Marshal's validation pass.
	enc, err := encodeResult(result)
	if err != nil {
		return response{err: &rpcError{code: -32603, msg: err.Error()}}
	}
	return response{result: enc}
}

type errorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// encodeResponse writes the answer as go-ethereum's server does: the id as
// it came, then the error (encoded with json.Marshal) or the result.
func encodeResponse(out *bytes.Buffer, id json.RawMessage, resp response) error {
	field, value := `,"result":`, resp.result
	if resp.err != nil {
		// As go-ethereum: type assertions, not errors.As.
		obj := errorObject{Code: -32000, Message: resp.err.Error()}
		if ec, ok := resp.err.(gethrpc.Error); ok {
			obj.Code = ec.ErrorCode()
		}
		if de, ok := resp.err.(gethrpc.DataError); ok {
			obj.Data = de.ErrorData()
		}
		enc, err := json.Marshal(&obj)
		if err != nil {
			return err
		}
		field, value = `,"error":`, enc
	}
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(id)
	out.WriteString(field)
	out.Write(value)
	out.WriteByte('}')
	return nil
}

func (f *fastPath) getBuf() *bytes.Buffer {
	if b, ok := f.bufs.Get().(*bytes.Buffer); ok {
		b.Reset()
		return b
	}
	return new(bytes.Buffer)
}

// rpcError is an error with a JSON-RPC code.
type rpcError struct {
	code int
	msg  string
}

func (e *rpcError) Error() string  { return e.msg }
func (e *rpcError) ErrorCode() int { return e.code }

// jsonContentType accepts the media types go-ethereum's server accepts.
func jsonContentType(v string) bool {
	if v == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(v)
	return err == nil && (mt == "application/json" || mt == "application/json-rpc" || mt == "application/jsonrequest")
}

// deadlineOnly is ctx, which nothing cancels, with the deadline
// requestContext would give it, but without a timer or a Done channel: for
// the methods that watch the deadline themselves (deadlineBound).
func deadlineOnly(ctx context.Context) context.Context {
	if d, ok := gethrpc.ContextRequestTimeout(ctx); ok {
		return deadlineCtx{Context: ctx, at: time.Now().Add(d)}
	}
	return ctx
}

// deadlineCtx is a context never canceled (Done is nil, Err nil) that
// carries a deadline for its callee to honour (see deadlineOnly).
type deadlineCtx struct {
	context.Context
	at time.Time
}

func (c deadlineCtx) Deadline() (time.Time, bool) { return c.at, true }

// timedOut tells whether the call's deadline has passed: for a context
// that can be canceled, when it was canceled for its deadline.
func timedOut(ctx context.Context) bool {
	if ctx.Done() == nil {
		at, ok := ctx.Deadline()
		return ok && !time.Now().Before(at)
	}
	return errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// requestContext bounds a call as go-ethereum's server does: by the request
// context's deadline, and 100 ms before the HTTP server's write timeout (the
// *http.Server under http.ServerContextKey) so the answer still gets out.
func requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := gethrpc.ContextRequestTimeout(ctx); ok {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}
