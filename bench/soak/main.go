// Command soak runs `emberd dev` with the explorer (SQLite) under a steady
// load of ETH transfers for a while and prints, every -every, the node's
// resident memory split into the Go runtime's parts, each cache outside the
// Go heap and the explorer database's mapped pages, beside the bound each
// is configured to (docs/memory.md). At the end it says whether the
// resident set levelled off and how its peak compares with the ceiling the
// settings document. make soak builds emberd first.
//
//	go run ./bench/soak -emberd build/emberd [-duration 10m] [-rate 200] [-every 1m] [-out soak.csv] [-node-flags "--store.cache-mb=128"]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
)

type options struct {
	emberd    string
	duration  time.Duration
	rate      int
	senders   int
	workers   int
	every     time.Duration
	out       string
	nodeFlags string
	keep      bool
}

func main() {
	var o options
	flag.StringVar(&o.emberd, "emberd", "build/emberd", "emberd binary")
	flag.DurationVar(&o.duration, "duration", 10*time.Minute, "how long the load runs")
	flag.IntVar(&o.rate, "rate", 200, "transfers sent per second")
	flag.IntVar(&o.senders, "senders", 500, "prefunded accounts the transfers come from")
	flag.IntVar(&o.workers, "workers", 32, "concurrent senders (each owns a share of the accounts)")
	flag.DurationVar(&o.every, "every", time.Minute, "time between two rows")
	flag.StringVar(&o.out, "out", "", "also write every row to this CSV file")
	flag.StringVar(&o.nodeFlags, "node-flags", "", "extra flags for emberd dev, space-separated (e.g. \"--runtime.memory-limit-mb=512 --store.cache-mb=128\")")
	flag.BoolVar(&o.keep, "keep", false, "keep the node's home (its log is node.log there)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	n, err := startNode(o.emberd, o.senders+1, strings.Fields(o.nodeFlags))
	if err != nil {
		return err
	}
	defer n.stop(o.keep)
	eth, err := ethclient.Dial(n.rpcURL)
	if err != nil {
		return err
	}
	defer eth.Close()
	l, err := newLoad(ctx, eth, o.senders)
	if err != nil {
		return fmt.Errorf("prepare transfers: %w", err)
	}
	fmt.Printf("emberd dev (pid %d, home %s, explorer on SQLite): %d transfers/s from %d accounts for %s, a row every %s\n",
		n.pid(), n.home, o.rate, o.senders, o.duration, o.every)
	if o.nodeFlags != "" {
		fmt.Printf("node flags: %s\n", o.nodeFlags)
	}
	r, err := newReport(o.out)
	if err != nil {
		return err
	}
	defer r.close()
	loadCtx, endLoad := context.WithTimeout(ctx, o.duration)
	defer endLoad()
	go l.run(loadCtx, o.rate, o.workers)
	sampleLoop(loadCtx, n, eth, l, o.every, r)
	if err := n.exited(); err != nil {
		return err
	}
	r.summary(binarySize(o.emberd))
	return nil
}

// sampleLoop prints a row every interval until ctx ends, and a last one
// then unless a row was just printed; it stops early if the node exits.
// Samples use their own context: one taken as the load ends is not cut
// short.
func sampleLoop(ctx context.Context, n *node, eth *ethclient.Client, l *load, every time.Duration, r *report) {
	start, last := time.Now(), time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if n.exited() == nil && time.Since(last) > every/10 {
				r.row(n.sample(context.Background(), eth, l, time.Since(start)))
			}
			return
		case <-t.C:
			if n.exited() != nil {
				return
			}
			r.row(n.sample(context.Background(), eth, l, time.Since(start)))
			last = time.Now()
		}
	}
}

func binarySize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
