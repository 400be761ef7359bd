package metrics

import (
	"math"
	"runtime/metrics"

	"github.com/prometheus/client_golang/prometheus"
)

// MemoryPart is one part of the node's memory outside the Go heap (a cache
// of the store or the explorer), read at scrape time: what it holds now
// (negative when it cannot be read cheaply: only its limit is reported)
// and the most its settings let it hold (0 when none is configured).
type MemoryPart struct {
	Part  string
	Bytes int64
	Limit int64
}

// The Go runtime's parts of ember_memory_bytes, from runtime/metrics'
// /memory/classes (which sum to what the runtime has mapped); the released
// heap is left out: it is mapped but returned to the kernel, not resident.
var goClasses = []struct {
	part    string
	classes []string
}{
	{"go_heap_inuse", []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes"}},
	{"go_heap_idle_unreleased", []string{"/memory/classes/heap/free:bytes"}},
	{"go_stacks", []string{"/memory/classes/heap/stacks:bytes", "/memory/classes/os-stacks:bytes"}},
	{"go_runtime_other", []string{"/memory/classes/metadata/mcache/free:bytes", "/memory/classes/metadata/mcache/inuse:bytes",
		"/memory/classes/metadata/mspan/free:bytes", "/memory/classes/metadata/mspan/inuse:bytes", "/memory/classes/metadata/other:bytes",
		"/memory/classes/profiling/buckets:bytes", "/memory/classes/other:bytes"}},
}

// The collector's gauges beside the parts: the GC's view of the heap.
const (
	goHeapLive  = "/gc/heap/live:bytes"
	goHeapGoal  = "/gc/heap/goal:bytes"
	goGCPercent = "/gc/gogc:percent"
	goMemLimit  = "/gc/gomemlimit:bytes"
)

// memoryCollector reports ember_memory_bytes{part} and
// ember_memory_limit_bytes{part} when scraped: the Go runtime's parts and
// those src returns (docs/memory.md). Nothing is sampled between scrapes.
type memoryCollector struct {
	src                           func() []MemoryPart
	bytes, limit                  *prometheus.Desc
	heapLive, heapGoal, gcPercent *prometheus.Desc
	samples                       []metrics.Sample
	index                         map[string]int // sample name → index
}

func newMemoryCollector(src func() []MemoryPart) *memoryCollector {
	name := func(n string) string { return prometheus.BuildFQName(Namespace, "memory", n) }
	c := &memoryCollector{
		src:       src,
		bytes:     prometheus.NewDesc(name("bytes"), "Resident memory by part: the Go runtime's (heap in use, idle heap not yet returned to the kernel, stacks, runtime metadata) and each cache outside the Go heap (docs/memory.md).", []string{"part"}, nil),
		limit:     prometheus.NewDesc(name("limit_bytes"), "The most a part may hold as configured ([store], [explorer], [runtime] memory-limit-mb for part go); docs/memory.md sums them into the node's ceiling.", []string{"part"}, nil),
		heapLive:  prometheus.NewDesc(name("go_heap_live_bytes"), "Go heap live after the last garbage collection.", nil, nil),
		heapGoal:  prometheus.NewDesc(name("go_heap_goal_bytes"), "Heap size at which the next garbage collection starts (live × (1 + GOGC/100), lower near GOMEMLIMIT).", nil, nil),
		gcPercent: prometheus.NewDesc(name("go_gc_percent"), "The garbage collector's target, GOGC ([runtime] gc-percent).", nil, nil),
		index:     map[string]int{},
	}
	for _, g := range goClasses {
		for _, cl := range g.classes {
			c.add(cl)
		}
	}
	for _, n := range []string{goHeapLive, goHeapGoal, goGCPercent, goMemLimit} {
		c.add(n)
	}
	return c
}

func (c *memoryCollector) add(name string) {
	c.index[name] = len(c.samples)
	c.samples = append(c.samples, metrics.Sample{Name: name})
}

func (c *memoryCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.bytes, c.limit, c.heapLive, c.heapGoal, c.gcPercent} {
		ch <- d
	}
}

// Collect reads the runtime's classes (a copy: Prometheus may scrape
// concurrently) and the sources.
func (c *memoryCollector) Collect(ch chan<- prometheus.Metric) {
	samples := append([]metrics.Sample(nil), c.samples...)
	metrics.Read(samples)
	val := func(name string) float64 {
		v := samples[c.index[name]].Value
		switch v.Kind() {
		case metrics.KindUint64:
			return float64(v.Uint64())
		case metrics.KindFloat64:
			return v.Float64()
		}
		return 0 // unknown to this Go version
	}
	for _, g := range goClasses {
		var sum float64
		for _, cl := range g.classes {
			sum += val(cl)
		}
		ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, sum, g.part)
	}
	if lim := val(goMemLimit); lim > 0 && lim < math.MaxInt64 {
		ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, lim, "go")
	}
	ch <- prometheus.MustNewConstMetric(c.heapLive, prometheus.GaugeValue, val(goHeapLive))
	ch <- prometheus.MustNewConstMetric(c.heapGoal, prometheus.GaugeValue, val(goHeapGoal))
	ch <- prometheus.MustNewConstMetric(c.gcPercent, prometheus.GaugeValue, val(goGCPercent))
	if c.src == nil {
		return
	}
	for _, p := range c.src() {
		if p.Bytes >= 0 {
			ch <- prometheus.MustNewConstMetric(c.bytes, prometheus.GaugeValue, float64(p.Bytes), p.Part)
		}
		if p.Limit > 0 {
			ch <- prometheus.MustNewConstMetric(c.limit, prometheus.GaugeValue, float64(p.Limit), p.Part)
		}
	}
}
