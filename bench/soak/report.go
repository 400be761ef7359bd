package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// column is one value of a row, in MiB unless it says otherwise.
type column struct {
	name  string
	value func(s sample) float64
	mib   bool
}

// The parts of ember_memory_bytes that are read (not bounded) outside the
// Go heap, in anonymous memory; trie_dirty and trie_preimages are Go heap
// (already in go_heap_inuse) and so are shown but not subtracted, and the
// SQLite page caches are only a bound (sqlite_cache≤), left in anon_rest.
var offHeapParts = []string{"pebble_block_cache", "pebble_memtables", "trie_clean_cache"}

var goParts = []string{"go_heap_inuse", "go_heap_idle_unreleased", "go_stacks", "go_runtime_other"}

func part(name string) func(s sample) float64 { return func(s sample) float64 { return s.parts[name] } }

// anonRest is the anonymous memory no part reads: mostly the SQLite page
// caches (modernc's allocator, outside the Go heap, bounded by
// sqlite_cache≤), then other cgo and libc allocations.
func anonRest(s sample) float64 {
	rest := float64(s.rssAnon)
	for _, p := range append(append([]string{}, goParts...), offHeapParts...) {
		rest -= s.parts[p]
	}
	return rest
}

var columns = []column{
	{"elapsed", func(s sample) float64 { return s.elapsed.Round(time.Second).Seconds() }, false},
	{"height", func(s sample) float64 { return float64(s.height) }, false},
	{"sent", func(s sample) float64 { return float64(s.sent) }, false},
	{"rss", func(s sample) float64 { return float64(s.rss) }, true},
	{"anon", func(s sample) float64 { return float64(s.rssAnon) }, true},
	{"file", func(s sample) float64 { return float64(s.rssFile) }, true},
	{"shmem", func(s sample) float64 { return float64(s.rssShmem) }, true},
	{"explorer_map", func(s sample) float64 { return float64(s.explorerMap) }, true},
	{"go_heap", part("go_heap_inuse"), true},
	{"go_idle", part("go_heap_idle_unreleased"), true},
	{"go_stacks", part("go_stacks"), true},
	{"go_other", part("go_runtime_other"), true},
	{"heap_live", func(s sample) float64 { return s.heapLive }, true},
	{"heap_goal", func(s sample) float64 { return s.heapGoal }, true},
	{"pebble_cache", part("pebble_block_cache"), true},
	{"memtables", part("pebble_memtables"), true},
	{"trie_clean", part("trie_clean_cache"), true},
	{"trie_dirty", part("trie_dirty"), true},
	{"sqlite_cache≤", part("sqlite_page_cache"), true},
	{"anon_rest", anonRest, true},
	{"explorer_lag", func(s sample) float64 { return s.explorerLag }, false},
}

// report prints the rows as they come and keeps them for the summary.
type report struct {
	rows []sample
	csvF *os.File
	csvW *csv.Writer
}

func newReport(out string) (*report, error) {
	r := &report{}
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return nil, err
		}
		r.csvF, r.csvW = f, csv.NewWriter(f)
		head := make([]string, len(columns))
		for i, c := range columns {
			head[i] = c.name
			if c.mib {
				head[i] += "_mib"
			}
		}
		_ = r.csvW.Write(head)
	}
	fmt.Println("memory in MiB; elapsed in s; sqlite_cache≤ is a bound (page cache × open connections), not a reading;\nanon_rest = anon − go_* − pebble − trie_clean: what no part reads, mostly the SQLite page caches")
	return r, nil
}

func (r *report) close() {
	if r.csvW != nil {
		r.csvW.Flush()
		r.csvF.Close()
	}
}

func cell(c column, s sample) string {
	v := c.value(s)
	if c.mib {
		v /= 1 << 20
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// row prints one row (the header every 20 rows) and appends it to the CSV.
func (r *report) row(s sample) {
	if len(r.rows)%20 == 0 {
		fmt.Println(header())
	}
	r.rows = append(r.rows, s)
	cells := make([]string, len(columns))
	for i, c := range columns {
		cells[i] = cell(c, s)
	}
	fmt.Println(line(cells))
	if r.csvW != nil {
		_ = r.csvW.Write(cells)
		r.csvW.Flush()
	}
}

func header() string {
	names := make([]string, len(columns))
	for i, c := range columns {
		names[i] = c.name
	}
	return line(names)
}

// line right-aligns cells in columns as wide as their names (at least 6).
func line(cells []string) string {
	var b strings.Builder
	for i, c := range cells {
		w := max(len([]rune(columns[i].name)), 6)
		fmt.Fprintf(&b, "%*s ", w, c)
	}
	return strings.TrimRight(b.String(), " ")
}

// summary prints the first, middle and last rows, whether the resident set
// levelled off, and the documented ceiling against the peak.
func (r *report) summary(binary int64) {
	if len(r.rows) == 0 {
		fmt.Println("no rows: the run was shorter than -every")
		return
	}
	first, mid, last := r.rows[0], r.rows[len(r.rows)/2], r.rows[len(r.rows)-1]
	fmt.Println("\nstart, middle, end:")
	fmt.Println(header())
	for _, s := range []sample{first, mid, last} {
		cells := make([]string, len(columns))
		for i, c := range columns {
			cells[i] = cell(c, s)
		}
		fmt.Println(line(cells))
	}
	rate := float64(last.sent) / last.elapsed.Seconds()
	fmt.Printf("\n%d transfers sent (%.0f/s), %d failed sends; %d blocks\n", last.sent, rate, last.failed, last.height)
	r.levelled()
	r.ceiling(binary)
}

// levelled compares the peak resident set of the run's last third with
// that of the first two thirds: growth below 5% counts as levelled off.
func (r *report) levelled() {
	if len(r.rows) < 3 {
		fmt.Println("levelled off: too few rows to tell (need 3; lower -every or raise -duration)")
		return
	}
	cut := len(r.rows) * 2 / 3
	peak := func(rows []sample, f func(sample) int64) int64 {
		var m int64
		for _, s := range rows {
			m = max(m, f(s))
		}
		return m
	}
	for _, m := range []struct {
		name string
		f    func(sample) int64
	}{{"rss", func(s sample) int64 { return s.rss }}, {"anon", func(s sample) int64 { return s.rssAnon }}} {
		before, after := peak(r.rows[:cut], m.f), peak(r.rows[cut:], m.f)
		growth := 100 * float64(after-before) / float64(max(before, 1))
		verdict := "levelled off"
		if growth >= 5 {
			verdict = "STILL GROWING"
		}
		fmt.Printf("%-4s peak first two thirds %5.0f MiB, last third %5.0f MiB: %+5.1f%%  %s\n", m.name, mib(before), mib(after), growth, verdict)
	}
}

// ceiling is docs/memory.md's sum: each configured limit the node reports,
// the Go runtime's budget (GOMEMLIMIT when set, else the largest GC heap
// goal seen plus stacks and runtime metadata), and the binary's size (its
// file-backed text and data).
func (r *report) ceiling(binary int64) {
	limits := r.rows[len(r.rows)-1].limits
	names := make([]string, 0, len(limits))
	for p := range limits {
		if p != "go" {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	var total float64
	var parts []string
	for _, p := range names {
		total += limits[p]
		parts = append(parts, fmt.Sprintf("%s %.0f", p, limits[p]/(1<<20)))
	}
	goBudget, how := limits["go"], "runtime.memory-limit-mb"
	if goBudget == 0 {
		how = "no memory limit: largest heap goal seen + stacks + runtime"
		for _, s := range r.rows {
			goBudget = max(goBudget, s.heapGoal+s.parts["go_stacks"]+s.parts["go_runtime_other"])
		}
	}
	total += goBudget + float64(binary)
	parts = append(parts, fmt.Sprintf("go %.0f (%s)", goBudget/(1<<20), how), fmt.Sprintf("binary %.0f", float64(binary)/(1<<20)))
	var peak int64
	for _, s := range r.rows {
		peak = max(peak, s.rss)
	}
	verdict := "below"
	if float64(peak) > total {
		verdict = "ABOVE"
	}
	fmt.Printf("ceiling %.0f MiB = %s\npeak rss %.0f MiB: %s the ceiling\n", total/(1<<20), strings.Join(parts, " + "), mib(peak), verdict)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
