// Package peer starts the nodes the benchmarks measure: Ember (emberd dev),
// anvil and geth --dev, each on free loopback ports in its own process group.
package peer

import (
	"bytes"
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
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/internal/freeport"
)

// affinity is the CPU list nodes start on ("": any CPU); see StartOn.
var affinity string

// StartOn makes the nodes started from now on run on cpus (taskset's -c
// list, e.g. "1") from their first instruction, so that they size their
// threads to those CPUs (Go's GOMAXPROCS, tokio's workers); "" lifts it.
func StartOn(cpus string) { affinity = cpus }

// Pinned returns cmd run under taskset on cpus. taskset execs the command,
// so its process (pid, CPU times, rusage) is the command's.
func Pinned(cmd *exec.Cmd, cpus string) *exec.Cmd {
	c := exec.Command("taskset", append([]string{"-c", cpus, cmd.Path}, cmd.Args[1:]...)...)
	c.Env, c.Dir = cmd.Env, cmd.Dir
	return c
}

// Node is a running node under test.
type Node struct {
	Name string
	URL  string // JSON-RPC over HTTP
	WS   string // JSON-RPC over WebSocket
	// Pprof is the base URL of the node's Go profiles (emberd's
	// --pprof.address), "" when it serves none.
	Pprof string
	// Explorer is the base URL of the node's explorer API, "" when off.
	Explorer string
	cmd      *exec.Cmd
	home     string
	log      *bytes.Buffer
}

// Stop kills the node's whole process group (npm's anvil is a Node.js shim
// that spawns the real binary) and removes its data.
func (p *Node) Stop() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = p.cmd.Wait()
	if p.home != "" {
		os.RemoveAll(p.home)
	}
}

// Pid is the process id of the node (for anvil from npm, of the platform
// binary, which FindAnvil returns rather than the Node.js shim).
func (p *Node) Pid() int { return p.cmd.Process.Pid }

// CPU is the CPU time (user + system) the node's process has used so far
// (Linux /proc; 0 elsewhere).
func (p *Node) CPU() time.Duration { return ProcCPU(p.Pid()) }

// ProcCPU reads utime + stime of a process from /proc (Linux; 0 elsewhere).
func ProcCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name, which is parenthesised and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(string(f[11]), 10, 64)
	st, _ := strconv.ParseInt(string(f[12]), 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

// SelfCPU is the CPU time this process (the load generator) has used.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// FreePort returns a free loopback TCP port.
func FreePort() string {
	port, err := freeport.Port()
	if err != nil {
		panic(err)
	}
	return strconv.Itoa(port)
}

// Ember runs `emberd dev` with n prefunded accounts. configure, if set, is
// called with the home after it is created and before the node serves (it
// may edit config/app.toml); the node is then restarted with `emberd start`.
func Ember(bin string, accounts int, configure func(home string) error) (*Node, error) {
	return EmberDev(bin, accounts, false, false, configure)
}

// EmberDev is Ember with the explorer on (as `emberd dev` runs it by
// default: indexing into SQLite in the home) or off. With profile, it serves
// its Go profiles at Node.Pprof.
func EmberDev(bin string, accounts int, explorer, profile bool, configure func(home string) error) (*Node, error) {
	home, err := os.MkdirTemp("", "bench-ember-")
	if err != nil {
		return nil, err
	}
	port, ws, explorerAddr, pprof := FreePort(), FreePort(), "127.0.0.1:"+FreePort(), ""
	if profile {
		pprof = "127.0.0.1:" + FreePort()
	}
	args := func(cmd string) []string {
		a := emberArgs(cmd, home, port, ws, explorer, explorerAddr)
		if cmd == "dev" {
			a = append(a, "--accounts", strconv.Itoa(accounts))
		}
		if pprof != "" {
			a = append(a, "--pprof.address", pprof)
		}
		return a
	}
	n, err := launch("ember", exec.Command(bin, args("dev")...), "http://127.0.0.1:"+port, "ws://127.0.0.1:"+ws, "")
	if err != nil || configure == nil {
		if n != nil {
			n.home = home
			if pprof != "" {
				n.Pprof = "http://" + pprof
			}
			if explorer {
				n.Explorer = "http://" + explorerAddr
			}
		}
		return n, err
	}
	_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGTERM)
	_ = n.cmd.Wait()
	if err := configure(home); err != nil {
		return nil, err
	}
	n, err = launch("ember", exec.Command(bin, args("start")...), "http://127.0.0.1:"+port, "ws://127.0.0.1:"+ws, home)
	return n, err
}

func emberArgs(cmd, home, port, ws string, explorer bool, explorerAddr string) []string {
	return []string{cmd, "--home", home,
		"--json-rpc.address", "127.0.0.1:" + port, "--json-rpc.ws-address", "127.0.0.1:" + ws,
		"--rest.address", "127.0.0.1:" + FreePort(),
		// Dev homes run the explorer; most comparisons with anvil/geth are
		// of the node alone, so it is off unless asked for.
		"--explorer.enable=" + strconv.FormatBool(explorer), "--grpc.enable=false", "--explorer.address", explorerAddr,
		"--rpc.laddr", "tcp://127.0.0.1:" + FreePort(), "--p2p.laddr", "tcp://127.0.0.1:" + FreePort(),
		// a dev home serves metrics; not on its default port, which another
		// node on the machine may hold
		"--metrics.address", "127.0.0.1:" + FreePort(), "--log-level", "warn",
		// Sends answered at admission, as before emberd dev answered them
		// once mined: the write bursts measure what the node commits with
		// 50 sends in flight; answered once mined, each sender would have
		// one transfer per block and its proof block, and the burst would
		// measure that round trip instead, which the latency part measures.
		"--json-rpc.dev-answer-mined=false"}
}

// EmberStart runs `emberd start` on an existing home (one Ember made, e.g.
// a copy of a stopped node's), on free ports, with extra flags after the
// usual ones (e.g. "--json-rpc.api", "eth,net,web3,debug"). Stop removes the
// home.
func EmberStart(name, bin, home string, extra ...string) (*Node, error) {
	port, ws := FreePort(), FreePort()
	args := append(emberArgs("start", home, port, ws, false, "127.0.0.1:"+FreePort()), extra...)
	return launch(name, exec.Command(bin, args...), "http://127.0.0.1:"+port, "ws://127.0.0.1:"+ws, home)
}

// Home is the node's data directory ("" when it has none of its own).
func (p *Node) Home() string { return p.home }

// Terminate stops the node gracefully (SIGTERM; SIGKILL after 30 s) and
// keeps its home, which a later EmberStart may continue.
func (p *Node) Terminate() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// Log is what the node printed on stdout and stderr; read it once the node
// has stopped (the process writes to it meanwhile).
func (p *Node) Log() string { return p.log.String() }

// Anvil runs anvil with automine (its default), or with a block every
// blockTime seconds.
func Anvil(bin string, accounts int, blockTime string) (*Node, error) {
	port := FreePort()
	args := []string{"--port", port, "--accounts", strconv.Itoa(accounts), "--silent"}
	name := "anvil"
	if blockTime != "" {
		args = append(args, "--block-time", blockTime)
		name = "anvil --block-time " + blockTime
	}
	// anvil serves WebSocket on its HTTP port.
	return launch(name, exec.Command(bin, args...), "http://127.0.0.1:"+port, "ws://127.0.0.1:"+port, "")
}

// Geth runs geth --dev (a block per transaction) with HTTP JSON-RPC.
func Geth(bin string) (*Node, error) {
	home, err := os.MkdirTemp("", "bench-geth-")
	if err != nil {
		return nil, err
	}
	port, ws := FreePort(), FreePort()
	cmd := exec.Command(bin, append([]string{"--dev", "--datadir", home, "--http", "--http.addr", "127.0.0.1", "--http.port", port,
		"--http.api", "eth,net,web3", "--port", "0", "--authrpc.port", FreePort(), "--verbosity", "1", "--nodiscover", "--maxpeers", "0",
		"--ipcdisable"}, gethWS(ws)...)...)
	return launch("geth --dev", cmd, "http://127.0.0.1:"+port, "ws://127.0.0.1:"+ws, home)
}

// GethDev runs geth --dev as it runs by default (an in-memory chain, the
// dev account prefunded), with HTTP JSON-RPC, and funds the first accounts
// of the test mnemonic from the dev account (1,000 ETH each).
func GethDev(bin string, accounts int) (*Node, error) {
	port, ws := FreePort(), FreePort()
	cmd := exec.Command(bin, append([]string{"--dev", "--http", "--http.addr", "127.0.0.1", "--http.port", port, "--http.api", "eth,net,web3",
		"--port", "0", "--authrpc.port", FreePort(), "--verbosity", "1", "--nodiscover", "--maxpeers", "0", "--ipcdisable"}, gethWS(ws)...)...)
	n, err := launch("geth --dev", cmd, "http://127.0.0.1:"+port, "ws://127.0.0.1:"+ws, "")
	if err != nil {
		return nil, err
	}
	if err := fundFromDev(n.URL, accounts); err != nil {
		n.Stop()
		return nil, fmt.Errorf("fund accounts from geth's dev account: %w", err)
	}
	return n, nil
}

// fundFromDev sends 1,000 ETH from the node's first account (unlocked) to
// each of the first n test-mnemonic accounts and waits for the last one.
func fundFromDev(url string, n int) error {
	c, err := rpc.Dial(url)
	if err != nil {
		return err
	}
	defer c.Close()
	var devs []common.Address
	if err := c.Call(&devs, "eth_accounts"); err != nil || len(devs) == 0 {
		return fmt.Errorf("no dev account (%v)", err)
	}
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, n)
	if err != nil {
		return err
	}
	value := (*hexutil.Big)(new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18)))
	// Explicit nonces: geth picks the next one from its pool, which a block
	// being sealed meanwhile can leave behind ("replacement transaction
	// underpriced").
	var nonce hexutil.Uint64
	if err := c.Call(&nonce, "eth_getTransactionCount", devs[0], "pending"); err != nil {
		return err
	}
	var last common.Hash
	for i, k := range keys {
		tx := map[string]any{"from": devs[0], "to": k.Address, "value": value, "nonce": nonce + hexutil.Uint64(i)}
		if err := c.Call(&last, "eth_sendTransaction", tx); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var r map[string]any
		if err := c.Call(&r, "eth_getTransactionReceipt", last); err == nil && r != nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("funding not mined within a minute")
}

// gethWS are geth's flags serving eth (newHeads) over WebSocket on port.
func gethWS(port string) []string {
	return []string{"--ws", "--ws.addr", "127.0.0.1", "--ws.port", port, "--ws.api", "eth"}
}

func launch(name string, cmd *exec.Cmd, url, ws, home string) (*Node, error) {
	if affinity != "" {
		cmd = Pinned(cmd, affinity)
	}
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Node{Name: name, URL: url, WS: ws, cmd: cmd, home: home, log: &log}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := rpc.Dial(url); err == nil {
			var n string
			err = c.Call(&n, "eth_blockNumber")
			c.Close()
			if err == nil {
				return p, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.Stop()
	return nil, fmt.Errorf("%s (%s) did not answer within 60s:\n%s", name, strings.Join(cmd.Args, " "), log.String())
}

// FindAnvil returns the anvil binary: the flag's path, else npm's platform
// binary under bench/node_modules (not the .bin shim, which burns a core of
// its own), else PATH.
func FindAnvil(flagPath string) string {
	if flagPath != "" {
		return flagPath
	}
	for _, p := range []string{
		filepath.Join("bench", "node_modules", "@foundry-rs", "anvil-linux-amd64", "bin", "anvil"),
		filepath.Join("node_modules", "@foundry-rs", "anvil-linux-amd64", "bin", "anvil"),
		filepath.Join("bench", "node_modules", ".bin", "anvil"),
	} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return lookPath("anvil")
}

// FindGeth returns the geth binary: the flag's path, else $GOBIN or
// $GOPATH/bin (where `go install .../cmd/geth@v1.17.8` puts it), else PATH.
func FindGeth(flagPath string) string {
	if flagPath != "" {
		return flagPath
	}
	for _, dir := range []string{os.Getenv("GOBIN"), filepath.Join(os.Getenv("HOME"), "go", "bin")} {
		if p := filepath.Join(dir, "geth"); dir != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	return lookPath("geth")
}

func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}
