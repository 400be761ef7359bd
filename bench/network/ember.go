package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/node/homes"
)

// ember is emberd: homes from `emberd testnet init`, rewritten to
// production settings.
type ember struct {
	bin   string
	comet cometSettings
}

func (e ember) Name() string { return "ember" }

// Init funds the senders as `testnet init --accounts` funds the test
// mnemonic's first accounts (10,000 ETH each), which are the senders.
func (e ember) Init(ctx context.Context, dir string, senders []common.Address) ([]*node, error) {
	base, err := portBlock(40)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "testnet")
	cmd := exec.CommandContext(ctx, e.bin, "testnet", "init", "--validators", "4", "--output", out,
		"--base-port", strconv.Itoa(base), "--accounts", strconv.Itoa(len(senders)))
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, b)
	}
	m, err := homes.LoadTestnet(out)
	if err != nil {
		return nil, err
	}
	var nodes []*node
	for _, h := range m.Nodes {
		n := &node{name: h.Name, home: h.Home, id: h.NodeID, p2p: addr(h.Ports.P2P),
			jsonRPC: "http://" + addr(h.Ports.JSONRPC), comet: "http://" + addr(h.Ports.RPC)}
		if err := e.configure(n, addr(h.Ports.RPC)); err != nil {
			return nil, err
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// configure replaces a testnet home's short dev-ish timeouts with the
// production ones. app.toml already has production durability ([store]
// sync and [validator] sync-state are true, as config.Default() writes
// them); snapshots go back to their default (none), as on evmd.
func (e ember) configure(n *node, rpc string) error {
	if err := setTOML(filepath.Join(n.home, "config", "config.toml"), productionComet(e.comet, n.p2p, rpc)); err != nil {
		return err
	}
	return setTOML(filepath.Join(n.home, "config", "app.toml"), tomlEdits{
		"store":      {"sync": "true"},
		"validator":  {"sync-state": "true"},
		"state-sync": {"snapshot-interval": "0"},
	})
}

func (e ember) SetPeers(n *node, peers string) error {
	return setTOML(filepath.Join(n.home, "config", "config.toml"), tomlEdits{"p2p": {"persistent_peers": quote(peers)}})
}

func (e ember) Command(n *node) *exec.Cmd {
	return exec.Command(e.bin, "start", "--home", n.home, "--log-level", "warn")
}
