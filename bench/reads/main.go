// Command reads measures JSON-RPC read throughput: C concurrent clients,
// each on its own keep-alive connection, call one method for a fixed time,
// and it reports requests per second and latency percentiles per method, for
// Ember (emberd dev) and anvil in the same run.
//
// Both nodes receive the same pre-signed setup (an OpenZeppelin ERC-20 and a
// few hundred ETH and token transfers; anvil's blocks are mined to hold the
// same transactions as Ember's), then each method is measured on one node at
// a time, alternating nodes, so they never compete for the cores.
//
//	go run ./bench/reads -emberd build/emberd [-c 64] [-duration 5s] [-warmup 1s] [-rounds 1] [-nodes ember,anvil]
//	    [-baseline other/emberd] [-methods eth_call,...] [-dump DIR]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/bench/internal/peer"
)

type node struct {
	*peer.Node
	chain   *chain
	methods []method
	stats   []*stats
}

func main() {
	var (
		emberd   = flag.String("emberd", "build/emberd", "emberd binary")
		anvil    = flag.String("anvil", "", "anvil binary (default: bench/node_modules, then PATH)")
		nodes    = flag.String("nodes", "ember,anvil", "nodes to run")
		conc     = flag.Int("c", 64, "concurrent clients (one keep-alive connection each)")
		duration = flag.Duration("duration", 5*time.Second, "measured time per method per node")
		warmup   = flag.Duration("warmup", time.Second, "unmeasured load before each measurement")
		rounds   = flag.Int("rounds", 1, "times each method is measured on each node (the figures pool all rounds)")
		tokenTxs = flag.Int("token-txs", 100, "ERC-20 transfers in the setup")
		ethTxs   = flag.Int("eth-txs", 200, "ETH transfers in the setup")
		only     = flag.String("methods", "", "comma-separated method labels to run (default: all)")
		dump     = flag.String("dump", "", "write each node's first answer to each method into this directory")
		baseline = flag.String("baseline", "", "another emberd binary to measure too (as ember-base), serving a copy of Ember's chain")
		attach   = flag.String("url", "", "only measure eth_blockNumber on this already running endpoint (calibrates the machine's HTTP ceiling)")
	)
	flag.Parse()
	if *attach != "" {
		s, err := run(*attach, 0, method{name: "eth_blockNumber", body: request("eth_blockNumber")}, *conc, *warmup, *duration)
		if err != nil {
			fatalf("%v", err)
		}
		fmt.Printf("%s eth_blockNumber: %.0f req/s, p50 %.2f ms, p99 %.2f ms, errors %d %s, bench CPU %.0f%%\n", *attach, s.rps(),
			ms(s.pct(0.5)), ms(s.pct(0.99)), s.errors, s.firstErr, 100*s.cpuBench.Seconds()/s.elapsed.Seconds())
		return
	}
	ctx := context.Background()
	go func() { // the nodes run in process groups of their own: stop them on ^C
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		fatalf("interrupted")
	}()
	w, err := newWorkload(*tokenTxs, *ethTxs)
	if err != nil {
		fatalf("%v", err)
	}

	var groups [][]common.Hash // how Ember grouped the setup into blocks
	add := func(p *peer.Node, ch *chain) {
		n := &node{Node: p, chain: ch, methods: methods(w, ch, *only)}
		n.stats = make([]*stats, len(n.methods))
		ns = append(ns, n)
		fmt.Fprintf(os.Stderr, "%s: %d setup txs in %d blocks (largest: #%d with %d txs), head %d\n",
			n.Name, len(w.all), len(ch.blocks), ch.block, len(ch.blockTx), ch.head)
	}
	for _, name := range strings.Split(*nodes, ",") {
		switch name {
		case "ember":
			p, err := peer.Ember(*emberd, senders, nil)
			if err != nil {
				fatalf("start ember: %v", err)
			}
			ch, err := fillBurst(ctx, p.URL, w)
			if err != nil {
				p.Stop()
				fatalf("ember: %v", err)
			}
			groups = ch.groups
			if *baseline == "" {
				add(p, ch)
				continue
			}
			// The baseline binary serves a copy of the same chain.
			cur, base, err := cloneEmber(p, *emberd, *baseline)
			if err != nil {
				fatalf("baseline: %v", err)
			}
			add(cur, ch)
			add(base, ch)
		case "anvil":
			path := peer.FindAnvil(*anvil)
			if path == "" {
				fmt.Fprintln(os.Stderr, "anvil not found (npm install in bench/): skipped")
				continue
			}
			p, err := peer.Anvil(path, senders, "")
			if err != nil {
				fatalf("start anvil: %v", err)
			}
			ch, err := fillGroups(ctx, p.URL, w, groups)
			if err != nil {
				p.Stop()
				fatalf("anvil: %v", err)
			}
			add(p, ch)
		default:
			fatalf("unknown node %q", name)
		}
	}
	if len(ns) == 0 {
		fatalf("no node to measure")
	}

	// One method at a time on one node at a time; the node going first
	// alternates, so slow drift on a shared machine favours neither.
	failed := false
	for r := 0; r < *rounds; r++ {
		for i := range ns[0].methods {
			for k := range ns {
				n := ns[(k+i+r)%len(ns)]
				s, err := run(n.URL, n.Pid(), n.methods[i], *conc, *warmup, *duration)
				if err != nil {
					fatalf("%s %s: %v", n.Name, n.methods[i].name, err)
				}
				fmt.Fprintf(os.Stderr, "%-6s %-34s %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  errors %d\n",
					n.Name, n.methods[i].name, s.rps(), ms(s.pct(0.50)), ms(s.pct(0.99)), s.errors)
				if s.errors > 0 {
					failed = true
					fmt.Fprintf(os.Stderr, "  first error: %s\n", s.firstErr)
				}
				if n.stats[i] == nil {
					n.stats[i] = s
				} else {
					n.stats[i].merge(s)
				}
			}
		}
	}
	if *dump != "" {
		if err := dumpAnswers(*dump, ns); err != nil {
			fatalf("dump: %v", err)
		}
	}
	printTable(ns, *conc, *duration, *rounds)
	if failed {
		fatalf("FAILED: some requests had errors")
	}
	stopAll()
}

// ns are the running nodes, stopped on every exit.
var ns []*node

func stopAll() {
	for _, n := range ns {
		n.Stop()
	}
	ns = nil
}

// cloneEmber stops p gracefully, copies its home, and serves the chain again
// from bin on the original and from baseline on the copy.
func cloneEmber(p *peer.Node, bin, baseline string) (cur, base *peer.Node, err error) {
	home := p.Home()
	p.Terminate()
	copyHome := home + "-base"
	if out, err := exec.Command("cp", "-a", home, copyHome).CombinedOutput(); err != nil {
		os.RemoveAll(home)
		return nil, nil, fmt.Errorf("copy %s: %v: %s", home, err, out)
	}
	if cur, err = peer.EmberStart("ember", bin, home); err != nil {
		os.RemoveAll(copyHome)
		return nil, nil, err
	}
	if base, err = peer.EmberStart("ember-base", baseline, copyHome); err != nil {
		cur.Stop()
		return nil, nil, err
	}
	return cur, base, nil
}

// methods are the reads measured on one node, with their expected answers.
func methods(w *workload, ch *chain, only string) []method {
	balanceOf, err := tokenC.ABI.Pack("balanceOf", w.holder)
	if err != nil {
		panic(err)
	}
	block := hexutil.EncodeUint64(ch.block)
	all := []method{
		{name: "eth_blockNumber", body: request("eth_blockNumber"), check: func(r json.RawMessage) error {
			var n hexutil.Uint64
			if err := json.Unmarshal(r, &n); err != nil {
				return err
			}
			if uint64(n) < ch.head {
				return fmt.Errorf("block number %d below the setup's head %d", n, ch.head)
			}
			return nil
		}},
		{name: "eth_getBalance", fixed: true, body: request("eth_getBalance", w.recipient, "latest"), check: func(r json.RawMessage) error {
			return wantBig(r, w.recipientBalance)
		}},
		{name: "eth_call balanceOf", fixed: true, body: request("eth_call",
			map[string]any{"to": w.token, "data": hexutil.Bytes(balanceOf)}, "latest"), check: func(r json.RawMessage) error {
			var out hexutil.Bytes
			if err := json.Unmarshal(r, &out); err != nil {
				return err
			}
			if len(out) != 32 {
				return fmt.Errorf("%d bytes returned", len(out))
			}
			return wantBig(json.RawMessage(fmt.Sprintf(`"%s"`, hexutil.EncodeBig(new(big.Int).SetBytes(out)))), w.holderTokens)
		}},
		{name: "eth_getBlockByNumber " + "(hashes)", fixed: true, body: request("eth_getBlockByNumber", block, false), check: func(r json.RawMessage) error {
			var b struct {
				Number       hexutil.Uint64
				Transactions []common.Hash
			}
			if err := json.Unmarshal(r, &b); err != nil {
				return err
			}
			return wantBlock(uint64(b.Number), b.Transactions, ch)
		}},
		{name: "eth_getBlockByNumber " + "(full txs)", fixed: true, body: request("eth_getBlockByNumber", block, true), check: func(r json.RawMessage) error {
			var b struct {
				Number       hexutil.Uint64
				Transactions []struct {
					Hash common.Hash
					From common.Address
				}
			}
			if err := json.Unmarshal(r, &b); err != nil {
				return err
			}
			hashes := make([]common.Hash, len(b.Transactions))
			for i, tx := range b.Transactions {
				if tx.From == (common.Address{}) {
					return fmt.Errorf("tx %s without sender", tx.Hash)
				}
				hashes[i] = tx.Hash
			}
			return wantBlock(uint64(b.Number), hashes, ch)
		}},
	}
	if only == "" {
		return all
	}
	var out []method
	for _, m := range all {
		for _, o := range strings.Split(only, ",") {
			if strings.Contains(m.name, o) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

func request(method string, params ...any) []byte {
	if params == nil {
		params = []any{}
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	return b
}

func wantBig(r json.RawMessage, want *big.Int) error {
	var got hexutil.Big
	if err := json.Unmarshal(r, &got); err != nil {
		return err
	}
	if got.ToInt().Cmp(want) != 0 {
		return fmt.Errorf("got %s, want %s", got.ToInt(), want)
	}
	return nil
}

func wantBlock(number uint64, txs []common.Hash, ch *chain) error {
	if number != ch.block {
		return fmt.Errorf("block %d, want %d", number, ch.block)
	}
	if len(txs) != len(ch.blockTx) {
		return fmt.Errorf("%d transactions, want %d", len(txs), len(ch.blockTx))
	}
	for i := range txs {
		if txs[i] != ch.blockTx[i] {
			return fmt.Errorf("transaction %d is %s, want %s", i, txs[i], ch.blockTx[i])
		}
	}
	return nil
}

func printTable(ns []*node, conc int, dur time.Duration, rounds int) {
	fmt.Printf("\n%d concurrent keep-alive clients, %v per method per node (×%d rounds); block methods read a block of %d txs\n\n",
		conc, dur, rounds, len(ns[0].chain.blockTx))
	fmt.Print("| method |")
	for _, n := range ns {
		fmt.Printf(" %s req/s | %s p50 ms | %s p99 ms |", n.Name, n.Name, n.Name)
	}
	for _, o := range ns[1:] {
		fmt.Printf(" %s/%s req/s |", ns[0].Name, o.Name)
	}
	fmt.Print("\n|---|")
	for range ns {
		fmt.Print("---:|---:|---:|")
	}
	for range ns[1:] {
		fmt.Print("---:|")
	}
	fmt.Println()
	for i, m := range ns[0].methods {
		fmt.Printf("| %s |", m.name)
		for _, n := range ns {
			s := n.stats[i]
			fmt.Printf(" %.0f | %.2f | %.2f |", s.rps(), ms(s.pct(0.50)), ms(s.pct(0.99)))
		}
		for _, o := range ns[1:] {
			fmt.Printf(" %.2f |", ns[0].stats[i].rps()/o.stats[i].rps())
		}
		fmt.Println()
	}

	// Where the CPU went: the node's CPU time per request, and the share of
	// the two cores the node and the load generator used.
	fmt.Print("\n| method |")
	for _, n := range ns {
		fmt.Printf(" %s resp bytes | %s CPU µs/req | %s CPU %% | bench CPU %% |", n.Name, n.Name, n.Name)
	}
	fmt.Print("\n|---|")
	for range ns {
		fmt.Print("---:|---:|---:|---:|")
	}
	fmt.Println()
	for i, m := range ns[0].methods {
		fmt.Printf("| %s |", m.name)
		for _, n := range ns {
			s := n.stats[i]
			per := 0.0
			if s.requests > 0 {
				per = float64(s.cpuNode.Microseconds()) / float64(s.requests)
			}
			fmt.Printf(" %d | %.1f | %.0f | %.0f |", s.respBytes, per,
				100*s.cpuNode.Seconds()/s.elapsed.Seconds(), 100*s.cpuBench.Seconds()/s.elapsed.Seconds())
		}
		fmt.Println()
	}
}

// dumpAnswers writes <dir>/<node>-<method>.json, to compare the nodes'
// answers (e.g. with jq).
func dumpAnswers(dir string, ns []*node) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, n := range ns {
		for i, m := range n.methods {
			name := strings.NewReplacer(" ", "_", "(", "", ")", "").Replace(n.Name + "-" + m.name)
			if err := os.WriteFile(filepath.Join(dir, name+".json"), n.stats[i].first, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	stopAll()
	os.Exit(1)
}
