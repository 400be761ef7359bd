// Command logs measures eth_getLogs on a chain holding a million logs:
// it fills Ember, anvil and geth --dev with the same transactions (each a
// call that emits 100 logs, one per block), then times four queries:
// one address over the whole range, one topic over the whole range, a single
// block, and a rare topic over the whole range.
//
//	go run ./bench/logs -emberd build/emberd [-txs 10000] [-nodes ember,anvil,geth]
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/emberchain/ember/bench/internal/peer"
)

func main() {
	var (
		emberd = flag.String("emberd", "build/emberd", "emberd binary")
		anvil  = flag.String("anvil", "", "anvil binary (default: bench/node_modules, then PATH)")
		geth   = flag.String("geth", "", "geth binary (default: $GOBIN, ~/go/bin, then PATH)")
		txs    = flag.Int("txs", 10_000, "calls to send, one block each")
		per    = flag.Int("logs-per-tx", 100, "logs each call emits")
		nodes  = flag.String("nodes", "ember,anvil,geth", "nodes to run")
		runs   = flag.Int("runs", 7, "timed runs per query after a warm-up (the median is reported)")
		settle = flag.Duration("settle", 20*time.Second, "pause after filling, before querying, for background work (compaction, indexing) to finish")
	)
	flag.Parse()
	w := workload{txs: *txs, perTx: *per, contracts: 10}

	var results []result
	for _, name := range strings.Split(*nodes, ",") {
		var (
			n   *peer.Node
			err error
		)
		switch name {
		case "ember":
			n, err = peer.Ember(*emberd, 1, uncapLogs)
		case "anvil":
			if path := peer.FindAnvil(*anvil); path != "" {
				n, err = peer.Anvil(path, 1, "")
			} else {
				fmt.Fprintln(os.Stderr, "anvil not found: skipped")
				continue
			}
		case "geth":
			if path := peer.FindGeth(*geth); path != "" {
				n, err = peer.Geth(path)
			} else {
				fmt.Fprintln(os.Stderr, "geth not found (go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.8): skipped")
				continue
			}
		default:
			fmt.Fprintf(os.Stderr, "unknown node %q\n", name)
			os.Exit(2)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "start %s: %v\n", name, err)
			os.Exit(1)
		}
		r, err := measure(n, w, *runs, *settle)
		n.Stop()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		results = append(results, r)
	}
	print(results, w)
}

// uncapLogs lifts Ember's eth_getLogs caps, which the whole-range queries
// exceed (the peers have none by default).
func uncapLogs(home string) error {
	path := home + "/config/app.toml"
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := strings.Replace(string(b), "block-range-cap = 10000", "block-range-cap = 0", 1)
	s = strings.Replace(s, "logs-cap = 10000", "logs-cap = 0", 1)
	return os.WriteFile(path, []byte(s), 0o644)
}

func print(results []result, w workload) {
	fmt.Printf("\neth_getLogs over %d blocks holding %d logs (%d calls × %d logs + %d rare), median of the runs\n\n",
		w.blocksWanted(), w.totalLogs(), w.txs, w.perTx, w.rare())
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight|tabwriter.Debug)
	fmt.Fprint(tw, "query\tlogs\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s ms\t", r.name)
	}
	fmt.Fprintln(tw)
	for i, q := range queries {
		fmt.Fprintf(tw, "%s\t%d\t", q, results[0].counts[i])
		for _, r := range results {
			fmt.Fprintf(tw, "%.1f\t", ms(r.times[i]))
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprint(tw, "fill time\t\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%.0f s\t", r.fill.Seconds())
	}
	fmt.Fprintln(tw)
	tw.Flush()
	for _, r := range results[1:] {
		for i, q := range queries {
			if r.counts[i] != results[0].counts[i] {
				fmt.Printf("WARNING: %s returned %d logs for %q, %s %d\n", r.name, r.counts[i], q, results[0].name, results[0].counts[i])
			}
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
