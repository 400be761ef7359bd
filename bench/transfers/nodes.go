package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// peer is a running node under test.
type peer struct {
	url  string
	cmd  *exec.Cmd
	home string
	log  *bytes.Buffer
}

// stop kills the node's whole process group: npm's anvil is a Node.js shim
// that spawns the real binary, which must go too.
func (p *peer) stop() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	_ = p.cmd.Wait()
	if p.home != "" {
		os.RemoveAll(p.home)
	}
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatalf("%v", err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func lookPath(name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// startEmber runs `emberd dev` with the senders prefunded.
func startEmber(bin string, senders int) (*peer, error) {
	home, err := os.MkdirTemp("", "bench-ember-")
	if err != nil {
		return nil, err
	}
	port := freePort()
	cmd := exec.Command(bin, "dev", "--home", home, "--accounts", strconv.Itoa(senders),
		"--json-rpc.address", "127.0.0.1:"+port, "--json-rpc.ws-address", "127.0.0.1:"+freePort(),
		"--rpc.laddr", "tcp://127.0.0.1:"+freePort(), "--p2p.laddr", "tcp://127.0.0.1:"+freePort(),
		"--log-level", "warn")
	return launch(cmd, "http://127.0.0.1:"+port, home)
}

// startAnvil runs anvil with automine (its default), or with a block every
// blockTime seconds.
func startAnvil(bin string, senders int, blockTime string) (*peer, error) {
	port := freePort()
	args := []string{"--port", port, "--accounts", strconv.Itoa(senders), "--silent"}
	if blockTime != "" {
		args = append(args, "--block-time", blockTime)
	}
	cmd := exec.Command(bin, args...)
	return launch(cmd, "http://127.0.0.1:"+port, "")
}

func launch(cmd *exec.Cmd, url, home string) (*peer, error) {
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &peer{url: url, cmd: cmd, home: home, log: &log}
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
	p.stop()
	return nil, fmt.Errorf("%s did not answer within 60s:\n%s", cmd.Path, log.String())
}
