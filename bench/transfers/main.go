// Command transfers measures how fast a node commits plain ETH transfers:
// it pre-signs N transfers from S senders, sends them concurrently with
// eth_sendRawTransaction (each sender's in nonce order, without waiting),
// watches the chain for their inclusion, and reports committed transfers per
// second and send→inclusion latency percentiles. It runs Ember (emberd dev)
// and, when found, anvil in the same run on the same workload.
//
//	go run ./bench/transfers -emberd build/emberd [-anvil path] [-txs 5000] [-senders 50]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/emberchain/ember/bench/internal/peer"
)

func main() {
	var (
		emberd  = flag.String("emberd", "build/emberd", "emberd binary")
		anvil   = flag.String("anvil", "", "anvil binary (default: bench/node_modules/.bin/anvil, then PATH)")
		txs     = flag.Int("txs", 5000, "transfers to send")
		senders = flag.Int("senders", 50, "distinct senders")
		nodes   = flag.String("nodes", "ember,anvil", "comma-separated nodes to run")
	)
	flag.Parse()
	if *txs%*senders != 0 {
		fatalf("-txs must be a multiple of -senders")
	}
	w := workload{txs: *txs, senders: *senders}

	var results []result
	if strings.Contains(*nodes, "ember") {
		ember, err := peer.Ember(*emberd, *senders, nil)
		if err != nil {
			fatalf("start ember: %v", err)
		}
		results = append(results, run("ember", ember, w))
		ember.Stop()
	}
	if !strings.Contains(*nodes, "anvil") {
		// skipped
	} else if path := peer.FindAnvil(*anvil); path != "" {
		// anvil as it ships (a block per arriving tx), and with interval
		// mining, which drains a burst that automine leaves in its pool.
		for _, mode := range []struct{ name, blockTime string }{{"anvil (automine)", ""}, {"anvil --block-time 1", "1"}} {
			a, err := peer.Anvil(path, *senders, mode.blockTime)
			if err != nil {
				fatalf("start anvil: %v", err)
			}
			results = append(results, run(mode.name, a, w))
			a.Stop()
		}
	} else {
		fmt.Fprintln(os.Stderr, "anvil not found (npm install in bench/): Ember only")
	}
	printTable(results, w)
}

func printTable(results []result, w workload) {
	fmt.Printf("\n%d transfers from %d senders via eth_sendRawTransaction\n\n", w.txs, w.senders)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "node\tcommitted\tblocks\ttransfers/s\tp50 ms\tp90 ms\tp99 ms\tmax ms\t")
	// transfers/s counts committed transfers over the time from the first
	// send to the last inclusion; latency is send to inclusion.
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", r.name, r.committed, r.blocks, r.tps,
			ms(r.p50), ms(r.p90), ms(r.p99), ms(r.max))
	}
	tw.Flush()
	if len(results) > 1 && results[0].name == "ember" {
		for _, r := range results[1:] {
			if r.tps > 0 {
				fmt.Printf("Ember / %s throughput: %.2f\n", r.name, results[0].tps/r.tps)
			}
		}
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
