package main

import (
	"fmt"
	"strings"
	"time"
)

// line is a one-line summary printed as soon as a configuration is done.
func (r result) line() string {
	s := fmt.Sprintf("  %s %v: %.0f tx/s sustained (%d of %d offered, %d rejected, %d sent late), p50 %v p99 %v, block %v mean / %v p50 over %d, nodes %.2f cores, generator %.2f, steal %.2f, load %.2f",
		r.Chain, r.Delay, r.TPS, r.Included, r.Offered, r.Rejected, r.Late, ms(r.P50), ms(r.P99), ms(r.BlockMean), ms(r.BlockP50), r.Blocks,
		r.NodesCPU, r.GenCPU, r.Steal, r.Load1)
	if r.FirstReject != "" {
		s += "\n    first rejection: " + r.FirstReject
	}
	return s
}

// table is the Markdown table of every configuration, then the ember/evmd
// ratios at each delay.
func table(rs []result, o options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| chain | one-way p2p delay | offered tx/s | sustained tx/s | included / sent | send→inclusion p50 | p99 | block interval mean | p50 | nodes CPU (cores) | generator CPU | steal | load (1 min) |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "| %s | %v | %d | %.0f | %d / %d | %v | %v | %v | %v | %.2f | %.2f | %.2f | %.2f |\n",
			r.Chain, r.Delay, o.load.Rate, r.TPS, r.Included, r.Sent, ms(r.P50), ms(r.P99), ms(r.BlockMean), ms(r.BlockP50),
			r.NodesCPU, r.GenCPU, r.Steal, r.Load1)
	}
	ratios := ratioRows(rs)
	if ratios != "" {
		fmt.Fprintf(&b, "\n| ember / evmd | sustained tx/s | p50 latency | p99 latency | block interval mean |\n|---|---|---|---|---|\n%s", ratios)
	}
	return b.String()
}

// ratioRows are ember's figures over evmd's at each delay both ran
// (throughput above 1 is Ember's advantage; latency and interval below 1).
func ratioRows(rs []result) string {
	var b strings.Builder
	for _, e := range rs {
		if e.Chain != "ember" {
			continue
		}
		for _, v := range rs {
			if v.Chain != "evmd" || v.Delay != e.Delay {
				continue
			}
			fmt.Fprintf(&b, "| %v | %s | %s | %s | %s |\n", e.Delay, ratio(e.TPS, v.TPS),
				ratio(e.P50.Seconds(), v.P50.Seconds()), ratio(e.P99.Seconds(), v.P99.Seconds()), ratio(e.BlockMean.Seconds(), v.BlockMean.Seconds()))
		}
	}
	return b.String()
}

func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// ms rounds a duration to the millisecond for the table.
func ms(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
