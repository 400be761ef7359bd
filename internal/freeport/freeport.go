// Package freeport hands out loopback TCP ports for tests and benchmarks to
// pass to the processes they start.
//
// A port is found by listening on port 0 and closing the listener. The
// kernel gives a just-closed ephemeral port out again readily, so two such
// calls in a row can return the same port: a test node once got one port for
// both its JSON-RPC and its explorer listener, and failed only on the run
// that turned the explorer on. This package remembers every port it returned
// and never returns one twice in a process.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

var (
	mu        sync.Mutex
	handedOut = map[int]bool{}
)

// tries bounds the search; the kernel's ephemeral range holds ~28,000 ports.
const tries = 100

// Port returns a 127.0.0.1 TCP port that nothing listened on when it was
// chosen and that no earlier call in this process returned. Another process
// may still take it before the caller binds it.
func Port() (int, error) {
	mu.Lock()
	defer mu.Unlock()
	for range tries {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !handedOut[port] {
			handedOut[port] = true
			return port, nil
		}
	}
	return 0, fmt.Errorf("freeport: the kernel offered no new port in %d tries", tries)
}

// Addr is Port as "127.0.0.1:port".
func Addr() (string, error) {
	port, err := Port()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
}

// Range returns the first of n consecutive ports on 127.0.0.1 that are free
// now, for a process that must know its ports before it starts (a testnet's
// homes are written with them). The base is a random multiple of step
// between 20000 and the kernel's ephemeral range (32768 on), so that Port,
// which takes ports from that range, never hands one of them out, and
// concurrent runs on the machine, each picking its own base, rarely
// collide; within this process no two ranges overlap.
func Range(n, step int) (int, error) {
	const low, ephemeral = 20000, 32768
	if n <= 0 || step <= 0 || n > ephemeral-low {
		return 0, fmt.Errorf("freeport: no range of %d ports in steps of %d", n, step)
	}
	mu.Lock()
	defer mu.Unlock()
	for range tries {
		base := low + step*rand.IntN((ephemeral-low-n)/step+1)
		if rangeFree(base, n) {
			for p := base; p < base+n; p++ {
				handedOut[p] = true
			}
			return base, nil
		}
	}
	return 0, fmt.Errorf("freeport: no free range of %d ports in %d tries", n, tries)
}

// rangeFree reports whether none of the n ports from base was handed out
// and each can be listened on now.
func rangeFree(base, n int) bool {
	for p := base; p < base+n; p++ {
		if handedOut[p] {
			return false
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			return false
		}
		l.Close()
	}
	return true
}
