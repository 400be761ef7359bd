package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/internal/freeport"
	"github.com/emberchain/ember/internal/wait"
)

// Network is a local network made by `emberd testnet init`, each node its
// own `emberd start --home DIR/nodeI` process on the ports the home has.
type Network struct {
	t     *testing.T
	Dir   string
	Nodes []*Node // in manifest order: the validators, then added full nodes
}

// testnetManifest is the part of DIR/testnet.json the tests read.
type testnetManifest struct {
	ChainID  string `json:"chain_id"`
	BasePort int    `json:"base_port"`
	Nodes    []struct {
		Name      string         `json:"name"`
		Home      string         `json:"home"`
		Validator bool           `json:"validator"`
		NodeID    string         `json:"node_id"`
		Operator  common.Address `json:"operator"`
		Ports     struct {
			P2P      int `json:"p2p"`
			RPC      int `json:"rpc"`
			JSONRPC  int `json:"json_rpc"`
			WS       int `json:"json_rpc_ws"`
			REST     int `json:"rest"`
			GRPC     int `json:"grpc"`
			Explorer int `json:"explorer"`
		} `json:"ports"`
	} `json:"nodes"`
}

// networkPorts is how many ports `testnet init` gives each node.
const networkPorts = 10

// freeBasePort finds a base port whose next n·10 ports are free
// (freeport.Range).
func freeBasePort(t *testing.T, nodes int) int {
	t.Helper()
	base, err := freeport.Range(networkPorts*nodes, networkPorts)
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// emberdCLI runs emberd with args and returns its combined output.
func emberdCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command(emberdBin, args...).CombinedOutput()
	return string(out), err
}

// InitNetwork runs `emberd testnet init` for validators nodes (room is left
// for spare more nodes added later) without starting them.
func InitNetwork(t *testing.T, validators, spare int) *Network {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	dir := filepath.Join(t.TempDir(), "testnet")
	base := freeBasePort(t, validators+spare)
	if out, err := emberdCLI(t, "testnet", "init", "--validators", strconv.Itoa(validators),
		"--output", dir, "--base-port", strconv.Itoa(base)); err != nil {
		t.Fatalf("testnet init: %v\n%s", err, out)
	}
	nw := &Network{t: t, Dir: dir}
	nw.load()
	t.Cleanup(func() {
		for _, n := range nw.Nodes {
			n.Stop()
			if t.Failed() {
				n.dumpLog()
			}
		}
	})
	return nw
}

// manifest reads DIR/testnet.json.
func (nw *Network) manifest() testnetManifest {
	nw.t.Helper()
	raw, err := os.ReadFile(filepath.Join(nw.Dir, "testnet.json"))
	if err != nil {
		nw.t.Fatal(err)
	}
	var m testnetManifest
	if err := json.Unmarshal(raw, &m); err != nil {
		nw.t.Fatal(err)
	}
	return m
}

// load adds a Node for every home of the manifest not known yet.
func (nw *Network) load() {
	for _, h := range nw.manifest().Nodes[len(nw.Nodes):] {
		addr := func(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
		nw.Nodes = append(nw.Nodes, &Node{
			t:        nw.t,
			Home:     h.Home,
			HTTP:     addr(h.Ports.JSONRPC),
			WS:       addr(h.Ports.WS),
			CometRPC: addr(h.Ports.RPC),
			REST:     addr(h.Ports.REST),
			Explorer: addr(h.Ports.Explorer),
			GRPC:     addr(h.Ports.GRPC),
			p2p:      addr(h.Ports.P2P),
			logPath:  filepath.Join(h.Home, "emberd.log"),
		})
	}
}

// AddFullNode runs `emberd testnet add-node` and returns the new node, not
// started.
func (nw *Network) AddFullNode() *Node {
	nw.t.Helper()
	if out, err := emberdCLI(nw.t, "testnet", "add-node", nw.Dir); err != nil {
		nw.t.Fatalf("testnet add-node: %v\n%s", err, out)
	}
	nw.load()
	return nw.Nodes[len(nw.Nodes)-1]
}

// height is a node's EVM head number.
func (n *Node) height(t *testing.T) uint64 {
	t.Helper()
	h, err := n.Eth.BlockNumber(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// waitAllHeight waits until every node's head reaches number.
func waitAllHeight(t *testing.T, number uint64, nodes ...*Node) {
	t.Helper()
	waitAllHeightWithin(t, number, 60*time.Second, nodes...)
}

// waitAllHeightWithin is waitAllHeight with another deadline.
func waitAllHeightWithin(t *testing.T, number uint64, within time.Duration, nodes ...*Node) {
	t.Helper()
	deadline := time.Now().Add(within)
	for _, n := range nodes {
		wait.Eventually(t, time.Until(deadline), fmt.Sprintf("%s to reach height %d", n.Home, number), func() error {
			h := n.height(t)
			return wait.Check(h >= number, "height %d", h)
		})
	}
}

// blockID is what two nodes must agree on for one height.
type blockID struct {
	Number    hexutil.Uint64 `json:"number"`
	Hash      common.Hash    `json:"hash"`
	StateRoot common.Hash    `json:"stateRoot"`
	Parent    common.Hash    `json:"parentHash"`
	Txs       []common.Hash  `json:"transactions"`
}

// blocks reads heights from..to with eth_getBlockByNumber in one batch.
func (n *Node) blocks(t *testing.T, from, to uint64) []blockID {
	t.Helper()
	out := make([]blockID, to-from+1)
	batch := make([]rpc.BatchElem, len(out))
	for i := range out {
		batch[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(from + uint64(i)), false}, Result: &out[i]}
	}
	if err := n.RPC.BatchCall(batch); err != nil {
		t.Fatal(err)
	}
	for i, el := range batch {
		if el.Error != nil {
			t.Fatalf("%s: block %d: %v", n.Home, from+uint64(i), el.Error)
		}
		if uint64(out[i].Number) != from+uint64(i) {
			t.Fatalf("%s: block %d answered as %d", n.Home, from+uint64(i), out[i].Number)
		}
	}
	return out
}

// sameChain requires every node to serve identical blocks 0..to: hash,
// state root, parent and transactions.
func sameChain(t *testing.T, to uint64, nodes ...*Node) {
	t.Helper()
	want := nodes[0].blocks(t, 0, to)
	for i := uint64(1); i <= to; i++ {
		if want[i].Parent != want[i-1].Hash {
			t.Fatalf("%s: block %d parent %s, block %d hash %s", nodes[0].Home, i, want[i].Parent, i-1, want[i-1].Hash)
		}
	}
	for _, n := range nodes[1:] {
		got := n.blocks(t, 0, to)
		for i := range want {
			w, g := want[i], got[i]
			if w.Hash != g.Hash || w.StateRoot != g.StateRoot || w.Parent != g.Parent || len(w.Txs) != len(g.Txs) {
				t.Fatalf("block %d differs: %s has %+v, %s has %+v", i, nodes[0].Home, w, n.Home, g)
			}
			for j := range w.Txs {
				if w.Txs[j] != g.Txs[j] {
					t.Fatalf("block %d tx %d differs: %s vs %s", i, j, w.Txs[j], g.Txs[j])
				}
			}
		}
	}
}
