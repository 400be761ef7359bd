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

// profiler takes a CPU profile of a node while a burst runs, from the
// node's --pprof.address; with no dir it does nothing.
type profiler struct {
	dir    string
	length time.Duration
}

// start begins a profile of n written to dir/name.pprof; the returned func
// waits for it (the profile covers length from start, so a burst shorter
// than that is followed by idle time in it).
func (p profiler) start(n *peer.Node, name string) (wait func()) {
	if p.dir == "" || n.Pprof == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.fetch(n.Pprof, filepath.Join(p.dir, name+".pprof")); err != nil {
			fmt.Fprintf(os.Stderr, "profile %s: %v\n", name, err)
		}
	}()
	return func() { <-done }
}

func (p profiler) fetch(base, file string) error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return err
	}
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(p.length.Seconds()))
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
