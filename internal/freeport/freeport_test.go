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
