package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/hoststat"
	"github.com/emberchain/ember/bench/internal/peer"
	"github.com/emberchain/ember/bench/internal/writes"
)

// result is one configuration's measurement: a light load that both
// chains keep up with (its latency is the network's, not a queue's), then
// a heavy one above what either sustains (its inclusion rate is the
// network's capacity).
type result struct {
	Chain        string
	Delay        time.Duration
	Light, Heavy phase
}

// phase is the measurement of one load.
type phase struct {
	Rate int

	// Rejected transfers were still refused when the window ended;
	// Retries counts every refusal (each sent again 200 ms later).
	Offered, Sent, Rejected, Late, Retries int
	// InWindow counts transfers in blocks seen during the window after its
	// first steadySkip; TPS is that over the same time: the rate the
	// network sustained under the load, once the first blocks (which only
	// hold the first second's sends) are past.
	InWindow int
	TPS      float64
	// Included counts the window's sends in a block by the end of the
	// drain; the latencies are theirs (send → first seen in a block at
	// node 0).
	Included    int
	P50, P99    time.Duration
	BlockMean   time.Duration // CometBFT header time deltas over the window
	BlockP50    time.Duration
	Blocks      int
	NodesCPU    float64 // cores, all four nodes
	GenCPU      float64 // cores, this process (sending and watching)
	Steal       float64 // cores
	Load1       float64 // 1-minute load average at the end of the window
	FirstReject string
}

// steadySkip is the start of a window left out of its throughput.
const steadySkip = 5 * time.Second

// measure runs l against nw and reads the result.
func measure(ctx context.Context, nw *network, keys []*accounts.Key, l load) (phase, error) {
	r := phase{Rate: l.Rate}
	planned, err := plan(ctx, nw.nodes[0].jsonRPC, keys, l)
	if err != nil {
		return r, fmt.Errorf("sign: %w", err)
	}
	w, err := watch(ctx, nw.nodes[0].jsonRPC)
	if err != nil {
		return r, err
	}
	defer w.stop()
	h0, err := cometHeight(ctx, nw.nodes[0].comet)
	if err != nil {
		return r, err
	}
	cpu0, self0, host0 := nw.cpu(), peer.SelfCPU(), hoststat.Now()
	start := time.Now().Add(100 * time.Millisecond)
	end := start.Add(l.Window)
	txs, stats := send(ctx, nw.urls(), planned, start, end)
	select {
	case <-ctx.Done():
		return r, ctx.Err()
	case <-time.After(time.Until(end)):
	}
	elapsed := time.Since(start)
	cpu1, self1, host1 := nw.cpu(), peer.SelfCPU(), hoststat.Now()
	h1, err := cometHeight(ctx, nw.nodes[0].comet)
	if err != nil {
		return r, err
	}
	r.Load1 = loadavg()
	r.NodesCPU = (cpu1 - cpu0).Seconds() / elapsed.Seconds()
	r.GenCPU = (self1 - self0).Seconds() / elapsed.Seconds()
	r.Steal = host1.StealSince(host0)
	r.Late, r.Retries, r.FirstReject = stats.late, stats.retries, stats.firstRefusal
	for _, p := range planned {
		r.Offered += len(p)
	}
	ok := r.accepted(txs)
	drainUntil := time.Now().Add(l.Drain)
	for time.Now().Before(drainUntil) && w.count(ok) < len(ok) && ctx.Err() == nil {
		time.Sleep(100 * time.Millisecond)
	}
	w.stop()
	r.latencies(w, ok, start, end)
	r.BlockMean, r.BlockP50, r.Blocks, err = blockIntervals(ctx, nw.nodes[0].comet, h0, h1)
	return r, err
}

// accepted are the transfers a node took; it counts the others.
func (r *phase) accepted(txs []sent) []sent {
	var ok []sent
	for _, s := range txs {
		if s.err == nil {
			ok = append(ok, s)
			continue
		}
		if r.FirstReject == "" {
			r.FirstReject = s.err.Error()
		}
		r.Rejected++
	}
	r.Sent = len(ok)
	return ok
}

// latencies fills the throughput and latency figures from what the
// watcher saw.
func (r *phase) latencies(w *watcher, ok []sent, start, end time.Time) {
	// A window no longer than the skip (a short check run) counts whole.
	skip := steadySkip
	if end.Sub(start) <= skip {
		skip = 0
	}
	var lat []time.Duration
	for _, s := range ok {
		at, in := w.included[s.hash]
		if !in {
			continue
		}
		lat = append(lat, at.Sub(s.at))
		if at.After(start.Add(skip)) && !at.After(end) {
			r.InWindow++
		}
	}
	slices.Sort(lat)
	r.Included = len(lat)
	r.P50, r.P99 = writes.Pct(lat, 50), writes.Pct(lat, 99)
	r.TPS = float64(r.InWindow) / (end.Sub(start) - skip).Seconds()
}

// blockIntervals reads the CometBFT header times of heights h0..h1 (20 a
// request, /blockchain's page) and returns the mean and median of the
// deltas between consecutive ones: the block interval the validators
// agreed on, to the nanosecond (eth blocks carry whole seconds).
func blockIntervals(ctx context.Context, comet string, h0, h1 int64) (mean, p50 time.Duration, blocks int, err error) {
	times := map[int64]time.Time{}
	for lo := h0; lo <= h1; lo += 20 {
		hi := min(lo+19, h1)
		var page struct {
			Result struct {
				Metas []struct {
					Header struct {
						Height string    `json:"height"`
						Time   time.Time `json:"time"`
					} `json:"header"`
				} `json:"block_metas"`
			} `json:"result"`
		}
		if err := getJSON(ctx, fmt.Sprintf("%s/blockchain?minHeight=%d&maxHeight=%d", comet, lo, hi), &page); err != nil {
			return 0, 0, 0, err
		}
		for _, m := range page.Result.Metas {
			h, _ := strconv.ParseInt(m.Header.Height, 10, 64)
			times[h] = m.Header.Time
		}
	}
	var deltas []time.Duration
	for h := h0 + 1; h <= h1; h++ {
		a, okA := times[h-1]
		b, okB := times[h]
		if okA && okB {
			deltas = append(deltas, b.Sub(a))
		}
	}
	if len(deltas) == 0 {
		return 0, 0, 0, nil
	}
	var sum time.Duration
	for _, d := range deltas {
		sum += d
	}
	slices.Sort(deltas)
	return sum / time.Duration(len(deltas)), writes.Pct(deltas, 50), len(deltas), nil
}

// loadavg is the machine's 1-minute load average (0 if unreadable).
func loadavg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
