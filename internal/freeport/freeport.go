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
