package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// OtherMethod is the method label of calls to a method the server does not
// serve: unknown names share one series, so a client cannot grow the label
// set without bound.
const OtherMethod = "other"

// RPC counts JSON-RPC calls by method and error code (0 for a result) and
// times them. The series of every served method are made up front: a
// successful call costs a map lookup and two atomic updates, no allocation.
type RPC struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	methods  map[string]*rpcMethod
	other    *rpcMethod
}

type rpcMethod struct {
	name     string
	ok       prometheus.Counter  // code 0
	duration prometheus.Observer // all codes
}

// rpcSeconds are the latency buckets: a state read takes tens of
// microseconds, an eth_call or a trace up to the server's timeout.
var rpcSeconds = prometheus.ExponentialBuckets(0.00005, 2.5, 14) // 50 µs .. ~7.5 min

// NewRPC registers the JSON-RPC series for the methods the server serves
// (namespace_method names) and returns the recorder.
func (m *Metrics) NewRPC(methods []string) *RPC {
	f := factory{m.reg}
	r := &RPC{
		requests: f.counterVec("rpc_requests_total", "JSON-RPC calls by method and error code (0: answered with a result).", "method", "code"),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "rpc_request_duration_seconds",
			Help: "Time to answer a JSON-RPC call, by method.", Buckets: rpcSeconds}, []string{"method"}),
		methods: make(map[string]*rpcMethod, len(methods)),
	}
	m.reg.MustRegister(r.duration)
	for _, name := range append(methods, OtherMethod) {
		r.methods[name] = &rpcMethod{name: name, ok: r.requests.WithLabelValues(name, "0"), duration: r.duration.WithLabelValues(name)}
	}
	r.other = r.methods[OtherMethod]
	m.RPC = r
	return r
}

// ObserveCall records one call: its method, its JSON-RPC error code (0 when
// it answered a result) and how long it took.
func (r *RPC) ObserveCall(method string, code int, elapsed time.Duration) {
	rm := r.methods[method]
	if rm == nil {
		rm = r.other
	}
	rm.duration.Observe(elapsed.Seconds())
	if code == 0 {
		rm.ok.Inc()
		return
	}
	r.requests.WithLabelValues(rm.name, codeLabel(code)).Inc()
}

// codeLabel spells a code; the common JSON-RPC ones without allocating.
func codeLabel(code int) string {
	switch code {
	case -32000:
		return "-32000"
	case -32601:
		return "-32601"
	case -32602:
		return "-32602"
	case -32603:
		return "-32603"
	case 3:
		return "3"
	}
	return strconv.Itoa(code)
}
