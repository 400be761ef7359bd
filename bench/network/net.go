package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/bench/internal/peer"
	"github.com/emberchain/ember/internal/freeport"
	"github.com/emberchain/ember/internal/p2plinks"
)

// node is one validator of a local network.
type node struct {
	name    string
	home    string
	id      string // CometBFT node id
	p2p     string // host:port its p2p layer listens on (the proxies dial it)
	jsonRPC string // http://host:port
	comet   string // CometBFT RPC, http://host:port
	cmd     *exec.Cmd
	log     *os.File
}

// chain is one of the compared implementations: how to write its four
// validator homes and how to start a node.
type chain interface {
	Name() string
	// Init writes the homes under dir (one genesis funding senders), with
	// the production settings of settings(), and returns the nodes, not
	// started and without peers.
	Init(ctx context.Context, dir string, senders []common.Address) ([]*node, error)
	// SetPeers writes node i's persistent_peers.
	SetPeers(n *node, peers string) error
	// Command is the command that runs n.
	Command(n *node) *exec.Cmd
}

// network is a running four-validator network behind a proxy mesh.
type network struct {
	chain chain
	dir   string
	nodes []*node
	mesh  *p2plinks.Mesh
}

// startNetwork writes the homes, puts every p2p link through the mesh at
// delay one way, starts the nodes and waits until all of them serve
// JSON-RPC and the chain has made a few blocks.
func startNetwork(ctx context.Context, c chain, delay time.Duration, senders []common.Address) (*network, error) {
	dir, err := os.MkdirTemp("", "bench-network-"+c.Name()+"-")
	if err != nil {
		return nil, err
	}
	nw := &network{chain: c, dir: dir}
	if nw.nodes, err = c.Init(ctx, dir, senders); err != nil {
		nw.stop()
		return nil, fmt.Errorf("%s init: %w", c.Name(), err)
	}
	var links []p2plinks.Node
	for _, n := range nw.nodes {
		links = append(links, p2plinks.Node{ID: n.id, P2P: n.p2p})
	}
	if nw.mesh, err = p2plinks.New(links); err != nil {
		nw.stop()
		return nil, err
	}
	if err := nw.mesh.SetLatency(delay); err != nil {
		nw.stop()
		return nil, err
	}
	for i, n := range nw.nodes {
		if err := c.SetPeers(n, nw.mesh.PersistentPeers(i)); err != nil {
			nw.stop()
			return nil, err
		}
	}
	for _, n := range nw.nodes {
		if err := nw.spawn(n); err != nil {
			nw.stop()
			return nil, err
		}
	}
	if err := nw.waitReady(ctx, 3, 3*time.Minute); err != nil {
		nw.stop()
		return nil, err
	}
	return nw, nil
}

// spawn starts n in its own process group (so that stop kills whatever
// it spawns too), its output to home/node.log.
func (nw *network) spawn(n *node) error {
	f, err := os.Create(filepath.Join(nw.dir, n.name+".log"))
	if err != nil {
		return err
	}
	n.log = f
	n.cmd = nw.chain.Command(n)
	n.cmd.Stdout, n.cmd.Stderr = f, f
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return n.cmd.Start()
}

// waitReady waits until every node's CometBFT height is at least height.
func (nw *network) waitReady(ctx context.Context, height int64, within time.Duration) error {
	deadline := time.Now().Add(within)
	for _, n := range nw.nodes {
		for {
			h, err := cometHeight(ctx, n.comet)
			if err == nil && h >= height {
				break
			}
			if n.cmd.ProcessState != nil || time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("%s %s not at height %d (last error %v); log %s:\n%s",
					nw.chain.Name(), n.name, height, err, n.log.Name(), tail(n.log.Name(), 3000))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return nil
}

// stop kills every node's process group, closes the proxies and removes
// the homes. Safe on a partly started network.
func (nw *network) stop() {
	for _, n := range nw.nodes {
		if n.cmd != nil && n.cmd.Process != nil {
			_ = syscall.Kill(-n.cmd.Process.Pid, syscall.SIGKILL)
			_ = n.cmd.Wait()
		}
		if n.log != nil {
			n.log.Close()
		}
	}
	if nw.mesh != nil {
		nw.mesh.Close()
	}
	if os.Getenv("BENCH_KEEP") == "" {
		os.RemoveAll(nw.dir)
	}
}

// cpu is the CPU time all the nodes have used so far.
func (nw *network) cpu() time.Duration {
	var total time.Duration
	for _, n := range nw.nodes {
		total += peer.ProcCPU(n.cmd.Process.Pid)
	}
	return total
}

// urls are the nodes' JSON-RPC endpoints.
func (nw *network) urls() []string {
	var out []string
	for _, n := range nw.nodes {
		out = append(out, n.jsonRPC)
	}
	return out
}

// cometHeight asks a CometBFT RPC endpoint for its latest height.
func cometHeight(ctx context.Context, url string) (int64, error) {
	var st struct {
		Result struct {
			SyncInfo struct {
				Height string `json:"latest_block_height"`
			} `json:"sync_info"`
		} `json:"result"`
	}
	if err := getJSON(ctx, url+"/status", &st); err != nil {
		return 0, err
	}
	return strconv.ParseInt(st.Result.SyncInfo.Height, 10, 64)
}

func getJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// productionComet is what both chains' config.toml get: CometBFT's
// default consensus timeouts (its library defaults, the same on both
// chains' CometBFT) with timeout_commit set to the common block time,
// empty blocks made, CometBFT's mempool defaults with gossip on (type
// flood, the CometBFT default, unless the chain sets its own: see evmd),
// and what several nodes on one IP need (no PEX, no strict address book).
// Everything else is left as each chain writes it.
func productionComet(c cometSettings, p2pAddr, rpcAddr string) tomlEdits {
	cs, mp := cmtcfg.DefaultConsensusConfig(), cmtcfg.DefaultMempoolConfig()
	d := func(v time.Duration) string { return quote(v.String()) }
	edits := tomlEdits{
		"consensus": {
			"timeout_propose": d(cs.TimeoutPropose), "timeout_propose_delta": d(cs.TimeoutProposeDelta),
			"timeout_prevote": d(cs.TimeoutPrevote), "timeout_prevote_delta": d(cs.TimeoutPrevoteDelta),
			"timeout_precommit": d(cs.TimeoutPrecommit), "timeout_precommit_delta": d(cs.TimeoutPrecommitDelta),
			"timeout_commit": d(c.blockTime), "skip_timeout_commit": "false",
			"create_empty_blocks": "true", "create_empty_blocks_interval": d(0),
			"peer_gossip_sleep_duration": d(cs.PeerGossipSleepDuration),
		},
		"mempool": {
			"type": quote(mp.Type), "recheck": strconv.FormatBool(mp.Recheck), "broadcast": strconv.FormatBool(mp.Broadcast),
			"size": strconv.Itoa(mp.Size), "cache_size": strconv.Itoa(mp.CacheSize),
		},
		"p2p": {
			"laddr": quote("tcp://" + p2pAddr), "pex": "false", "addr_book_strict": "false", "allow_duplicate_ip": "true",
		},
		"rpc": {"laddr": quote("tcp://" + rpcAddr)},
	}
	if c.flushThrottle > 0 {
		edits["p2p"]["flush_throttle_timeout"] = d(c.flushThrottle)
	}
	return edits
}

// cometSettings are the CometBFT settings both chains get alike.
type cometSettings struct {
	blockTime time.Duration // timeout_commit
	// flushThrottle, when set, replaces each chain's own
	// p2p.flush_throttle_timeout (Ember's CometBFT v0.38: 100ms; evmd's
	// v0.39 fork writes 10ms), to see how much of a difference it makes.
	flushThrottle time.Duration
}

// portBlock finds n consecutive free ports (freeport.Range), from a
// random base so that other runs on the machine rarely collide with ours.
func portBlock(n int) (int, error) {
	return freeport.Range(n, 10)
}

// tail is the end of a log file, for errors.
func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
