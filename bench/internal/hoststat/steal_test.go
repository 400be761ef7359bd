package hoststat

import (
	"runtime"
	"testing"
	"time"
)

func TestStealSince(t *testing.T) {
	t0 := Now()
	if t0.total == 0 {
		t.Skip("no /proc/stat")
	}
	deadline := time.Now().Add(50 * time.Millisecond)
	for time.Now().Before(deadline) { // let the counters move
	}
	t1 := Now()
	if t1.total <= t0.total || t1.steal < t0.steal {
		t.Fatalf("counters went from %+v to %+v", t0, t1)
	}
	if s := t1.StealSince(t0); s < 0 || s > float64(runtime.NumCPU()) {
		t.Fatalf("steal %.2f cores of %d", s, runtime.NumCPU())
	}
	// Made-up counters: a quarter of the ticks stolen is a quarter of the cores.
	a, b := Ticks{steal: 10, total: 100}, Ticks{steal: 35, total: 200}
	if got, want := b.StealSince(a), 0.25*float64(runtime.NumCPU()); got != want {
		t.Fatalf("StealSince = %v, want %v", got, want)
	}
	if got := a.StealSince(a); got != 0 {
		t.Fatalf("no ticks between: %v", got)
	}
}
