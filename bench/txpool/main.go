// Command txpool measures the transaction pool of Ember and of geth --dev
// (v1.17.8, started from Ember's genesis) in the same run: the admission
// rate of eth_sendRawTransaction for 10,000 transactions from 1,000 senders
// (10 each, consecutive nonces, pre-signed), and the latency of
// txpool_content once the pool holds them all.
//
// Neither node makes a block while it is measured, so nothing drains the
// pool: Ember runs `emberd start` on a home whose CometBFT timeout_commit is
// 24 h (the first block after the start is a day away), geth runs with
// --dev.period 86400. Two modes: "pending" sends nonces 0–9
// of each sender (all executable: Ember's CheckTx admits them into
// CometBFT's mempool, geth into its pending pool); "queued" sends nonces
// 1–10 (all behind the missing nonce 0: Ember's app-side queue, geth's
// queue). Each mode starts fresh nodes. geth's pool limits are raised to
// hold the workload (--txpool.globalslots/globalqueue 20000); Ember's are
// set as a dev home's (global-slots 50,000, global-queue 16,384).
//
//	go run ./bench/txpool -emberd build/emberd [-geth PATH] [-senders 1000] [-per-sender 10] [-clients 16] [-content-runs 10] [-modes pending,queued] [-nodes ember,geth] [-gzip=false]
package main

import (
	"context"
	"flag"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/peer"
)

// defaultGeth is where the repository's pinned geth is built.
const defaultGeth = "build/geth-v1.17.8/geth"

// devChainID is `emberd dev`'s EIP-155 chain id.
var devChainID = big.NewInt(31337)

// noBlocks is how long neither node makes a block.
const noBlocks = 24 * time.Hour

type result struct {
	node, mode string
	adm        admission
	pool       poolStatus
	content    contentTiming
}

var running *peer.Node // killed by fatalf

func main() {
	var (
		emberd      = flag.String("emberd", "build/emberd", "emberd binary")
		geth        = flag.String("geth", "", "geth binary (default: $EMBER_GETH, "+defaultGeth+", then $GOBIN, ~/go/bin, PATH)")
		nodes       = flag.String("nodes", "ember,geth", "nodes to measure")
		modes       = flag.String("modes", "pending,queued", "pending (nonces from 0) and/or queued (nonces from 1)")
		senders     = flag.Int("senders", 1000, "senders (prefunded dev accounts)")
		perSender   = flag.Int("per-sender", 10, "transactions per sender")
		clients     = flag.Int("clients", 16, "concurrent JSON-RPC connections sending")
		contentRuns = flag.Int("content-runs", 10, "timed txpool_content calls after a warm-up")
	)
	flag.BoolVar(&gzip, "gzip", true, "accept gzip-compressed answers (Go's HTTP client default; geth compresses, Ember does not)")
	flag.Parse()
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, *senders)
	if err != nil {
		fatalf("keys: %v", err)
	}
	var results []result
	var genesis *core.Genesis
	for _, mode := range strings.Split(*modes, ",") {
		w, err := sign(keys, *perSender, mode, devChainID)
		if err != nil {
			fatalf("sign: %v", err)
		}
		for _, name := range strings.Split(*nodes, ",") {
			n, err := start(name, *emberd, gethPath(*geth), keys, w.total, &genesis)
			if err != nil {
				fatalf("%s: %v", name, err)
			}
			running = n
			results = append(results, measure(n, w, *clients, *contentRuns))
			n.Stop()
			running = nil
		}
	}
	report(os.Stdout, results)
}

// start launches a fresh node that makes no block. Ember goes first: geth
// starts from its genesis.
func start(name, emberd, geth string, keys []*accounts.Key, total int, genesis **core.Genesis) (*peer.Node, error) {
	switch name {
	case "ember":
		home, err := emberHome(emberd, keys)
		if err != nil {
			return nil, err
		}
		if *genesis, err = peer.GethGenesis(home); err != nil {
			return nil, err
		}
		return peer.EmberStart("ember", emberd, home)
	case "geth":
		if *genesis == nil {
			return nil, fmt.Errorf("geth needs Ember's genesis: put ember first in -nodes")
		}
		if geth == "" {
			return nil, fmt.Errorf("no geth binary (GOBIN=$PWD/build/geth-v1.17.8 go install github.com/ethereum/go-ethereum/cmd/geth@v1.17.8)")
		}
		limit := strconv.Itoa(2 * total)
		return peer.GethFrom(geth, *genesis, "--dev.period", strconv.Itoa(int(noBlocks.Seconds())),
			"--http.api", "eth,net,web3,txpool", "--txpool.globalslots", limit, "--txpool.globalqueue", limit)
	}
	return nil, fmt.Errorf("unknown node %q (ember, geth)", name)
}

func gethPath(flagPath string) string {
	if flagPath != "" {
		return flagPath
	}
	if p := os.Getenv("EMBER_GETH"); p != "" {
		return p
	}
	if _, err := os.Stat(defaultGeth); err == nil {
		return defaultGeth
	}
	return peer.FindGeth("")
}

// measure sends the workload, waits for the pool to settle (geth promotes
// asynchronously) and times txpool_content.
func measure(n *peer.Node, w *workload, clients, runs int) result {
	adm, err := send(n.URL, w, clients)
	if err != nil {
		fatalf("%s: send: %v", n.Name, err)
	}
	c, err := dial(n.URL)
	if err != nil {
		fatalf("%s: %v", n.Name, err)
	}
	defer c.Close()
	pool := settle(c, n.Name, w.total-adm.refused)
	content, err := timeContent(context.Background(), c, runs)
	if err != nil {
		fatalf("%s: %v", n.Name, err)
	}
	return result{node: n.Name, mode: w.mode, adm: adm, pool: pool, content: content}
}

// settle polls txpool_status until the pool holds want transactions (at
// most 10 s).
func settle(c *rpc.Client, name string, want int) poolStatus {
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := status(c)
		if err != nil {
			fatalf("%s: txpool_status: %v", name, err)
		}
		if int(s.Pending+s.Queued) == want || time.Now().After(deadline) {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func fatalf(format string, args ...any) {
	if running != nil {
		running.Stop()
	}
	fmt.Fprintf(os.Stderr, "bench/txpool: "+format+"\n", args...)
	os.Exit(1)
}
