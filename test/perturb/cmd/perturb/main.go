// Command perturb is the long form of the perturbation suite: a local
// testnet under transfer load, faults drawn from a seed until the duration
// has passed, then the checks (no fork, no lost tx, supply exact). It
// prints every fault as it is injected and the report at the end, and
// exits 1 when a check fails. `make perturb DURATION=20m` runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/emberchain/ember/test/perturb"
)

func main() {
	var cfg perturb.Config
	flag.StringVar(&cfg.Emberd, "emberd", "build/emberd", "the emberd binary")
	flag.IntVar(&cfg.Validators, "validators", 4, "validators")
	flag.IntVar(&cfg.FullNodes, "full", 0, "full nodes (0 or 1)")
	flag.DurationVar(&cfg.Duration, "duration", 10*time.Minute, "how long faults are injected")
	seed := flag.Int64("seed", 0, "schedule seed (0: from the clock, printed)")
	flag.StringVar(&cfg.Dir, "dir", "", "directory of the node homes (default: a new temporary directory, kept)")
	flag.Float64Var(&cfg.Rate, "rate", 30, "transfers per second over all senders")
	flag.BoolVar(&cfg.DiskFull, "disk-full", true, "include a disk-full fault (needs root to mount a tmpfs; skipped otherwise)")
	flag.Parse()
	if *seed == 0 {
		*seed = time.Now().UnixNano()
	}
	cfg.Seed = uint64(*seed)
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "ember-perturb-")
		if err != nil {
			fail(err)
		}
		cfg.Dir = dir + "/testnet"
	}
	cfg.Logf = func(format string, args ...any) {
		fmt.Printf("%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, args...)...)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Printf("perturb: seed %d, %d validators, %d full nodes, %v of faults, homes in %s\n",
		cfg.Seed, cfg.Validators, cfg.FullNodes, cfg.Duration, cfg.Dir)
	report, err := perturb.Run(ctx, cfg)
	if report != nil {
		fmt.Print("\n", report)
	}
	if err != nil {
		fail(err)
	}
	if report.Err() != nil {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "perturb:", err)
	os.Exit(2)
}
