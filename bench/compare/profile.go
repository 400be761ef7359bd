package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/emberchain/ember/bench/internal/peer"
)

// profiler takes a CPU profile or a Go execution trace of a node while a
// burst runs, from the node's --pprof.address; with no dir it does nothing.
// A trace shows what a profile cannot: goroutines waiting on locks or for a
// CPU (`go tool trace -pprof=sync|sched FILE`).
type profiler struct {
	dir    string
	length time.Duration
	trace  bool
}

// start begins a profile of n written to dir/name.pprof (name.trace); the returned func
// waits for it (the profile covers length from start, so a burst shorter
// than that is followed by idle time in it).
func (p profiler) start(n *peer.Node, name string) (wait func()) {
	if p.dir == "" || n.Pprof == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		ext := ".pprof"
		if p.trace {
			ext = ".trace"
		}
		if err := p.fetch(n.Pprof, filepath.Join(p.dir, name+ext)); err != nil {
			fmt.Fprintf(os.Stderr, "profile %s: %v\n", name, err)
		}
	}()
	return func() { <-done }
}

func (p profiler) fetch(base, file string) error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return err
	}
	kind := "profile"
	if p.trace {
		kind = "trace"
	}
	url := fmt.Sprintf("%s/debug/pprof/%s?seconds=%d", base, kind, int(p.length.Seconds()))
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
