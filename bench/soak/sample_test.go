package main

import (
	"strings"
	"testing"
)

// TestParseMetrics: the ember_memory_* series and the explorer's lag are
// read from the exposition text; other series are skipped.
func TestParseMetrics(t *testing.T) {
	text := `# HELP ember_memory_bytes Resident memory by part
# TYPE ember_memory_bytes gauge
ember_memory_bytes{part="go_heap_inuse"} 1.2e+08
ember_memory_bytes{part="pebble_memtables"} 5.0331648e+07
ember_memory_limit_bytes{part="pebble_block_cache"} 2.68435456e+08
ember_memory_go_heap_live_bytes 4.5e+07
ember_memory_go_heap_goal_bytes 2.25e+08
ember_explorer_lag_blocks 12
ember_head_height 99
go_memstats_heap_inuse_bytes 1
`
	var s sample
	if err := parseMetrics(strings.NewReader(text), &s); err != nil {
		t.Fatal(err)
	}
	if s.parts["go_heap_inuse"] != 1.2e8 || s.parts["pebble_memtables"] != 50331648 || len(s.parts) != 2 {
		t.Errorf("parts %v", s.parts)
	}
	if s.limits["pebble_block_cache"] != 256<<20 || s.heapLive != 4.5e7 || s.heapGoal != 2.25e8 || s.explorerLag != 12 {
		t.Errorf("limits %v, live %v, goal %v, lag %v", s.limits, s.heapLive, s.heapGoal, s.explorerLag)
	}
}
