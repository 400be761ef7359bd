package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
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
		"--json-rpc.api", "eth,net,web3,debug",
		"--rpc.laddr", "tcp://127.0.0.1:" + peer.FreePort(), "--p2p.laddr", "tcp://127.0.0.1:" + peer.FreePort(),
		"--log-level", "warn"}
}

// emberDev creates a dev home with n prefunded accounts and runs it
// (a block as soon as transactions arrive).
func emberDev(bin, home string, accounts int) (*node, error) {
	port := peer.FreePort()
	args := append(emberArgs("dev", home, port), "--accounts", strconv.Itoa(accounts))
	return launch("ember", exec.Command(bin, args...), "http://127.0.0.1:"+port)
}

// slowBlocks turns a dev home's "block as soon as transactions arrive" into
// a block every `every`, whatever the mempool holds, so a burst sent right
// after a block lands whole in the next one.
func slowBlocks(home string, every time.Duration) error {
	path := filepath.Join(home, "config", "config.toml")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	for _, r := range [][2]string{
		{`timeout_commit = "0s"`, fmt.Sprintf("timeout_commit = %q", every.String())},
		{`skip_timeout_commit = true`, `skip_timeout_commit = false`},
		{`create_empty_blocks_interval = "10s"`, `create_empty_blocks_interval = "0s"`},
	} {
		if !strings.Contains(s, r[0]) {
			return fmt.Errorf("%s: no %q to replace", path, r[0])
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// emberStart runs `emberd start` on an existing home.
func emberStart(bin, home string) (*node, error) {
	port := peer.FreePort()
	return launch("ember", exec.Command(bin, emberArgs("start", home, port)...), "http://127.0.0.1:"+port)
}

// gethGenesis is the go-ethereum genesis inside an Ember home's
// genesis.json (same config, alloc, gas limit and base fee), plus the Prague
// system contracts geth needs to process a block (Ember does not deploy
// them; ERC-20 transfers do not touch them). Without it geth --dev would
// run its own, newer fork rules, with other gas costs.
func gethGenesis(home string) (*core.Genesis, error) {
	raw, err := os.ReadFile(filepath.Join(home, "config", "genesis.json"))
	if err != nil {
		return nil, err
	}
	var doc struct {
		AppState struct {
			EVM *core.Genesis `json:"evm"`
		} `json:"app_state"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.AppState.EVM == nil {
		return nil, fmt.Errorf("ember genesis: no app_state.evm (%v)", err)
	}
	g := doc.AppState.EVM
	for addr, code := range map[common.Address][]byte{
		params.BeaconRootsAddress: params.BeaconRootsCode, params.HistoryStorageAddress: params.HistoryStorageCode,
		params.WithdrawalQueueAddress: params.WithdrawalQueueCode, params.ConsolidationQueueAddress: params.ConsolidationQueueCode,
	} {
		g.Alloc[addr] = types.Account{Nonce: 1, Code: code, Balance: new(big.Int)}
	}
	return g, nil
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
