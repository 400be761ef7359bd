// Command network measures a four-validator network with production
// settings on one machine, every p2p link through a delaying proxy
// (internal/p2plinks), Ember against evmd (cosmos/evm v0.7.0) in the same
// run: transfers/s sustained under an open-loop load sent round robin to
// the four nodes' eth_sendRawTransaction, send → inclusion latency p50/p99,
// and the block interval. See bench/README.md ("Network benchmark").
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

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
)

// options are the command's flags.
type options struct {
	emberd, evmd string
	chains       string
	delays       string
	comet        cometSettings
	senders      int
	light, heavy load
	settle       time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.emberd, "emberd", "build/emberd", "emberd binary")
	flag.StringVar(&o.evmd, "evmd", "build/evmd-v0.7.0/evmd", "evmd v0.7.0 binary (scripts/build-evmd.sh)")
	flag.StringVar(&o.chains, "chains", "ember,evmd", "chains to run, in this order at each delay")
	flag.StringVar(&o.delays, "delays", "0ms,50ms", "one-way p2p delays to run")
	flag.DurationVar(&o.comet.blockTime, "block-time", time.Second, "timeout_commit of both chains")
	flag.DurationVar(&o.comet.flushThrottle, "flush-throttle", 0, "p2p.flush_throttle_timeout of both chains (0: each chain's own)")
	flag.IntVar(&o.senders, "senders", 500, "sender accounts (funded at genesis)")
	flag.IntVar(&o.light.Rate, "light-rate", 50, "transfers per second of the latency load (open loop; both chains must keep up)")
	flag.DurationVar(&o.light.Window, "light-window", 20*time.Second, "window of the latency load")
	flag.IntVar(&o.heavy.Rate, "heavy-rate", 1600, "transfers per second of the throughput load (open loop; above what either chain sustains)")
	flag.DurationVar(&o.heavy.Window, "heavy-window", 40*time.Second, "window of the throughput load")
	flag.DurationVar(&o.light.Drain, "drain", 30*time.Second, "wait after the latency load for its transfers to be included")
	flag.DurationVar(&o.settle, "settle", 5*time.Second, "idle time after the network is up, before the load")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench/network:", err)
		stop()
		os.Exit(1)
	}
}

// run measures every (delay, chain) configuration, the chains alternating
// at each delay, and prints the table.
func run(ctx context.Context, o options) error {
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, o.senders)
	if err != nil {
		return err
	}
	var senders []common.Address
	for _, k := range keys {
		senders = append(senders, k.Address)
	}
	chains := map[string]chain{"ember": ember{bin: o.emberd, comet: o.comet}, "evmd": evmd{bin: o.evmd, comet: o.comet}}
	var results []result
	// The heavy load's backlog is not waited for: its figures are the
	// inclusions during its window.
	o.heavy.Drain = 10 * time.Second
	fmt.Printf("bench/network: %d tx/s for %v then %d tx/s for %v, from %d senders, block time %v, flush throttle %v (0: each chain's), %s\n",
		o.light.Rate, o.light.Window, o.heavy.Rate, o.heavy.Window, o.senders, o.comet.blockTime, o.comet.flushThrottle,
		time.Now().UTC().Format(time.RFC3339))
	for _, ds := range strings.Split(o.delays, ",") {
		delay, err := time.ParseDuration(ds)
		if err != nil {
			return err
		}
		for _, name := range strings.Split(o.chains, ",") {
			c, ok := chains[name]
			if !ok {
				return fmt.Errorf("unknown chain %q", name)
			}
			r, err := one(ctx, c, delay, senders, keys, o)
			if err != nil {
				return fmt.Errorf("%s at %v: %w", name, delay, err)
			}
			fmt.Println(r.line())
			results = append(results, r)
		}
	}
	fmt.Println()
	fmt.Print(table(results))
	return nil
}

// one starts a fresh network for c at delay, measures it and stops it.
func one(ctx context.Context, c chain, delay time.Duration, senders []common.Address, keys []*accounts.Key, o options) (result, error) {
	fmt.Printf("%s, %v one way: starting 4 validators…\n", c.Name(), delay)
	nw, err := startNetwork(ctx, c, delay, senders)
	if err != nil {
		return result{}, err
	}
	defer nw.stop()
	select {
	case <-ctx.Done():
		return result{}, ctx.Err()
	case <-time.After(o.settle):
	}
	r := result{Chain: c.Name(), Delay: delay}
	if r.Light, err = measure(ctx, nw, keys, o.light); err != nil {
		return r, fmt.Errorf("light load: %w", err)
	}
	if r.Heavy, err = measure(ctx, nw, keys, o.heavy); err != nil {
		return r, fmt.Errorf("heavy load: %w", err)
	}
	// A node that died during the run would leave the figures to the others.
	for _, n := range nw.nodes {
		if _, err := cometHeight(ctx, n.comet); err != nil {
			return r, fmt.Errorf("%s died during the run: %v\n%s", n.name, err, tail(n.log.Name(), 2000))
		}
	}
	return r, nil
}
