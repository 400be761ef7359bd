package node

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	cmtnode "github.com/cometbft/cometbft/node"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/metrics"
)

// dbSampleInterval is how often the sizes under data/ are measured.
const dbSampleInterval = 15 * time.Second

// cometMetricsTaken is set once a node of this process has registered
// CometBFT's metrics in Prometheus' default registry, which refuses a
// second registration of the same names (in-process testnets).
var cometMetricsTaken atomic.Bool

// newMetrics makes the node's series, fed at scrape time from the pool,
// the JSON-RPC server and the explorer.
func (n *Node) newMetrics() *metrics.Metrics {
	return metrics.New(metrics.Sources{
		Pool: func() (int, int, uint64) {
			pending, queued := n.pool.Stats()
			return pending, queued, n.pool.Evicted()
		},
		WebSocket: func() (int, int) {
			if n.rpc == nil {
				return 0, 0
			}
			_, subs := n.filters.Counts()
			return n.rpc.WebSocketConns(), subs
		},
		Filters: func() int {
			if n.filters == nil {
				return 0
			}
			f, _ := n.filters.Counts()
			return f
		},
		State: func() (uint64, time.Duration, int) {
			st := n.store.LastPrune()
			if st == nil {
				return n.store.OldestState(), 0, 0
			}
			return n.store.OldestState(), st.Mark + st.Sweep + st.Compact, st.Deleted
		},
		Health: n.healthMetrics, // health.go
		Explorer: func() (uint64, uint64, bool) {
			if n.explorer == nil {
				return 0, 0, false
			}
			return n.explorer.Status()
		},
		Memory: n.memoryParts, // memory.go
	})
}

// onCommitMetrics records a committed block.
func (n *Node) onCommitMetrics(b *app.CommittedBlock) {
	fee := 0.0
	if bf := b.Block.BaseFee(); bf != nil {
		fee, _ = bf.Float64()
	}
	n.metrics.Block(b.Block.NumberU64(), b.Block.GasUsed(), fee)
}

// cometMetrics is CometBFT's metrics provider: with Ember's metrics on,
// CometBFT's instrumentation registers in Prometheus' default registry,
// which Ember's endpoint serves, and CometBFT's own listener stays off.
func (n *Node) cometMetrics() cmtnode.MetricsProvider {
	ic := *n.cmtCfg.Instrumentation
	if n.metrics != nil {
		n.cmtCfg.Instrumentation.Prometheus = false // no second listener
		ic.Prometheus = cometMetricsTaken.CompareAndSwap(false, true)
	}
	return cmtnode.DefaultMetricsProvider(&ic)
}

// startMetrics serves the endpoint and samples the database sizes.
func (n *Node) startMetrics() error {
	if n.metrics == nil {
		return nil
	}
	n.metrics.Head(n.store.Head().Number.Uint64())
	srv, err := metrics.Serve(n.cfg.Metrics.Address, n.metrics, n.log.With("module", "metrics"))
	if err != nil {
		return err
	}
	n.metricsSrv = srv
	ctx, cancel := context.WithCancel(context.Background())
	n.metricsStop = cancel
	go n.metrics.SampleDBSizes(ctx, filepath.Join(n.home, "data"), dbSampleInterval)
	return nil
}

func (n *Node) stopMetrics() {
	if n.metricsStop != nil {
		n.metricsStop()
	}
	if n.metricsSrv != nil {
		n.metricsSrv.Stop()
	}
}

// MetricsAddr is the bound metrics address, or "" when disabled.
func (n *Node) MetricsAddr() string {
	if n.metricsSrv == nil {
		return ""
	}
	return n.metricsSrv.Addr().String()
}

// timedApp is the app as CometBFT calls it, timing block execution and
// commit for the metrics.
type timedApp struct {
	*app.App
	m *metrics.Metrics
}

func (t timedApp) FinalizeBlock(ctx context.Context, req *abci.RequestFinalizeBlock) (*abci.ResponseFinalizeBlock, error) {
	start := time.Now()
	res, err := t.App.FinalizeBlock(ctx, req)
	if err != nil {
		return res, err
	}
	t.m.Executed(time.Since(start), len(res.TxResults))
	for _, r := range res.TxResults {
		t.m.Tx(r.Code)
	}
	return res, nil
}

func (t timedApp) Commit(ctx context.Context, req *abci.RequestCommit) (*abci.ResponseCommit, error) {
	start := time.Now()
	res, err := t.App.Commit(ctx, req)
	if err == nil {
		t.m.Committed(time.Since(start))
	}
	return res, err
}

// abciApp is what CometBFT runs: the app, timed when metrics are on,
// refusing transactions once the node halted (failstop.go).
func (n *Node) abciApp() abci.Application {
	var a abci.Application = n.app
	if n.metrics != nil {
		a = timedApp{App: n.app, m: n.metrics}
	}
	return haltGate{Application: a, halted: n.halted}
}
