package main

import (
	"fmt"
	"strings"
	"time"
)

// line is a one-line summary printed as soon as a configuration is done.
func (r result) line() string {
	return fmt.Sprintf("  %s %v\n%s\n%s", r.Chain, r.Delay, r.Light.line(), r.Heavy.line())
}

func (p phase) line() string {
	s := fmt.Sprintf("    %d tx/s offered: %.0f tx/s sustained, %d of %d sent included (%d refusals sent again, %d still refused, %d sent late), p50 %v p99 %v, block %v mean / %v p50 over %d, nodes %.2f cores, generator %.2f, steal %.2f, load %.2f",
		p.Rate, p.TPS, p.Included, p.Sent, p.Retries, p.Rejected, p.Late, ms(p.P50), ms(p.P99), ms(p.BlockMean), ms(p.BlockP50), p.Blocks,
		p.NodesCPU, p.GenCPU, p.Steal, p.Load1)
	if p.FirstReject != "" {
		s += "\n      first refusal: " + p.FirstReject
	}
	return s
}

// table is the Markdown table of every configuration, then the ember/evmd
// ratios at each delay.
func table(rs []result) string {
	if len(rs) == 0 {
		return ""
	}
	l, h := rs[0].Light.Rate, rs[0].Heavy.Rate
	var b strings.Builder
	fmt.Fprintf(&b, "| chain | one-way p2p delay | latency p50 @%d tx/s | p99 | block interval @%d tx/s (mean / p50) | sustained tx/s @%d offered | included / sent (refusals sent again) | latency p50 / p99 @%d | block interval @%d (mean) | nodes CPU @%d (cores) | generator CPU | steal | load (1 min) |\n",
		l, l, h, h, h, h)
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		L, H := r.Light, r.Heavy
		fmt.Fprintf(&b, "| %s | %v | %v | %v | %v / %v | %.0f | %d / %d (%d) | %v / %v | %v | %.2f | %.2f | %.2f | %.2f |\n",
			r.Chain, r.Delay, ms(L.P50), ms(L.P99), ms(L.BlockMean), ms(L.BlockP50), H.TPS, H.Included, H.Sent, H.Retries,
			ms(H.P50), ms(H.P99), ms(H.BlockMean), H.NodesCPU, H.GenCPU, H.Steal, H.Load1)
	}
	if ratios := ratioRows(rs); ratios != "" {
		fmt.Fprintf(&b, "\n| ember / evmd | sustained tx/s | latency p50 @%d | p99 @%d | block interval @%d | block interval @%d |\n|---|---|---|---|---|---|\n%s",
			l, l, l, h, ratios)
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
			fmt.Fprintf(&b, "| %v | %s | %s | %s | %s | %s |\n", e.Delay, ratio(e.Heavy.TPS, v.Heavy.TPS),
				ratio(e.Light.P50.Seconds(), v.Light.P50.Seconds()), ratio(e.Light.P99.Seconds(), v.Light.P99.Seconds()),
				ratio(e.Light.BlockMean.Seconds(), v.Light.BlockMean.Seconds()), ratio(e.Heavy.BlockMean.Seconds(), v.Heavy.BlockMean.Seconds()))
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
