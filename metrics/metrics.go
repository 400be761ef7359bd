// Package metrics holds Ember's Prometheus series (all prefixed ember_) and
// the HTTP server that exposes them together with CometBFT's own
// instrumentation on one address.
//
// It imports nothing of Ember: the node feeds it through the methods of
// Metrics (block events, JSON-RPC calls) and the read functions of Sources,
// which are called at scrape time so that a gauge is never stale.
package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Namespace prefixes every Ember series.
const Namespace = "ember"

// Sources are read when Prometheus scrapes; a nil one leaves its series out.
type Sources struct {
	// Pool is the transaction pool: executable and nonce-gapped
	// transactions, and how many it has evicted since start.
	Pool func() (pending, queued int, evicted uint64)
	// WebSocket is the open JSON-RPC WebSocket connections and their
	// subscriptions (eth_subscribe).
	WebSocket func() (conns, subscriptions int)
	// Filters is the installed polling filters (eth_new*Filter).
	Filters func() int
	// Explorer is the explorer's last indexed height and the chain head it
	// indexes towards; ok is false until it has indexed a block.
	Explorer func() (indexed, head uint64, ok bool)
	// State is the first height whose state the node holds (it moves with
	// full pruning) and the last pruning sweep's time and deleted trie
	// nodes (zero before one).
	State func() (oldest uint64, lastSweep time.Duration, lastDeleted int)
	// Health is whether the node advances with its network (health.go).
	Health func() Health
	// Memory is the caches outside the Go heap with their limits
	// (memory.go); the Go runtime's parts are read whether or not it is set.
	Memory func() []MemoryPart
}

// Metrics is Ember's series in their own registry.
type Metrics struct {
	reg *prometheus.Registry

	head      prometheus.Gauge
	execute   prometheus.Histogram
	commit    prometheus.Histogram
	blockTxs  prometheus.Histogram
	txs       *prometheus.CounterVec // by ABCI result code
	txsByCode [2]prometheus.Counter  // codes 0 and 1, precreated
	gasUsed   prometheus.Gauge
	gasTotal  prometheus.Counter
	baseFee   prometheus.Gauge
	dbSize    *prometheus.GaugeVec

	RPC *RPC // JSON-RPC calls; nil until the server's methods are known (NewRPC)
}

// blockSeconds are the buckets of block execution and commit times: a dev
// block takes a millisecond, a full one a second or more.
var blockSeconds = prometheus.ExponentialBuckets(0.0005, 2, 14) // 0.5 ms .. 4 s

// New registers Ember's series; src's functions are read at scrape time.
func New(src Sources) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	f := factory{m.reg}
	m.head = f.gauge("head_height", "Height of the last committed block (= eth_blockNumber).")
	m.execute = f.histogram("block_execution_seconds", "Time FinalizeBlock took to execute a block.", blockSeconds)
	m.commit = f.histogram("block_commit_seconds", "Time Commit took to make a block durable.", blockSeconds)
	m.blockTxs = f.histogram("block_txs", "Transactions per block (all result codes).", prometheus.ExponentialBuckets(1, 2, 14))
	m.txs = f.counterVec("txs_total", "Transactions in blocks by ABCI result code: 0 succeeded, 1 reverted or failed (in the EVM block), >1 rejected before execution.", "code")
	m.txsByCode = [2]prometheus.Counter{m.txs.WithLabelValues("0"), m.txs.WithLabelValues("1")}
	m.gasUsed = f.gauge("block_gas_used", "Gas used by the last committed block.")
	m.gasTotal = f.counter("gas_used_total", "Gas used by all blocks committed since start.")
	m.baseFee = f.gauge("base_fee_wei", "Base fee per gas of the last committed block, in wei (aember).")
	m.dbSize = f.gaugeVec("db_size_bytes", "Size on disk of each database under the home's data/ directory, sampled.", "db")
	m.registerSources(f, src)
	m.reg.MustRegister(newMemoryCollector(src.Memory))
	return m
}

func (m *Metrics) registerSources(f factory, src Sources) {
	if src.Pool != nil {
		f.gaugeFunc("txpool_pending", "Executable transactions in the pool.", func() float64 { p, _, _ := src.Pool(); return float64(p) })
		f.gaugeFunc("txpool_queued", "Nonce-gapped transactions in the pool.", func() float64 { _, q, _ := src.Pool(); return float64(q) })
		f.counterFunc("txpool_evicted_total", "Transactions the pool evicted (full pool, queued lifetime) since start.", func() float64 { _, _, e := src.Pool(); return float64(e) })
	}
	if src.WebSocket != nil {
		f.gaugeFunc("rpc_ws_connections", "Open JSON-RPC WebSocket connections.", func() float64 { c, _ := src.WebSocket(); return float64(c) })
		f.gaugeFunc("rpc_subscriptions", "Active eth_subscribe subscriptions.", func() float64 { _, s := src.WebSocket(); return float64(s) })
	}
	if src.Filters != nil {
		f.gaugeFunc("rpc_filters", "Installed polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter).", func() float64 { return float64(src.Filters()) })
	}
	if src.State != nil {
		f.gaugeFunc("state_oldest_height", "First height whose state this node holds: 0 on an archive node, the window's start in full pruning mode.", func() float64 { o, _, _ := src.State(); return float64(o) })
		f.gaugeFunc("state_prune_last_seconds", "Time the last state pruning sweep took (mark, sweep and compaction).", func() float64 { _, d, _ := src.State(); return d.Seconds() })
		f.gaugeFunc("state_prune_last_deleted_nodes", "Trie nodes the last state pruning sweep deleted.", func() float64 { _, _, n := src.State(); return float64(n) })
	}
	if src.Health != nil {
		registerHealth(f, src.Health)
	}
	if src.Explorer != nil {
		f.gaugeFunc("explorer_indexed_height", "Last block the explorer has indexed.", func() float64 { i, _, _ := src.Explorer(); return float64(i) })
		f.gaugeFunc("explorer_lag_blocks", "Blocks the explorer's index trails the chain head by.", func() float64 {
			i, h, ok := src.Explorer()
			if !ok || h < i {
				return 0
			}
			return float64(h - i)
		})
	}
}

// Registry is Ember's registry (Serve gathers it beside CometBFT's).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Block records one committed block: its height, gas and base fee.
func (m *Metrics) Block(height, gasUsed uint64, baseFeeWei float64) {
	m.head.Set(float64(height))
	m.gasUsed.Set(float64(gasUsed))
	m.gasTotal.Add(float64(gasUsed))
	m.baseFee.Set(baseFeeWei)
}

// Head sets the head height (at start, before any block is committed).
func (m *Metrics) Head(height uint64) { m.head.Set(float64(height)) }

// Executed records how long FinalizeBlock took and how many transactions
// the block carried.
func (m *Metrics) Executed(d time.Duration, txs int) {
	m.execute.Observe(d.Seconds())
	m.blockTxs.Observe(float64(txs))
}

// Tx counts one transaction of a finalized block by its ABCI result code.
func (m *Metrics) Tx(code uint32) {
	if code < uint32(len(m.txsByCode)) {
		m.txsByCode[code].Inc()
		return
	}
	m.txs.WithLabelValues(codeLabel(int(code))).Inc()
}

// Committed records how long Commit took.
func (m *Metrics) Committed(d time.Duration) { m.commit.Observe(d.Seconds()) }

// factory makes series named ember_<name> in one registry.
type factory struct{ reg *prometheus.Registry }

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help})
	f.reg.MustRegister(g)
	return g
}

func (f factory) gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help}, labels)
	f.reg.MustRegister(g)
	return g
}

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help})
	f.reg.MustRegister(c)
	return c
}

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) histogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: name, Help: help, Buckets: buckets})
	f.reg.MustRegister(h)
	return h
}

func (f factory) gaugeFunc(name, help string, fn func() float64) {
	f.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help}, fn))
}

func (f factory) counterFunc(name, help string, fn func() float64) {
	f.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help}, fn))
}
