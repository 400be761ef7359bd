package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// report prints one Markdown row per node and mode, then Ember/geth ratios.
func report(w io.Writer, results []result) {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(w, "gzip %v; load average before the report: %s\n\n", gzip, strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	fmt.Fprintln(w, "| node | mode | txs sent | refused | pool after (pending/queued) | admitted txs/s | send p50 ms | send p99 ms | txpool_content entries | content median ms | content max ms | answer MiB |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d/%d | %.0f | %.2f | %.2f | %d | %.1f | %.1f | %.2f |\n",
			r.node, r.mode, r.adm.sent, r.adm.refused, r.pool.Pending, r.pool.Queued, r.adm.rate(),
			ms(percentile(r.adm.lat, 0.5)), ms(percentile(r.adm.lat, 0.99)),
			r.content.entries, ms(r.content.median), ms(r.content.max), float64(r.content.bytes)/(1<<20))
	}
	for _, r := range results {
		if r.adm.firstErr != "" {
			fmt.Fprintf(w, "\n%s %s: first refusal: %s", r.node, r.mode, r.adm.firstErr)
		}
	}
	fmt.Fprintln(w)
	for _, mode := range []string{"pending", "queued"} {
		e, g := find(results, "ember", mode), find(results, "geth --dev", mode)
		if e == nil || g == nil {
			continue
		}
		fmt.Fprintf(w, "%s: Ember/geth admission rate %.2f×, txpool_content median latency %.2f× geth's\n",
			mode, e.adm.rate()/g.adm.rate(), ms(e.content.median)/ms(g.content.median))
	}
}

func find(results []result, node, mode string) *result {
	for i := range results {
		if results[i].node == node && results[i].mode == mode {
			return &results[i]
		}
	}
	return nil
}
