package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emberchain/ember/bench/internal/writes"
)

// report holds one run's figures and prints issue 17's tables.
type report struct {
	kinds              []nodeKind
	started            time.Time
	loadStart, loadEnd string
	rounds, txs        int
	anvilTxs, senders  int
	latencyTxs, conns  int
	duration           time.Duration
	readSlices         int
	writes             map[writes.Kind][][]*writes.Result // [round][kind]
	latency            []*latency
	reads              []readRun
}

// readRun is one measurement of the reads: on which nodes, where they ran,
// the figures.
type readRun struct {
	kinds   []nodeKind
	cpus    *readCPUs       // nil: sharing the machine's cores with wrk
	results [][]*readResult // [method][kind]
}

func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "\n## Ember vs geth --dev vs anvil, %s UTC (took %v; load average %s at the start, %s at the end)\n",
		r.started.UTC().Format("2006-01-02 15:04"), time.Since(r.started).Round(time.Second), r.loadStart, r.loadEnd)
	if r.writes != nil || r.latency != nil {
		r.printWrites(w)
	}
	for _, run := range r.reads {
		r.printReads(w, run)
	}
}

func (r *report) col(key string) int {
	return slices.IndexFunc(r.kinds, func(k nodeKind) bool { return k.key == key })
}

func (r *report) printWrites(w io.Writer) {
	fmt.Fprintf(w, "\n### Writes: %d signed transfers from %d senders, each sender in nonce order, one send in flight per sender (%d for anvil); %d rounds, a fresh node each, node order rotating\n\n",
		r.txs, r.senders, r.anvilTxs, r.rounds)
	header(w, "", r.kinds)
	geth := r.col("geth")
	for _, kind := range []writes.Kind{writes.ETH, writes.ERC20} {
		rounds, ok := r.writes[kind]
		if !ok {
			continue
		}
		name := map[writes.Kind]string{writes.ETH: "ETH", writes.ERC20: "ERC-20"}[kind]
		cells := make([]string, len(r.kinds))
		for i := range r.kinds {
			var vals []string
			for _, round := range rounds {
				vals = append(vals, tps(round[i], r.txsFor(i)))
			}
			cells[i] = strings.Join(vals, " / ")
		}
		row(w, fmt.Sprintf("%s transfers committed/s, %d rounds", name, len(rounds)), cells)
		if geth >= 0 {
			for i := range r.kinds {
				cells[i] = ""
				if r.kinds[i].key == "anvil" {
					continue // a smaller burst: not comparable
				}
				var ratios []float64
				for _, round := range rounds {
					if round[i] != nil && round[geth] != nil && round[geth].TPS > 0 {
						ratios = append(ratios, round[i].TPS/round[geth].TPS)
					}
				}
				if len(ratios) > 0 {
					cells[i] = fmt.Sprintf("**%.2f**", median(ratios))
				}
			}
			row(w, "median ratio to geth in the same round", cells)
		}
		for i := range r.kinds {
			var node, bench []float64
			for _, round := range rounds {
				if round[i] != nil {
					node, bench = append(node, round[i].NodeCPU), append(bench, round[i].BenchCPU)
				}
			}
			cells[i] = ""
			if len(node) > 0 {
				cells[i] = fmt.Sprintf("%.2f / %.2f", median(node), median(bench))
			}
		}
		row(w, "  cores used, node / load generator (median)", cells)
		for i := range r.kinds {
			var steal []string
			reruns := 0
			for _, round := range rounds {
				if round[i] != nil {
					steal = append(steal, fmt.Sprintf("%.2f", round[i].Steal))
					reruns += round[i].Reruns
				}
			}
			cells[i] = strings.Join(steal, " / ")
			if reruns > 0 {
				cells[i] += fmt.Sprintf(" (%d bursts dropped for steal)", reruns)
			}
		}
		row(w, fmt.Sprintf("  cores taken by the hypervisor (steal), %d rounds", len(rounds)), cells)
		r.printDrain(w, rounds)
		r.printCatchUp(w, rounds)
	}
	if r.latency != nil {
		r.printLatency(w, "receipt polled every 5 ms", func(l *latency) pcts { return l.polled })
		r.printLatency(w, "receipt asked on each newHeads", func(l *latency) pcts { return l.heads })
	}
}

func (r *report) printLatency(w io.Writer, how string, of func(*latency) pcts) {
	cells := make([]string, len(r.kinds))
	for i, l := range r.latency {
		if l != nil {
			p := of(l)
			cells[i] = fmt.Sprintf("%.1f / %.1f", ms(p.p50), ms(p.p99))
		}
	}
	row(w, fmt.Sprintf("send → receipt, one tx at a time (%d txs, %s), p50 / p99 ms", r.latencyTxs, how), cells)
}

// printDrain is the row of how long each burst's last blocks took after
// its last send was answered.
func (r *report) printDrain(w io.Writer, rounds [][]*writes.Result) {
	cells := make([]string, len(r.kinds))
	for i := range r.kinds {
		var vals []string
		for _, round := range rounds {
			if round[i] != nil && round[i].Committed > 0 {
				vals = append(vals, fmt.Sprintf("%.0f", ms(round[i].Drain)))
			}
		}
		cells[i] = strings.Join(vals, " / ")
	}
	row(w, drainLabel, cells)
}

const drainLabel = "  last send answered → last transfer in a block, ms"

// printCatchUp is the row of how long each explorer took to show the
// burst's last block after its last receipt, when any node ran one.
func (r *report) printCatchUp(w io.Writer, rounds [][]*writes.Result) {
	cells, any := make([]string, len(r.kinds)), false
	for i := range r.kinds {
		var vals []string
		for _, round := range rounds {
			if round[i] != nil && round[i].CatchUp > 0 {
				vals = append(vals, fmt.Sprintf("%.2f", round[i].CatchUp.Seconds()))
			}
		}
		if len(vals) > 0 {
			cells[i], any = strings.Join(vals, " / "), true
		}
	}
	if any {
		row(w, "  explorer shows the last block, s after the last receipt", cells)
	}
}

// txsFor is the burst size node kind i was given.
func (r *report) txsFor(i int) int {
	if r.kinds[i].key == "anvil" {
		return r.anvilTxs
	}
	return r.txs
}

func tps(res *writes.Result, txs int) string {
	switch {
	case res == nil:
		return "failed"
	case res.Committed < txs:
		return fmt.Sprintf("%s (%d of %d committed)", thousands(res.TPS), res.Committed, txs)
	}
	return thousands(res.TPS)
}

func (r *report) printReads(w io.Writer, run readRun) {
	where := fmt.Sprintf("node and wrk sharing the machine's %d cores", runtime.NumCPU())
	if run.cpus != nil {
		where = fmt.Sprintf("one core each: every node started on CPU %s (taskset; Go and tokio size their threads to it), wrk on CPU %s", run.cpus.node, run.cpus.load)
	}
	fmt.Fprintf(w, "\n### Reads, %s: wrk, 1 thread, %d keep-alive connections, per method %d slices of %v on each node after a 1 s warm-up, the nodes taking turns, one at a time; each node's median slice, req/s\n\n",
		where, r.conns, r.readSlices, sliceLength(r.duration, r.readSlices))
	kinds, results := run.kinds, run.results
	ember := slices.IndexFunc(kinds, func(k nodeKind) bool { return k.key == "ember" })
	fmt.Fprint(w, "| method |")
	for _, k := range kinds {
		fmt.Fprintf(w, " %s |", k.label)
	}
	var others []int
	if ember >= 0 {
		for i, k := range kinds {
			if i != ember {
				others = append(others, i)
				fmt.Fprintf(w, " Ember / %s |", k.key)
			}
		}
	}
	fmt.Fprint(w, "\n|---|")
	for range len(kinds) + len(others) {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for m, method := range readMethods {
		fmt.Fprintf(w, "| %s |", method.label)
		for _, res := range results[m] {
			fmt.Fprintf(w, " %s |", thousands(res.rps))
		}
		for _, o := range others {
			fmt.Fprintf(w, " **%.2f** |", results[m][ember].rps/results[m][o].rps)
		}
		fmt.Fprintln(w)
	}

	fmt.Fprint(w, "\nThe median slice: where the CPU went (cores used by the node and by wrk, and taken by the hypervisor (steal); node CPU time per request; latency p50 / p99 ms); then every slice's req/s, in the order run, and how many slices were measured again because the hypervisor took more than a tenth of the machine:\n\n| method |")
	for _, k := range kinds {
		fmt.Fprintf(w, " %s: node / wrk / steal cores, µs/req, p50 / p99; slices |", k.key)
	}
	fmt.Fprint(w, "\n|---|")
	for range kinds {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	var errs []string
	for m, method := range readMethods {
		fmt.Fprintf(w, "| %s |", method.label)
		for i, res := range results[m] {
			fmt.Fprintf(w, " %.2f / %.2f / %.2f, %.1f, %.2f / %.2f; %s |", res.nodeCPU, res.wrkCPU, res.steal,
				float64(res.nodeCPUPerReq.Nanoseconds())/1000, ms(res.p50), ms(res.p99), sliceRates(res))
			if res.errors != "" {
				errs = append(errs, fmt.Sprintf("%s %s: %s", kinds[i].key, method.label, res.errors))
			}
		}
		fmt.Fprintln(w)
	}
	for _, e := range errs {
		fmt.Fprintf(w, "\nwrk reported: %s", e)
	}
	fmt.Fprintln(w)
}

func header(w io.Writer, first string, kinds []nodeKind) {
	fmt.Fprintf(w, "| %s |", first)
	for _, k := range kinds {
		fmt.Fprintf(w, " `%s` |", k.label)
	}
	fmt.Fprint(w, "\n|---|")
	for range kinds {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
}

func row(w io.Writer, label string, cells []string) {
	fmt.Fprintf(w, "| %s |", label)
	for _, c := range cells {
		fmt.Fprintf(w, " %s |", c)
	}
	fmt.Fprintln(w)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// thousands writes a rate with a thousands separator: 52,702.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// sliceRates lists a node's slices in thousands of req/s, and how many
// were measured again for steal: "46.6 / 44.1 / 47.0k, 1 re-measured".
func sliceRates(res *readResult) string {
	parts := make([]string, len(res.slices))
	for i, v := range res.slices {
		parts[i] = strconv.FormatFloat(v/1000, 'f', 1, 64)
	}
	out := strings.Join(parts, " / ") + "k"
	if res.reruns > 0 {
		out += fmt.Sprintf(", %d re-measured", res.reruns)
	}
	return out
}
