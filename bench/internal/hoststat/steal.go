// Package hoststat reads what the machine as a whole did during a
// measurement: on a shared VM, the CPU time the hypervisor gave to others
// (steal) explains a slow figure that the node's own CPU time does not.
package hoststat

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Ticks is the machine's CPU time from /proc/stat's cpu line: steal and
// all of it (user through steal; guest time is inside user already).
type Ticks struct{ steal, total float64 }

// Now reads the counters; zero where /proc/stat cannot be read.
func Now() Ticks {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return Ticks{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal guest guest_nice
	var t Ticks
	for i := 1; i < len(fields) && i <= 8; i++ {
		v, _ := strconv.ParseFloat(fields[i], 64)
		t.total += v
		if i == 8 {
			t.steal = v
		}
	}
	return t
}

// StealSince is the steal between t0 and t, in cores of this machine.
func (t Ticks) StealSince(t0 Ticks) float64 {
	if t.total <= t0.total {
		return 0
	}
	return (t.steal - t0.steal) / (t.total - t0.total) * float64(runtime.NumCPU())
}
