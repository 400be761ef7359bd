package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/emberchain/ember/bench/internal/peer"
)

// node is the emberd dev process under soak, on free loopback ports in a
// temporary home, its output in node.log there (not in this process's
// memory: it runs for hours).
type node struct {
	cmd        *exec.Cmd
	home       string
	rpcURL     string
	metricsURL string
	done       chan struct{}
	mu         sync.Mutex
	waitErr    error
}

func startNode(bin string, accounts int, extra []string) (*node, error) {
	home, err := os.MkdirTemp("", "ember-soak-")
	if err != nil {
		return nil, err
	}
	port, metrics := peer.FreePort(), "127.0.0.1:"+peer.FreePort()
	args := append([]string{"dev", "--home", home, "--accounts", strconv.Itoa(accounts),
		"--json-rpc.address", "127.0.0.1:" + port, "--json-rpc.ws-address", "127.0.0.1:" + peer.FreePort(),
		"--rest.address", "127.0.0.1:" + peer.FreePort(), "--grpc.enable=false",
		"--explorer.enable=true", "--explorer.address", "127.0.0.1:" + peer.FreePort(),
		"--rpc.laddr", "tcp://127.0.0.1:" + peer.FreePort(), "--p2p.laddr", "tcp://127.0.0.1:" + peer.FreePort(),
		"--metrics.enable=true", "--metrics.address", metrics, "--log-level", "warn",
		// answered at admission: the load is paced by the clock, not by blocks
		"--json-rpc.dev-answer-mined=false"}, extra...)
	logf, err := os.Create(filepath.Join(home, "node.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	n := &node{cmd: cmd, home: home, rpcURL: "http://127.0.0.1:" + port, metricsURL: "http://" + metrics + "/metrics", done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		logf.Close()
		n.mu.Lock()
		n.waitErr = fmt.Errorf("emberd exited (%v); see %s", err, filepath.Join(home, "node.log"))
		n.mu.Unlock()
		close(n.done)
	}()
	return n, n.waitReady()
}

// waitReady waits until JSON-RPC answers eth_blockNumber.
func (n *node) waitReady() error {
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if err := n.exited(); err != nil {
			return err
		}
		if c, err := ethclient.Dial(n.rpcURL); err == nil {
			_, err = c.BlockNumber(context.Background())
			c.Close()
			if err == nil {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	n.stop(true)
	return fmt.Errorf("emberd did not answer within 90s; see %s", filepath.Join(n.home, "node.log"))
}

func (n *node) pid() int { return n.cmd.Process.Pid }

// exited is the node's exit as an error, nil while it runs.
func (n *node) exited() error {
	select {
	case <-n.done:
		n.mu.Lock()
		defer n.mu.Unlock()
		return n.waitErr
	default:
		return nil
	}
}

// stop ends the node (SIGTERM, SIGKILL after 30 s) and removes its home
// unless kept.
func (n *node) stop(keep bool) {
	_ = syscall.Kill(-n.pid(), syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-n.pid(), syscall.SIGKILL)
		<-n.done
	}
	if keep {
		fmt.Printf("node home kept: %s\n", n.home)
		return
	}
	_ = os.RemoveAll(n.home)
}

// sample reads the memory of the node now; a reading that fails leaves
// its fields zero (printed as such) rather than ending the soak.
func (n *node) sample(ctx context.Context, eth *ethclient.Client, l *load, elapsed time.Duration) sample {
	s := sample{elapsed: elapsed, sent: l.sent.Load(), failed: l.failed.Load()}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if h, err := eth.BlockNumber(rctx); err == nil {
		s.height = h
	}
	if err := procStatus(n.pid(), &s); err != nil {
		fmt.Fprintln(os.Stderr, "soak: read status:", err)
	}
	var err error
	if s.explorerMap, err = mappedRSS(n.pid(), "explorer.db"); err != nil {
		fmt.Fprintln(os.Stderr, "soak: read smaps:", err)
	}
	if err := scrape(n.metricsURL, &s); err != nil {
		fmt.Fprintln(os.Stderr, "soak: scrape metrics:", err)
	}
	return s
}
