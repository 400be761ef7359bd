// Command transfers measures how fast a node commits plain ETH transfers:
// it pre-signs N transfers from S senders, sends them concurrently with
// eth_sendRawTransaction (each sender's in nonce order, without waiting),
// watches the chain for their inclusion, and reports committed transfers per
// second and send→inclusion latency percentiles. It runs Ember (emberd dev)
// and, when found, anvil in the same run on the same workload. The burst is
// bench/internal/writes' (the one make bench runs too).
//
//	go run ./bench/transfers -emberd build/emberd [-anvil path] [-txs 5000] [-senders 50] [-kind eth|erc20]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/emberchain/ember/bench/internal/peer"
	"github.com/emberchain/ember/bench/internal/writes"
)

type result struct {
	name string
	writes.Result
}

func main() {
	var (
		emberd  = flag.String("emberd", "build/emberd", "emberd binary")
		anvil   = flag.String("anvil", "", "anvil binary (default: bench/node_modules, then PATH)")
		txs     = flag.Int("txs", 5000, "transfers to send")
		senders = flag.Int("senders", 50, "distinct senders")
		kind    = flag.String("kind", "eth", "eth or erc20 transfers")
		nodes   = flag.String("nodes", "ember,anvil", "comma-separated nodes to run")
	)
	flag.Parse()
	b := writes.Burst{Kind: writes.Kind(*kind), Txs: *txs, Senders: *senders}
	run := func(name string, p *peer.Node) result {
		defer p.Stop()
		r, err := writes.Run(context.Background(), p.URL, p, b)
		if err != nil {
			fatalf("%s: %v", name, err)
		}
		return result{name, r}
	}

	var results []result
	if strings.Contains(*nodes, "ember") {
		ember, err := peer.Ember(*emberd, b.Accounts(), nil)
		if err != nil {
			fatalf("start ember: %v", err)
		}
		results = append(results, run("ember", ember))
	}
	if !strings.Contains(*nodes, "anvil") {
		// skipped
	} else if path := peer.FindAnvil(*anvil); path != "" {
		// anvil as it ships (a block per arriving tx), and with interval
		// mining, which drains a burst that automine leaves in its pool.
		for _, mode := range []struct{ name, blockTime string }{{"anvil (automine)", ""}, {"anvil --block-time 1", "1"}} {
			a, err := peer.Anvil(path, b.Accounts(), mode.blockTime)
			if err != nil {
				fatalf("start anvil: %v", err)
			}
			results = append(results, run(mode.name, a))
		}
	} else {
		fmt.Fprintln(os.Stderr, "anvil not found (npm install in bench/): Ember only")
	}
	printTable(results, b)
}

func printTable(results []result, b writes.Burst) {
	fmt.Printf("\n%d %s transfers from %d senders via eth_sendRawTransaction\n\n", b.Txs, b.Kind, b.Senders)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprintln(tw, "node\tcommitted\tblocks\ttransfers/s\tp50 ms\tp90 ms\tp99 ms\tmax ms\tnode CPU\tbench CPU\t")
	// transfers/s counts committed transfers over the time from the first
	// send to the last inclusion; latency is send to inclusion.
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f%%\t%.0f%%\t\n", r.name, r.Committed, r.Blocks, r.TPS,
			ms(r.P50), ms(r.P90), ms(r.P99), ms(r.Max), 100*r.NodeCPU, 100*r.BenchCPU)
	}
	tw.Flush()
	if len(results) > 1 && results[0].name == "ember" {
		for _, r := range results[1:] {
			if r.TPS > 0 {
				fmt.Printf("Ember / %s throughput: %.2f\n", r.name, results[0].TPS/r.TPS)
			}
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
