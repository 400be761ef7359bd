package main

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

func TestMedianSlice(t *testing.T) {
	r := func(rps float64, reruns int) *readResult {
		return &readResult{rps: rps, reruns: reruns, p50: time.Duration(rps)}
	}
	odd := medianSlice([]*readResult{r(30, 0), r(10, 1), r(20, 2)})
	if odd.rps != 20 || odd.p50 != 20 || !slices.Equal(odd.slices, []float64{30, 10, 20}) || odd.reruns != 3 {
		t.Fatalf("median of 30, 10, 20: %+v", odd)
	}
	even := medianSlice([]*readResult{r(40, 0), r(10, 0), r(30, 0), r(20, 0)})
	if even.rps != 20 {
		t.Fatalf("median of four: %v, want the lower middle 20", even.rps)
	}
}

func TestSliceLength(t *testing.T) {
	for _, c := range []struct {
		dur  time.Duration
		n    int
		want time.Duration
	}{
		{9 * time.Second, 3, 3 * time.Second},
		{8 * time.Second, 3, 3 * time.Second}, // 2.67 s rounds to wrk's whole seconds
		{2 * time.Second, 3, time.Second},     // never under 1 s
		{5 * time.Second, 0, 5 * time.Second}, // 0 slices: one
	} {
		if got := sliceLength(c.dur, c.n); got != c.want {
			t.Errorf("sliceLength(%v, %d) = %v, want %v", c.dur, c.n, got, c.want)
		}
	}
}

func TestRemeasure(t *testing.T) {
	over := maxStealShare*float64(runtime.NumCPU()) + 0.01
	if !remeasure(over, 0) || !remeasure(over, maxReruns-1) {
		t.Fatal("a measurement over the steal share is not taken again")
	}
	if remeasure(over, maxReruns) {
		t.Fatalf("taken again after %d re-measurements", maxReruns)
	}
	if remeasure(0, 0) || remeasure(maxStealShare*float64(runtime.NumCPU()), 0) {
		t.Fatal("taken again at or under the steal share")
	}
}
