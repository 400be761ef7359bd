package metrics

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestMemoryParts: the Go runtime's parts are non-zero, a source's parts
// and limits are reported as given, and GOMEMLIMIT shows as part go's limit.
func TestMemoryParts(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(512 << 20))
	m := New(Sources{Memory: func() []MemoryPart {
		return []MemoryPart{{Part: "pebble_block_cache", Bytes: 1000, Limit: 256 << 20}, {Part: "trie_dirty", Bytes: 5}}
	}})
	runtime.GC() // the live heap is known after a collection
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]float64{}
	for _, f := range families {
		for _, s := range f.GetMetric() {
			part := ""
			for _, l := range s.GetLabel() {
				part = l.GetValue()
			}
			if got[f.GetName()] == nil {
				got[f.GetName()] = map[string]float64{}
			}
			got[f.GetName()][part] = s.GetGauge().GetValue()
		}
	}
	bytes, limits := got["ember_memory_bytes"], got["ember_memory_limit_bytes"]
	for _, part := range []string{"go_heap_inuse", "go_stacks", "go_runtime_other"} {
		if bytes[part] <= 0 {
			t.Errorf("ember_memory_bytes{part=%q} = %v, want > 0", part, bytes[part])
		}
	}
	if bytes["pebble_block_cache"] != 1000 || bytes["trie_dirty"] != 5 {
		t.Errorf("source parts %v", bytes)
	}
	if limits["pebble_block_cache"] != 256<<20 || limits["go"] != 512<<20 {
		t.Errorf("limits %v", limits)
	}
	if _, ok := limits["trie_dirty"]; ok {
		t.Error("a part without a limit has one")
	}
	if got["ember_memory_go_heap_live_bytes"][""] <= 0 || got["ember_memory_go_gc_percent"][""] <= 0 {
		t.Errorf("heap live %v, GC percent %v", got["ember_memory_go_heap_live_bytes"], got["ember_memory_go_gc_percent"])
	}
}
