// Command compare runs Ember with the explorer on (`emberd dev` defaults)
// and off (--explorer.enable=false), geth --dev (1.17.8, from Ember's
// genesis) and anvil (1.7.1, npm's platform binary) in one run and prints
// issue 17's two tables with ratios within the run:
//
//   - writes: ETH and ERC-20 transfers committed/s (a burst of -txs signed
//     transfers from -senders senders, each sender in nonce order, one send
//     in flight per sender; -rounds rounds, node order rotating, a fresh
//     node each time; anvil gets -anvil-txs, it stalls on bigger bursts),
//     and send → receipt p50/p99 one transaction at a time (receipt polled
//     every 5 ms);
//   - reads: req/s of five reads under wrk (1 thread, -conns keep-alive
//     connections, -duration per method per node after a 1 s warm-up,
//     split into -read-slices slices, the nodes taking turns, each node's
//     median slice shown), each node alone on the machine while measured.
//
// Every figure comes with the CPU share of the node and of the load
// generator (this process for writes, wrk for reads), and the load average
// is printed at the start and the end: the machine may be shared.
//
//	go run ./bench/compare -emberd build/emberd [-geth PATH] [-anvil PATH] [-parts writes,latency,reads]
//	    [-nodes ember,ember-noexplorer,geth,anvil[,geth-genesis]] [-rounds 3] [-txs 5000] [-anvil-txs 1000] [-senders 50]
//	    [-latency-txs 200] [-duration 9s] [-read-slices 3] [-conns 32]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/core"

	"github.com/emberchain/ember/bench/internal/peer"
	"github.com/emberchain/ember/bench/internal/writes"
)

// nodeKind is one of the compared nodes.
type nodeKind struct {
	key   string // -nodes name
	label string // column title
	start func(accounts int) (*peer.Node, error)
}

var running []*peer.Node // stopped on every exit

func stopAll() {
	for _, n := range running {
		n.Stop()
	}
	running = nil
}

func track(n *peer.Node) *peer.Node {
	running = append(running, n)
	return n
}

func stop(n *peer.Node) {
	n.Stop()
	running = slices.DeleteFunc(running, func(x *peer.Node) bool { return x == n })
}

func main() {
	var (
		emberd     = flag.String("emberd", "build/emberd", "emberd binary")
		gethFlag   = flag.String("geth", "", "geth 1.17.8 binary (default: $EMBER_GETH, build/geth-v1.17.8/geth, $GOBIN, ~/go/bin, PATH)")
		anvilFlag  = flag.String("anvil", "", "anvil binary (default: bench/node_modules' platform binary, then PATH)")
		parts      = flag.String("parts", "writes,latency,reads", "parts to run: writes, latency, reads")
		nodesFlag  = flag.String("nodes", "ember,ember-noexplorer,geth,anvil", "nodes to run (also: geth-genesis, geth --dev on a datadir with Ember's genesis)")
		rounds     = flag.Int("rounds", 3, "write rounds (fresh nodes each, node order rotating)")
		txs        = flag.Int("txs", 5000, "transfers per burst")
		anvilTxs   = flag.Int("anvil-txs", 1000, "transfers per burst for anvil (its automine stalls on bigger bursts)")
		senders    = flag.Int("senders", 50, "senders per burst (one send in flight each)")
		latencyTxs = flag.Int("latency-txs", 200, "transactions sent one at a time for send → receipt latency")
		duration   = flag.Duration("duration", 9*time.Second, "wrk time per read method per node, split into -read-slices")
		readSlices = flag.Int("read-slices", 3, "slices of -duration per read method per node, the nodes taking turns; the table shows each node's median slice")
		conns      = flag.Int("conns", 32, "wrk keep-alive connections (1 thread)")
		pinned     = flag.Bool("pinned", runtime.NumCPU() >= 2, "reads: also run Ember and anvil each on one core (CPU 1, from its start) with wrk on another (CPU 0)")
		wrkBin     = flag.String("wrk", "wrk", "wrk binary (Debian's wrk)")
		profile    = flag.String("profile", "", "write a CPU profile of each Ember write burst into this directory (go tool pprof DIR/FILE)")
		profileFor = flag.Duration("profile-seconds", 10*time.Second, "length of each burst's CPU profile (raise -txs so the burst lasts as long)")
		traceFlag  = flag.Bool("trace", false, "with -profile: take a Go execution trace instead of a CPU profile (go tool trace -pprof=sync|sched DIR/FILE)")
	)
	flag.Parse()
	go func() { // the nodes run in process groups of their own: stop them on ^C
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		fatalf("interrupted")
	}()
	want := func(list, name string) bool { return slices.Contains(strings.Split(list, ","), name) }
	accounts := *senders + 1

	kinds := []nodeKind{
		{"ember", "emberd dev (explorer on)", func(n int) (*peer.Node, error) { return peer.EmberDev(*emberd, n, true, *profile != "", nil) }},
		{"ember-noexplorer", "emberd dev --explorer.enable=false", func(n int) (*peer.Node, error) { return peer.EmberDev(*emberd, n, false, *profile != "", nil) }},
	}
	if want(*nodesFlag, "geth") || want(*nodesFlag, "geth-genesis") {
		path := gethPath(*gethFlag)
		if path == "" {
			fatalf("geth not found: make bench-peers (or -geth PATH, -nodes without geth)")
		}
		if want(*nodesFlag, "geth") {
			// geth --dev as it runs by default: in memory, its own genesis
			// and newest rules (a token transfer to a new holder costs
			// ~148,000 gas there, ~52,000 under Ember's); the senders are
			// funded from its dev account.
			kinds = append(kinds, nodeKind{"geth", "geth --dev", func(n int) (*peer.Node, error) { return peer.GethDev(path, n) }})
		}
		if want(*nodesFlag, "geth-genesis") {
			// geth --dev on a datadir initialized with Ember's genesis: the
			// same rules, alloc and 30M gas limit, writing to disk as Ember
			// does (bench/traces and bench/txpool run it so).
			genesis, err := gethGenesis(*emberd, accounts)
			if err != nil {
				fatalf("genesis for geth: %v", err)
			}
			kinds = append(kinds, nodeKind{"geth-genesis", "geth --dev --datadir (Ember's genesis)", func(int) (*peer.Node, error) {
				return peer.GethFrom(path, genesis, "--miner.gaslimit", strconv.FormatUint(genesis.GasLimit, 10), "--http.api", "eth,net,web3")
			}})
		}
	}
	if want(*nodesFlag, "anvil") {
		path := peer.FindAnvil(*anvilFlag)
		if path == "" {
			fatalf("anvil not found: make bench-peers (or -anvil PATH, -nodes without anvil)")
		}
		kinds = append(kinds, nodeKind{"anvil", "anvil", func(n int) (*peer.Node, error) { return peer.Anvil(path, n, "") }})
	}
	kinds = slices.DeleteFunc(kinds, func(k nodeKind) bool { return !want(*nodesFlag, k.key) })
	if len(kinds) == 0 {
		fatalf("no node to run")
	}

	rep := &report{kinds: kinds, started: time.Now(), loadStart: loadAvg(), rounds: *rounds, txs: *txs, anvilTxs: *anvilTxs,
		senders: *senders, latencyTxs: *latencyTxs, duration: *duration, readSlices: *readSlices, conns: *conns}
	fmt.Fprintf(os.Stderr, "load average at start: %s\n", rep.loadStart)
	if want(*parts, "writes") {
		rep.writes = runWrites(kinds, *rounds, *txs, *anvilTxs, *senders, profiler{dir: *profile, length: *profileFor, trace: *traceFlag})
	}
	if want(*parts, "latency") {
		rep.latency = runLatency(kinds, *latencyTxs, accounts)
	}
	if want(*parts, "reads") {
		readKinds := slices.DeleteFunc(slices.Clone(kinds), func(k nodeKind) bool { return k.key == "ember-noexplorer" })
		rep.reads = append(rep.reads, readRun{kinds: readKinds, results: runReads(readKinds, *wrkBin, *conns, *duration, *readSlices, nil)})
		if *pinned {
			// geth is slower than both at every read: one core each is
			// about Ember against anvil
			oneCore := slices.DeleteFunc(slices.Clone(readKinds), func(k nodeKind) bool { return k.key == "geth" })
			rep.reads = append(rep.reads, readRun{kinds: oneCore, cpus: pinnedReads,
				results: runReads(oneCore, *wrkBin, *conns, *duration, *readSlices, pinnedReads)})
		}
	}
	rep.loadEnd = loadAvg()
	stopAll()
	rep.print(os.Stdout)
}

// runWrites measures ETH then ERC-20 bursts, rounds times each, a fresh
// node for every burst, the node order rotating between rounds.
func runWrites(kinds []nodeKind, rounds, txs, anvilTxs, senders int, prof profiler) map[writes.Kind][][]*writes.Result {
	out := make(map[writes.Kind][][]*writes.Result)
	for _, kind := range []writes.Kind{writes.ETH, writes.ERC20} {
		res := make([][]*writes.Result, rounds)
		for r := range rounds {
			res[r] = make([]*writes.Result, len(kinds))
			for k := range kinds {
				i := (k + r) % len(kinds)
				b := writes.Burst{Kind: kind, Txs: txs, Senders: senders}
				if kinds[i].key == "anvil" {
					b.Txs = anvilTxs
				}
				res[r][i] = measureBurst(kinds[i], b, r, prof)
			}
		}
		out[kind] = res
	}
	return out
}

// measureBurst runs one burst on a fresh node of kind, again (a fresh node
// again) while the hypervisor took more than maxStealShare of the cores,
// at most maxReruns times, as a read slice. nil: the node failed (counted
// as a failed round; the others go on).
func measureBurst(kind nodeKind, b writes.Burst, round int, prof profiler) *writes.Result {
	for try := 0; ; try++ {
		n, err := kind.start(b.Accounts())
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s round %d: start %s: %v\n", b.Kind, round+1, kind.key, err)
			return nil
		}
		track(n)
		done := prof.start(n, fmt.Sprintf("%s-%s-round%d", kind.key, b.Kind, round+1))
		result, err := writes.Run(context.Background(), n.URL, n, b)
		done()
		stop(n)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s round %d %s: %v\n", b.Kind, round+1, kind.key, err)
			return nil
		}
		again := remeasure(result.Steal, try)
		note := ""
		if again {
			note = "  (steal: measured again)"
		}
		fmt.Fprintf(os.Stderr, "%-5s round %d  %-18s %6.0f tx/s  committed %d/%d in %d blocks, drain %3.0f ms  node CPU %3.0f%%  bench CPU %3.0f%%  steal %3.0f%%  explorer +%.2f s  load %s%s\n",
			b.Kind, round+1, kind.key, result.TPS, result.Committed, b.Txs, result.Blocks, ms(result.Drain), 100*result.NodeCPU, 100*result.BenchCPU,
			100*result.Steal, result.CatchUp.Seconds(), loadAvg(), note)
		if !again {
			result.Reruns = try
			return &result
		}
	}
}

// runLatency sends transactions one at a time to a fresh node of each kind:
// first with the receipt polled every 5 ms, then woken by newHeads.
func runLatency(kinds []nodeKind, n, accounts int) []*latency {
	out := make([]*latency, len(kinds))
	for i, k := range kinds {
		node, err := k.start(accounts)
		if err != nil {
			fmt.Fprintf(os.Stderr, "latency: start %s: %v\n", k.key, err)
			continue
		}
		track(node)
		out[i], err = measureLatency(node, n)
		stop(node)
		if err != nil {
			fmt.Fprintf(os.Stderr, "latency %s: %v\n", k.key, err)
			continue
		}
		l := out[i]
		fmt.Fprintf(os.Stderr, "latency %-18s polled p50 %.1f ms  p99 %.1f ms; newHeads p50 %.1f ms  p99 %.1f ms\n",
			k.key, ms(l.polled.p50), ms(l.polled.p99), ms(l.heads.p50), ms(l.heads.p99))
	}
	return out
}

func measureLatency(node *peer.Node, n int) (*latency, error) {
	ctx := context.Background()
	polled, err := writes.Latency(ctx, node.URL, "", n)
	if err != nil {
		return nil, err
	}
	heads, err := writes.Latency(ctx, node.URL, node.WS, n)
	if err != nil {
		return nil, err
	}
	return &latency{polled: percentiles(polled), heads: percentiles(heads)}, nil
}

// latency is one node's send → receipt times, the receipt polled every
// 5 ms and woken by newHeads.
type latency struct{ polled, heads pcts }

type pcts struct{ p50, p99 time.Duration }

func percentiles(sorted []time.Duration) pcts {
	return pcts{p50: writes.Pct(sorted, 50), p99: writes.Pct(sorted, 99)}
}

// gethGenesis is the genesis of an Ember dev home with the given number of
// prefunded accounts, as geth --dev needs it (bench/internal/peer).
func gethGenesis(emberd string, accounts int) (*core.Genesis, error) {
	n, err := peer.EmberDev(emberd, accounts, false, false, nil)
	if err != nil {
		return nil, err
	}
	defer n.Stop()
	return peer.GethGenesis(n.Home())
}

func gethPath(flagPath string) string {
	if flagPath != "" {
		return flagPath
	}
	if p := os.Getenv("EMBER_GETH"); p != "" {
		return p
	}
	if p := "build/geth-v1.17.8/geth"; fileExists(p) {
		return p
	}
	return peer.FindGeth("")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// loadAvg is the 1, 5 and 15 minute load averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	stopAll()
	os.Exit(1)
}
