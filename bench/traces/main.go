// Command traces measures debug_traceBlockByNumber with callTracer on a
// block of 500 ERC-20 transfers, on Ember and on geth --dev started from
// Ember's genesis (same fork rules, same accounts), one node after the
// other. Each node deploys the same token from the same key, then 50
// senders make 10 transfers each to fresh recipients, sent at once right
// after a block so they land together in the next one (Ember runs with a
// block every 3 s instead of a block per burst, geth with --dev.period 3).
// The block is then traced once (warm-up, verified), K times in a row and
// a fixed number of times from C clients at once.
//
//	go run ./bench/traces -emberd build/emberd [-geth PATH] [-runs 10] [-concurrency 4] [-concurrent-calls 20] [-gzip=false]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	ethereum "github.com/ethereum/go-ethereum"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/peer"
)

// defaultGeth is where the repository's pinned geth is built.
const defaultGeth = "build/geth-v1.17.8/geth"

var (
	running []*peer.Node // killed by fatalf
	temps   []string     // removed on exit
)

func main() {
	var (
		emberd    = flag.String("emberd", "build/emberd", "emberd binary")
		geth      = flag.String("geth", "", "geth binary (default: "+defaultGeth+", then $GOBIN, ~/go/bin, PATH)")
		nodes     = flag.String("nodes", "ember,geth", "nodes to run, one after the other")
		senders   = flag.Int("senders", 50, "senders")
		perSender = flag.Int("per-sender", 10, "transfers per sender (consecutive nonces)")
		gas       = flag.Uint64("gas", 60_000, "gas limit of each transfer (the block must hold senders × per-sender × gas)")
		runs      = flag.Int("runs", 10, "sequential traces after the warm-up")
		conc      = flag.Int("concurrency", 4, "clients tracing at once in the concurrent mode")
		concCalls = flag.Int("concurrent-calls", 20, "traces in the concurrent mode")
		blockTime = flag.Duration("block-time", 3*time.Second, "block interval of both nodes while the transfers are sent")
		rounds    = flag.Int("rounds", 3, "tries at putting all transfers in one block")
		settle    = flag.Duration("settle", 5*time.Second, "pause after the block, before tracing")
	)
	flag.BoolVar(&verbose, "v", false, "print every call's latency")
	flag.BoolVar(&gzip, "gzip", true, "accept gzip-compressed answers (Go's HTTP client default; geth compresses, Ember does not)")
	flag.Parse()
	w := workload{senders: *senders, perSender: *perSender, gas: *gas}
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, w.senders+1)
	if err != nil {
		fatalf("keys: %v", err)
	}
	gethBin := *geth
	if gethBin == "" {
		if _, err := os.Stat(defaultGeth); err == nil {
			gethBin = defaultGeth
		} else {
			gethBin = peer.FindGeth("")
		}
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*nodes, ",") {
		if n != "ember" && n != "geth" {
			fatalf("unknown node %q (ember, geth)", n)
		}
		want[n] = true
	}
	ctx := context.Background()
	bench := func(n *peer.Node) result {
		c, err := dial(n.Name, n.URL, keys)
		if err != nil {
			fatalf("%s: %v", n.Name, err)
		}
		defer c.rpc.Close()
		if err := c.checkFit(ctx, w); err != nil {
			fatalf("%s: %v", n.Name, err)
		}
		b, err := c.fill(ctx, w, *rounds)
		if err != nil {
			fatalf("%s: %v", n.Name, err)
		}
		time.Sleep(*settle)
		r, err := c.measure(ctx, b, *runs, *conc, *concCalls)
		if err != nil {
			fatalf("%s: %v", n.Name, err)
		}
		return r
	}

	// Ember's home comes first: geth starts from its genesis.
	dev, err := peer.EmberDev(*emberd, w.senders+1, false, false, nil)
	if err != nil {
		fatalf("emberd dev: %v", err)
	}
	home := dev.Home()
	temps = append(temps, home)
	running = append(running, dev)
	if want["ember"] {
		// Deploy and hand out tokens with dev's fast blocks.
		c, err := dial("ember", dev.URL, keys)
		if err != nil {
			fatalf("ember: %v", err)
		}
		if err := c.setup(ctx); err != nil {
			fatalf("ember: %v", err)
		}
		c.rpc.Close()
	}
	dev.Terminate()
	running = nil
	genesis, err := peer.GethGenesis(home)
	if err != nil {
		fatalf("%v", err)
	}

	var results []result
	if want["ember"] {
		if err := peer.BlocksEvery(home, *blockTime); err != nil {
			fatalf("%v", err)
		}
		// The debug namespace: dev homes serve eth,net,web3 only.
		n, err := peer.EmberStart("ember", *emberd, home, "--json-rpc.api", "eth,net,web3,debug")
		if err != nil {
			fatalf("emberd start: %v", err)
		}
		running = append(running, n)
		results = append(results, bench(n))
		n.Terminate()
		running = nil
	}
	if want["geth"] {
		if gethBin == "" {
			fatalf("geth not found (GOBIN=$PWD/build/geth-v1.17.8 go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.8)")
		}
		// A block every -block-time with whatever the pool holds, at Ember's
		// gas limit, so both chains pack blocks alike.
		n, err := peer.GethFrom(gethBin, genesis, "--dev.period", strconv.Itoa(int(blockTime.Seconds())),
			"--miner.gaslimit", strconv.FormatUint(genesis.GasLimit, 10), "--http.api", "eth,net,web3,debug")
		if err != nil {
			fatalf("geth: %v", err)
		}
		temps = append(temps, n.Home())
		running = append(running, n)
		c, err := dial(n.Name, n.URL, keys)
		if err != nil {
			fatalf("geth: %v", err)
		}
		if err := c.setup(ctx); err != nil {
			fatalf("geth: %v", err)
		}
		c.rpc.Close()
		results = append(results, bench(n))
		n.Terminate()
		running = nil
	}
	report(results, w, *conc)
	cleanup()
}

func cleanup() {
	for _, d := range temps {
		os.RemoveAll(d)
	}
}

// checkFit checks that the block gas limit holds all transfers at their gas
// limit (blocks are packed by gas limit, not gas used), and that the gas
// limit covers a transfer to a fresh recipient.
func (c *chain) checkFit(ctx context.Context, w workload) error {
	head, err := c.eth.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	data, _ := token.ABI.Pack("transfer", recipient(9999, 0, 0), amount(0, 0))
	est, err := c.eth.EstimateGas(ctx, ethereum.CallMsg{From: c.keys[1].Address, To: &c.token, Data: data})
	if err != nil {
		return fmt.Errorf("estimate a transfer: %w", err)
	}
	fmt.Fprintf(os.Stderr, "%s: block gas limit %d; eth_estimateGas of a transfer to a fresh recipient %d; transfers sent with gas %d\n",
		c.name, head.GasLimit, est, w.gas)
	if est > w.gas {
		return fmt.Errorf("a transfer needs %d gas, more than -gas %d", est, w.gas)
	}
	if uint64(w.txs())*w.gas > head.GasLimit {
		return fmt.Errorf("%d transfers × %d gas = %d > block gas limit %d: at most %d fit",
			w.txs(), w.gas, uint64(w.txs())*w.gas, head.GasLimit, head.GasLimit/w.gas)
	}
	return nil
}

func report(results []result, w workload, conc int) {
	if len(results) == 0 {
		return
	}
	fmt.Printf("\ndebug_traceBlockByNumber(block, {tracer: callTracer}) on a block of %d ERC-20 transfers (%d senders × %d, fresh recipients)\n\n",
		w.txs(), w.senders, w.perSender)
	for _, r := range results {
		lo, hi, total := ^uint64(0), uint64(0), uint64(0)
		for _, rc := range r.block.receipts {
			lo, hi, total = min(lo, rc.GasUsed), max(hi, rc.GasUsed), total+rc.GasUsed
		}
		fmt.Printf("%s: block %d (round %d), %d txs, gas used per transfer %d–%d, block gas used %d, answer %d bytes; load average %s → %s\n",
			r.name, r.block.number, r.block.round, len(r.block.txs), lo, hi, total, len(r.first), r.loadBefore, r.loadAfter)
	}
	fmt.Println()

	var geth *result
	for i := range results {
		if results[i].name != "ember" {
			geth = &results[i]
		}
	}
	fmt.Println("| node | mode | calls | min ms | median ms | p90 ms | blocks traced/s | Ember/geth median |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|")
	for _, mode := range []string{"sequential", fmt.Sprintf("%d concurrent", conc)} {
		for _, r := range results {
			t := r.seq
			if mode != "sequential" {
				t = r.conc
			}
			ratio := ""
			if r.name == "ember" && geth != nil {
				g := geth.seq
				if mode != "sequential" {
					g = geth.conc
				}
				if g.median > 0 {
					ratio = fmt.Sprintf("%.2f", float64(t.median)/float64(g.median))
				}
			}
			fmt.Printf("| %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %s |\n", r.name, mode, t.calls, ms(t.min), ms(t.median), ms(t.p90), t.perSec, ratio)
		}
	}
	fmt.Println()

	for _, r := range results {
		if len(r.verifyErrs) == 0 {
			fmt.Printf("%s: verified %d results: no error, each a top-level CALL sender → token with gasUsed = receipt gasUsed\n", r.name, len(r.block.txs))
		} else {
			fmt.Printf("%s: VERIFY FAILED:\n  %s\n", r.name, strings.Join(r.verifyErrs, "\n  "))
		}
		for _, t := range []timing{r.seq, r.conc} {
			if t.mismatched > 0 || t.errs > 0 {
				fmt.Printf("%s: WARNING: %d answers differed from the first, %d calls failed\n", r.name, t.mismatched, t.errs)
			}
		}
	}
	if len(results) == 2 {
		same, diffs := compare(results[0], results[1])
		note := "same transaction hashes"
		if results[0].block.round != results[1].block.round {
			note = "recipients renamed: the nodes needed different rounds"
		}
		fmt.Printf("%s vs %s: %d of %d traces identical JSON (%s); whole answers byte-identical: %v\n",
			results[0].name, results[1].name, same, len(results[0].block.txs), note, bytes.Equal(results[0].first, results[1].first))
		for _, d := range diffs {
			fmt.Println(d)
		}
	}
}

func fatalf(format string, args ...any) {
	for _, n := range running {
		n.Stop()
		if log := n.Log(); log != "" {
			fmt.Fprintf(os.Stderr, "%s log (tail):\n%s\n", n.Name, tail(log, 3000))
		}
	}
	cleanup()
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
