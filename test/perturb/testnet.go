// Package perturb runs a local Ember network (`emberd testnet init`, each
// node its own `emberd start` process, every p2p link through its own
// proxy of internal/p2plinks) under a steady transfer load, injects faults
// from a schedule (kill -9, SIGSTOP, SIGTERM restart, partitions, a full
// disk), heals everything and checks the result: the same blocks, state
// roots and app hashes on every node, every accepted transaction included
// or replaced, and the supply exact to the wei. It is the library of both
// the short end-to-end test (test/e2e/perturb_test.go) and the long run
// (`make perturb`, cmd/perturb).
package perturb

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/internal/freeport"
	"github.com/emberchain/ember/internal/p2plinks"
	"github.com/emberchain/ember/node/homes"
)

// Node is one emberd process of the testnet.
type Node struct {
	Index     int
	Name      string
	Home      string
	Validator bool
	JSONRPC   string // host:port
	CometRPC  string // host:port
	REST      string // host:port

	bin string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	exit    int  // exit code of the last process, once done is closed
	paused  bool // SIGSTOPped
	tmpfs   bool // data/ is a small tmpfs (the disk-full victim)
	rpc     *rpc.Client
	eth     *ethclient.Client
	logFile string
}

// Testnet is the network: its nodes and the mesh of their p2p links.
type Testnet struct {
	Dir     string
	ChainID string
	Nodes   []*Node
	Mesh    *p2plinks.Mesh
}

// portsPerNode is how many ports `testnet init` reserves for each node.
const portsPerNode = 10

// freeBasePort finds a base port whose next nodes·10 ports are free
// (freeport.Range).
func freeBasePort(nodes int) (int, error) {
	return freeport.Range(portsPerNode*nodes, portsPerNode)
}

// InitTestnet runs `emberd testnet init` in dir and rewrites every home's
// persistent_peers to dial through the mesh. No node is started.
func InitTestnet(bin, dir string, validators, fullNodes int) (*Testnet, error) {
	base, err := freeBasePort(validators + fullNodes)
	if err != nil {
		return nil, err
	}
	out, err := exec.Command(bin, "testnet", "init", "--validators", strconv.Itoa(validators),
		"--full-nodes", strconv.Itoa(fullNodes), "--output", dir, "--base-port", strconv.Itoa(base)).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("testnet init: %v\n%s", err, out)
	}
	m, err := homes.LoadTestnet(dir)
	if err != nil {
		return nil, err
	}
	tn := &Testnet{Dir: dir, ChainID: m.ChainID}
	var links []p2plinks.Node
	for i, h := range m.Nodes {
		addr := func(p int) string { return "127.0.0.1:" + strconv.Itoa(p) }
		tn.Nodes = append(tn.Nodes, &Node{Index: i, Name: h.Name, Home: h.Home, Validator: h.Validator,
			JSONRPC: addr(h.Ports.JSONRPC), CometRPC: addr(h.Ports.RPC), REST: addr(h.Ports.REST),
			bin: bin, logFile: filepath.Join(h.Home, "emberd.log")})
		links = append(links, p2plinks.Node{ID: h.NodeID, P2P: addr(h.Ports.P2P)})
	}
	if tn.Mesh, err = p2plinks.New(links); err != nil {
		return nil, err
	}
	for i, n := range tn.Nodes {
		if err := setPersistentPeers(filepath.Join(n.Home, "config", "config.toml"), tn.Mesh.PersistentPeers(i)); err != nil {
			tn.Mesh.Close()
			return nil, err
		}
	}
	return tn, nil
}

var persistentPeersLine = regexp.MustCompile(`(?m)^persistent_peers = ".*"$`)

// setPersistentPeers replaces the p2p.persistent_peers line of config.toml.
func setPersistentPeers(path, peers string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !persistentPeersLine.Match(raw) {
		return fmt.Errorf("%s: no persistent_peers line", path)
	}
	raw = persistentPeersLine.ReplaceAll(raw, []byte(`persistent_peers = "`+peers+`"`))
	return os.WriteFile(path, raw, 0o600)
}

// Validators are the validator nodes.
func (tn *Testnet) Validators() []*Node {
	var out []*Node
	for _, n := range tn.Nodes {
		if n.Validator {
			out = append(out, n)
		}
	}
	return out
}

// StartAll starts every node and waits until each answers JSON-RPC.
func (tn *Testnet) StartAll(ctx context.Context) error {
	for _, n := range tn.Nodes {
		if err := n.Start(); err != nil {
			return err
		}
	}
	for _, n := range tn.Nodes {
		if err := n.WaitRPC(ctx, time.Minute); err != nil {
			return err
		}
	}
	return nil
}

// Close stops every node (SIGCONT first, so a paused one can exit) and the
// mesh.
func (tn *Testnet) Close() {
	for _, n := range tn.Nodes {
		n.Resume()
		n.Stop(20 * time.Second)
	}
	tn.Mesh.Close()
}

// Start runs `emberd start --home HOME`, its output appended to
// HOME/emberd.log, without waiting for it to answer.
func (n *Node) Start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil {
		return fmt.Errorf("%s already runs", n.Name)
	}
	logf, err := os.OpenFile(n.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "\n===== perturb: emberd start --home %s at %s\n", n.Home, time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.Command(n.bin, "start", "--home", n.Home)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	done := make(chan struct{})
	n.cmd, n.done, n.paused = cmd, done, false
	go func() {
		_ = cmd.Wait()
		logf.Close()
		n.mu.Lock()
		n.exit = cmd.ProcessState.ExitCode()
		n.mu.Unlock()
		close(done)
	}()
	return nil
}

// WaitRPC waits until the node answers eth_blockNumber.
func (n *Node) WaitRPC(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if _, err := n.Height(ctx); err == nil {
			return nil
		}
		if !n.Running() {
			return fmt.Errorf("%s exited during start-up (log %s)", n.Name, n.logFile)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s: no JSON-RPC answer within %v (log %s)", n.Name, within, n.logFile)
}

// Running reports whether the process is alive (paused counts).
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return false
	}
	select {
	case <-n.done:
		return false
	default:
		return true
	}
}

// Up reports whether the node runs and is not paused: whether it can
// answer.
func (n *Node) Up() bool {
	if !n.Running() {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return !n.paused
}

// signal sends sig and, when wait is positive, waits that long for the
// process to exit (SIGKILL after).
func (n *Node) signal(sig syscall.Signal, wait time.Duration) {
	n.mu.Lock()
	cmd, done := n.cmd, n.done
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	if wait <= 0 {
		return
	}
	select {
	case <-done:
	case <-time.After(wait):
		_ = cmd.Process.Kill()
		<-done
	}
	n.forget()
}

// forget drops the exited process and the clients.
func (n *Node) forget() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.cmd, n.paused = nil, false
	if n.rpc != nil {
		n.rpc.Close()
		n.rpc, n.eth = nil, nil
	}
}

// Kill ends the process with SIGKILL, as a crash would.
func (n *Node) Kill() { n.signal(syscall.SIGKILL, 10*time.Second) }

// Stop ends the process with SIGTERM, SIGKILL after grace.
func (n *Node) Stop(grace time.Duration) { n.signal(syscall.SIGTERM, grace) }

// Pause freezes the process with SIGSTOP.
func (n *Node) Pause() {
	n.signal(syscall.SIGSTOP, 0)
	n.mu.Lock()
	n.paused = n.cmd != nil
	n.mu.Unlock()
}

// Resume continues a paused process with SIGCONT.
func (n *Node) Resume() {
	n.mu.Lock()
	paused := n.paused
	n.paused = false
	n.mu.Unlock()
	if paused {
		n.signal(syscall.SIGCONT, 0)
	}
}

// WaitExit waits for the process to end by itself and returns its exit
// code.
func (n *Node) WaitExit(within time.Duration) (int, error) {
	n.mu.Lock()
	done := n.done
	n.mu.Unlock()
	if done == nil {
		return 0, fmt.Errorf("%s was never started", n.Name)
	}
	select {
	case <-done:
	case <-time.After(within):
		return 0, fmt.Errorf("%s still runs %v later", n.Name, within)
	}
	n.mu.Lock()
	code := n.exit
	n.mu.Unlock()
	n.forget()
	return code, nil
}

// client is the node's JSON-RPC client, dialled on first use.
func (n *Node) client() (*rpc.Client, *ethclient.Client, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.rpc == nil {
		c, err := rpc.Dial("http://" + n.JSONRPC)
		if err != nil {
			return nil, nil, err
		}
		n.rpc, n.eth = c, ethclient.NewClient(c)
	}
	return n.rpc, n.eth, nil
}

// Eth is the node's ethclient.
func (n *Node) Eth() (*ethclient.Client, error) {
	_, e, err := n.client()
	return e, err
}

// RPC is the node's raw JSON-RPC client.
func (n *Node) RPC() (*rpc.Client, error) {
	c, _, err := n.client()
	return c, err
}

// Height is the node's head block number, bounded by a short timeout (a
// paused node never answers).
func (n *Node) Height(ctx context.Context) (uint64, error) {
	eth, err := n.Eth()
	if err != nil {
		return 0, err
	}
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return eth.BlockNumber(c)
}

// MaxHeight is the highest head among the nodes that answer.
func MaxHeight(ctx context.Context, nodes []*Node) uint64 {
	var max uint64
	for _, n := range nodes {
		if !n.Up() {
			continue
		}
		if h, err := n.Height(ctx); err == nil && h > max {
			max = h
		}
	}
	return max
}
