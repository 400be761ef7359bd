// Command devchain measures the test-chain methods dapp test suites lean
// on, on Ember (`emberd dev`, explorer on as it runs by default, and off)
// and on anvil 1.7.1, in one run: anvil_mine of 1,000 blocks, then, on
// that chain of 1,000 blocks, the evm_snapshot + evm_revert round trip a
// Hardhat fixture pays (loadFixture reverts to its snapshot and takes a
// new one), after one mined block each time. It prints a table of the
// time of the mine and the p50 / p90 / max of the round trips.
//
//	go run ./bench/devchain -emberd build/emberd [-anvil PATH] [-blocks 1000] [-rounds 50] [-nodes ember,ember-noexplorer,anvil]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/bench/internal/peer"
)

type result struct {
	node   string
	mine   time.Duration
	rounds []time.Duration // sorted
}

func main() {
	var (
		emberd = flag.String("emberd", "build/emberd", "emberd binary")
		anvil  = flag.String("anvil", "", "anvil binary (default: npm's under bench/node_modules, then PATH)")
		blocks = flag.Uint64("blocks", 1000, "blocks anvil_mine makes")
		rounds = flag.Int("rounds", 50, "timed evm_revert + evm_snapshot round trips")
		nodes  = flag.String("nodes", "ember,ember-noexplorer,anvil", "nodes to measure")
	)
	flag.Parse()
	var results []result
	for _, name := range strings.Split(*nodes, ",") {
		n, err := start(name, *emberd, peer.FindAnvil(*anvil))
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		r, err := measure(n.URL, *blocks, *rounds)
		n.Stop()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		r.node = name
		results = append(results, r)
	}
	fmt.Printf("\n| node | anvil_mine %d blocks | evm_revert + evm_snapshot p50 | p90 | max (%d rounds, chain of %d blocks) |\n|---|---|---|---|---|\n", *blocks, *rounds, *blocks)
	for _, r := range results {
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.node, ms(r.mine), ms(pct(r.rounds, 50)), ms(pct(r.rounds, 90)), ms(r.rounds[len(r.rounds)-1]))
	}
}

func start(name, emberd, anvil string) (*peer.Node, error) {
	switch name {
	case "ember":
		return peer.EmberDev(emberd, 10, true, false, nil)
	case "ember-noexplorer":
		return peer.EmberDev(emberd, 10, false, false, nil)
	case "anvil":
		return peer.Anvil(anvil, 10, "")
	}
	return nil, fmt.Errorf("unknown node %q (ember, ember-noexplorer, anvil)", name)
}

// measure mines the chain, then times the fixture round trips.
func measure(url string, blocks uint64, rounds int) (result, error) {
	c, err := rpc.Dial(url)
	if err != nil {
		return result{}, err
	}
	defer c.Close()
	var null any
	start := time.Now()
	if err := c.Call(&null, "anvil_mine", hexutil.Uint64(blocks)); err != nil {
		return result{}, fmt.Errorf("anvil_mine: %w", err)
	}
	r := result{mine: time.Since(start)}
	var id string
	if err := c.Call(&id, "evm_snapshot"); err != nil {
		return result{}, err
	}
	for range rounds {
		if err := c.Call(&null, "evm_mine"); err != nil {
			return result{}, fmt.Errorf("evm_mine: %w", err)
		}
		var ok bool
		t := time.Now()
		if err := c.Call(&ok, "evm_revert", id); err != nil || !ok {
			return result{}, fmt.Errorf("evm_revert %s: %v %v", id, ok, err)
		}
		if err := c.Call(&id, "evm_snapshot"); err != nil {
			return result{}, err
		}
		r.rounds = append(r.rounds, time.Since(t))
	}
	slices.Sort(r.rounds)
	return r, nil
}

func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)-1)*p/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
