package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/bench/internal/peer"
)

// node is a running node under test, in its own process group. bench/traces
// launches its nodes itself: it needs the debug namespace, geth started from
// Ember's genesis, and Ember restarted with slow blocks, none of which
// bench/internal/peer offers.
type node struct {
	name string
	url  string
	cmd  *exec.Cmd
	log  *bytes.Buffer
}

// stop sends sig to the node's process group and waits for it to exit
// (SIGKILL after 30 s).
func (n *node) stop(sig syscall.Signal) {
	_ = syscall.Kill(-n.cmd.Process.Pid, sig)
	done := make(chan struct{})
	go func() { _ = n.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

func launch(name string, cmd *exec.Cmd, url string) (*node, error) {
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	n := &node{name: name, url: url, cmd: cmd, log: &log}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := rpc.Dial(url); err == nil {
			var s string
			err = c.Call(&s, "eth_blockNumber")
			c.Close()
			if err == nil {
				return n, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	n.stop(syscall.SIGKILL)
	return nil, fmt.Errorf("%s did not answer within 60s:\n%s", cmd.Path, log.String())
}

// emberArgs are the listen flags of `emberd dev` / `emberd start` on free
// loopback ports, with every namespace the benchmark uses.
func emberArgs(cmd, home, port string) []string {
	return []string{cmd, "--home", home,
		"--json-rpc.address", "127.0.0.1:" + port, "--json-rpc.ws-address", "127.0.0.1:" + peer.FreePort(),
		"--rest.address", "127.0.0.1:" + peer.FreePort(),
		// Dev homes run the explorer; the comparison with anvil/geth is of
		// the node alone, so it is off here.
		"--explorer.enable=false", "--grpc.enable=false", "--explorer.address", "127.0.0.1:" + peer.FreePort(),
		"--json-rpc.api", "eth,net,web3,debug",
		"--rpc.laddr", "tcp://127.0.0.1:" + peer.FreePort(), "--p2p.laddr", "tcp://127.0.0.1:" + peer.FreePort(),
		"--metrics.address", "127.0.0.1:" + peer.FreePort(), "--log-level", "warn"}
}

// emberDev creates a dev home with n prefunded accounts and runs it
// (a block as soon as transactions arrive).
func emberDev(bin, home string, accounts int) (*node, error) {
	port := peer.FreePort()
	args := append(emberArgs("dev", home, port), "--accounts", strconv.Itoa(accounts))
	return launch("ember", exec.Command(bin, args...), "http://127.0.0.1:"+port)
}

// emberStart runs `emberd start` on an existing home.
func emberStart(bin, home string) (*node, error) {
	port := peer.FreePort()
	return launch("ember", exec.Command(bin, emberArgs("start", home, port)...), "http://127.0.0.1:"+port)
}

// startGeth initializes datadir with genesis and runs geth --dev on it,
// sealing a block every period with whatever its pool holds, at a fixed
// gas limit (Ember's, so both chains pack blocks alike).
func startGeth(bin, datadir string, genesis *core.Genesis, period time.Duration) (*node, error) {
	enc, err := json.Marshal(genesis)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(datadir, "genesis.json")
	if err := os.WriteFile(path, enc, 0o644); err != nil {
		return nil, err
	}
	if out, err := exec.Command(bin, "init", "--datadir", datadir, path).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("geth init: %v\n%s", err, out)
	}
	port := peer.FreePort()
	cmd := exec.Command(bin, "--dev", "--dev.period", strconv.Itoa(int(period.Seconds())), "--datadir", datadir,
		"--miner.gaslimit", strconv.FormatUint(genesis.GasLimit, 10),
		"--http", "--http.addr", "127.0.0.1", "--http.port", port, "--http.api", "eth,net,web3,debug",
		"--port", "0", "--authrpc.port", peer.FreePort(), "--nodiscover", "--maxpeers", "0", "--ipcdisable", "--verbosity", "2")
	return launch("geth --dev", cmd, "http://127.0.0.1:"+port)
}
