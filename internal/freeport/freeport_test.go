package freeport

import (
	"net"
	"strconv"
	"testing"
)

// TestPortNeverRepeats takes many ports, closing nothing in between (each
// is closed inside Port), the pattern under which the kernel hands the same
// port back: every one must be distinct and bindable.
func TestPortNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 500 {
		port, err := Port()
		if err != nil {
			t.Fatal(err)
		}
		if seen[port] {
			t.Fatalf("port %d returned twice", port)
		}
		seen[port] = true
	}
	addr, err := Addr()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("Addr %s not bindable: %v", addr, err)
	}
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	if p, _ := strconv.Atoi(port); seen[p] {
		t.Fatalf("Addr returned port %s that Port had returned", port)
	}
}

func TestRangeIsFreeAndNeverOverlaps(t *testing.T) {
	taken := map[int]bool{}
	for range 20 {
		base, err := Range(40, 10)
		if err != nil {
			t.Fatal(err)
		}
		if base%10 != 0 || base < 20000 || base+40 > 32768 {
			t.Fatalf("range %d..%d is not a multiple of 10 below the ephemeral ports", base, base+39)
		}
		for p := base; p < base+40; p++ {
			if taken[p] {
				t.Fatalf("port %d in two ranges", p)
			}
			taken[p] = true
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(base+39))
		if err != nil {
			t.Fatalf("last port of the range: %v", err)
		}
		l.Close()
	}
	if _, err := Range(0, 10); err == nil {
		t.Fatal("Range(0, 10) gave a range")
	}
}
