package homes

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/p2p"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/accounts/keyring"
	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/genutil"
	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/staking"
)

// Testnet defaults.
const (
	// DefaultTestnetChainID is the chain id `emberd testnet init` uses.
	DefaultTestnetChainID = "ember_9000-1"
	// DefaultTestnetBasePort is node0's first port; node i uses the ten
	// ports from BasePort + 10·i (see TestnetPorts).
	DefaultTestnetBasePort = 26600
	// TestnetValidatorPower is each genesis validator's voting power; its
	// self-bond is power × 10^18 aember.
	TestnetValidatorPower = 10
	// DefaultTestnetUnbondingTime is app_state.staking.unbonding_time.
	DefaultTestnetUnbondingTime = "60s"
	// TestnetManifest is the file in the testnet directory that describes
	// its nodes; `testnet start` and `testnet add-node` read it.
	TestnetManifest = "testnet.json"
	// TestnetValidatorKey is the name of a validator's operator key in its
	// home's test keyring.
	TestnetValidatorKey = "validator"
	// testnetPortStride is how many ports each node gets.
	testnetPortStride = 10
	maxTestnetNodes   = 100
)

// TestnetOptions describe a new local network.
type TestnetOptions struct {
	Dir        string
	ChainID    string
	Validators int // at least 1
	FullNodes  int // non-validator nodes that start from the same genesis
	BasePort   int
	// Accounts funded at genesis from the test mnemonic, as `emberd dev`
	// funds them; each validator's operator gets the same Balance.
	Accounts int
	Balance  *big.Int
	Mnemonic string
	// Explorer turns the explorer API on in every home (off by default: each
	// node's port is reserved either way).
	Explorer bool
}

// TestnetPorts are one node's listen ports on 127.0.0.1: BasePort + 10·i +
// the offset in the comment.
type TestnetPorts struct {
	P2P      int `json:"p2p"`         // +0 CometBFT p2p
	RPC      int `json:"rpc"`         // +1 CometBFT RPC
	JSONRPC  int `json:"json_rpc"`    // +2 Ethereum JSON-RPC over HTTP
	WS       int `json:"json_rpc_ws"` // +3 Ethereum JSON-RPC over WebSocket
	REST     int `json:"rest"`        // +4 native REST
	GRPC     int `json:"grpc"`        // +5 gRPC
	Explorer int `json:"explorer"`    // +6 explorer API
}

func testnetPorts(base, i int) TestnetPorts {
	p := base + testnetPortStride*i
	return TestnetPorts{P2P: p, RPC: p + 1, JSONRPC: p + 2, WS: p + 3, REST: p + 4, GRPC: p + 5, Explorer: p + 6}
}

// TestnetNode is one home of a testnet.
type TestnetNode struct {
	Name      string       `json:"name"` // node<i>, also its directory and moniker
	Home      string       `json:"home"` // absolute path
	Validator bool         `json:"validator"`
	NodeID    string       `json:"node_id"`
	Ports     TestnetPorts `json:"ports"`
	// Operator is a validator's operator account (key "validator" in the
	// home's test keyring); zero for a full node.
	Operator    common.Address `json:"operator,omitempty"`
	ConsAddress string         `json:"cons_address,omitempty"` // CometBFT validator address, hex
}

// Peer is the node's id@host:port for persistent_peers.
func (n TestnetNode) Peer() string {
	return fmt.Sprintf("%s@127.0.0.1:%d", n.NodeID, n.Ports.P2P)
}

// Testnet is the manifest of a local network: DIR/testnet.json.
type Testnet struct {
	Dir      string        `json:"dir"`
	ChainID  string        `json:"chain_id"`
	BasePort int           `json:"base_port"`
	Explorer bool          `json:"explorer"`
	Nodes    []TestnetNode `json:"nodes"`
}

// Validators are the validator nodes.
func (tn *Testnet) Validators() []TestnetNode {
	var out []TestnetNode
	for _, n := range tn.Nodes {
		if n.Validator {
			out = append(out, n)
		}
	}
	return out
}

// LoadTestnet reads DIR/testnet.json.
func LoadTestnet(dir string) (*Testnet, error) {
	raw, err := os.ReadFile(filepath.Join(dir, TestnetManifest))
	if err != nil {
		return nil, fmt.Errorf("%s is not a testnet directory (made by `emberd testnet init`): %w", dir, err)
	}
	var tn Testnet
	if err := json.Unmarshal(raw, &tn); err != nil {
		return nil, fmt.Errorf("read %s: %w", TestnetManifest, err)
	}
	if len(tn.Nodes) == 0 {
		return nil, fmt.Errorf("%s lists no nodes", filepath.Join(dir, TestnetManifest))
	}
	return &tn, nil
}

func (tn *Testnet) save() error {
	raw, err := json.MarshalIndent(tn, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tn.Dir, TestnetManifest), append(raw, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(tn.Dir, "README"), []byte(tn.Summary()), 0o644)
}

// Summary is a table of the nodes and their ports, written to DIR/README.
func (tn *Testnet) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ember testnet %s in %s (%d validators, %d nodes)\n", tn.ChainID, tn.Dir, len(tn.Validators()), len(tn.Nodes))
	fmt.Fprintf(&b, "Start all: emberd testnet start %s   (one: emberd start --home %s)\n",
		tn.Dir, filepath.Join(tn.Dir, "node0"))
	fmt.Fprintf(&b, "Every port is on 127.0.0.1. Logs of `testnet start`: <home>/emberd.log.\n\n")
	explorer := "explorer (off)"
	if tn.Explorer {
		explorer = "explorer"
	}
	fmt.Fprintf(&b, "%-7s %-9s %-6s %-13s %-9s %-11s %-6s %-6s %-15s %s\n",
		"node", "role", "p2p", "cometbft-rpc", "json-rpc", "json-rpc-ws", "rest", "grpc", explorer, "node id")
	for _, n := range tn.Nodes {
		role := "full"
		if n.Validator {
			role = "validator"
		}
		p := n.Ports
		fmt.Fprintf(&b, "%-7s %-9s %-6d %-13d %-9d %-11d %-6d %-6d %-15d %s\n",
			n.Name, role, p.P2P, p.RPC, p.JSONRPC, p.WS, p.REST, p.GRPC, p.Explorer, n.NodeID)
	}
	return b.String()
}

// InitTestnet writes the homes of a local network: Validators validator
// homes and FullNodes full-node homes DIR/node0 … sharing one genesis, each
// on its own 127.0.0.1 ports and listing the validators (and the nodes
// before it) as persistent peers.
func InitTestnet(opts TestnetOptions) (*Testnet, error) {
	if opts.ChainID == "" {
		opts.ChainID = DefaultTestnetChainID
	}
	chainID, err := app.ParseChainID(opts.ChainID)
	if err != nil {
		return nil, err
	}
	if opts.Validators < 1 {
		return nil, fmt.Errorf("--validators must be at least 1, got %d", opts.Validators)
	}
	if opts.FullNodes < 0 {
		return nil, fmt.Errorf("--full-nodes must not be negative, got %d", opts.FullNodes)
	}
	if total := opts.Validators + opts.FullNodes; total > maxTestnetNodes {
		return nil, fmt.Errorf("%d nodes: at most %d", total, maxTestnetNodes)
	}
	if opts.BasePort == 0 {
		opts.BasePort = DefaultTestnetBasePort
	}
	if err := checkBasePort(opts.BasePort, opts.Validators+opts.FullNodes); err != nil {
		return nil, err
	}
	if opts.Accounts < 0 {
		return nil, fmt.Errorf("--accounts must not be negative, got %d", opts.Accounts)
	}
	if opts.Balance == nil {
		opts.Balance = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether))
	}
	if opts.Balance.Sign() < 0 {
		return nil, errors.New("--balance must not be negative")
	}
	if opts.Mnemonic == "" {
		opts.Mnemonic = accounts.TestMnemonic
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s exists and is not empty", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	keys, err := accounts.DeriveKeys(opts.Mnemonic, opts.Accounts)
	if err != nil {
		return nil, err
	}
	alloc := types.GenesisAlloc{}
	for _, k := range keys {
		alloc[k.Address] = types.Account{Balance: new(big.Int).Set(opts.Balance)}
	}

	tn := &Testnet{Dir: dir, ChainID: opts.ChainID, BasePort: opts.BasePort, Explorer: opts.Explorer}
	operators := map[string]*ecdsa.PrivateKey{}
	// Keys first: every config.toml lists the others' node ids.
	for i := 0; i < opts.Validators+opts.FullNodes; i++ {
		n := TestnetNode{Name: fmt.Sprintf("node%d", i), Home: filepath.Join(dir, fmt.Sprintf("node%d", i)),
			Validator: i < opts.Validators, Ports: testnetPorts(opts.BasePort, i)}
		cc := testnetCometConfig(n)
		pub, err := newHomeKeys(cc)
		if err != nil {
			return nil, err
		}
		nk, err := p2p.LoadNodeKey(cc.NodeKeyFile())
		if err != nil {
			return nil, err
		}
		n.NodeID = string(nk.ID())
		if n.Validator {
			op, err := testnetOperatorKey(n.Home)
			if err != nil {
				return nil, fmt.Errorf("%s: operator key: %w", n.Name, err)
			}
			operators[n.Name] = op
			n.Operator = crypto.PubkeyToAddress(op.PublicKey)
			n.ConsAddress = pub.Address().String()
		}
		tn.Nodes = append(tn.Nodes, n)
	}
	genesis, err := tn.genesisFromGentxs(chainID, alloc, opts.Balance, operators)
	if err != nil {
		return nil, err
	}
	for _, n := range tn.Nodes {
		if err := tn.writeHome(n, genesis); err != nil {
			return nil, err
		}
	}
	return tn, tn.save()
}

// testnetOperatorKey makes a validator's operator key, stored in its home's
// test keyring as TestnetValidatorKey.
func testnetOperatorKey(home string) (*ecdsa.PrivateKey, error) {
	op, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	kr, err := keyring.Open(home, keyring.Test)
	if err != nil {
		return nil, err
	}
	if _, err := kr.Add(TestnetValidatorKey, op, ""); err != nil {
		return nil, err
	}
	return op, nil
}

// genesisFromGentxs makes the testnet's genesis the way independent
// operators make one (docs/cli.md, "Forming a network"): a genesis funding
// alloc, each operator added with balance plus its self-bond (so that it
// holds balance once bonded), a gentx per validator home, and the gentxs
// collected in node0's home. It returns the genesis file's bytes.
func (tn *Testnet) genesisFromGentxs(chainID *big.Int, alloc types.GenesisAlloc, balance *big.Int, operators map[string]*ecdsa.PrivateKey) ([]byte, error) {
	appState, err := json.MarshalIndent(app.NewAppState(app.GenesisParams{
		ChainID: chainID, Alloc: alloc, Staking: &staking.GenesisState{UnbondingTime: DefaultTestnetUnbondingTime},
	}), "", "  ")
	if err != nil {
		return nil, err
	}
	node0 := tn.Nodes[0].Home
	path := filepath.Join(node0, "config", "genesis.json")
	if err := saveGenesis(path, tn.ChainID, appState, nil); err != nil {
		return nil, err
	}
	gf, err := LoadGenesis(path)
	if err != nil {
		return nil, err
	}
	tokens := new(big.Int).Mul(big.NewInt(TestnetValidatorPower), big.NewInt(params.Ether))
	vals := tn.Validators()
	for _, n := range vals {
		if err := gf.AddAccount(n.Operator, new(big.Int).Add(balance, tokens)); err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
	}
	if err := gf.Save(); err != nil {
		return nil, err
	}
	base, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for _, n := range vals {
		if err := os.WriteFile(filepath.Join(n.Home, "config", "genesis.json"), base, 0o644); err != nil {
			return nil, err
		}
		_, _, err := Gentx(GentxOptions{Home: n.Home, Key: operators[n.Name], Amount: tokens, ChainID: tn.ChainID, Moniker: n.Name,
			Commission: genutil.DefaultCommission, IP: "127.0.0.1", P2PPort: n.Ports.P2P,
			Output: filepath.Join(node0, "config", "gentx", "gentx-"+n.NodeID+".json")})
		if err != nil {
			return nil, fmt.Errorf("%s: gentx: %w", n.Name, err)
		}
	}
	if _, err := CollectGentxs(node0, ""); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// AddTestnetNode adds a full (non-validator) node home to an existing
// testnet: the same genesis, the next ports, every validator as a
// persistent peer. Started, it block-syncs from genesis.
func AddTestnetNode(dir string) (*TestnetNode, error) {
	tn, err := LoadTestnet(dir)
	if err != nil {
		return nil, err
	}
	i := len(tn.Nodes)
	if i >= maxTestnetNodes {
		return nil, fmt.Errorf("the testnet has %d nodes: at most %d", i, maxTestnetNodes)
	}
	if err := checkBasePort(tn.BasePort, i+1); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(tn.Nodes[0].Home, "config", "genesis.json"))
	if err != nil {
		return nil, err
	}
	n := TestnetNode{Name: fmt.Sprintf("node%d", i), Home: filepath.Join(tn.Dir, fmt.Sprintf("node%d", i)), Ports: testnetPorts(tn.BasePort, i)}
	if _, err := os.Stat(n.Home); err == nil {
		return nil, fmt.Errorf("%s exists already", n.Home)
	}
	cc := testnetCometConfig(n)
	if _, err := newHomeKeys(cc); err != nil {
		return nil, err
	}
	nk, err := p2p.LoadNodeKey(cc.NodeKeyFile())
	if err != nil {
		return nil, err
	}
	n.NodeID = string(nk.ID())
	tn.Nodes = append(tn.Nodes, n)
	if err := tn.writeHome(n, raw); err != nil {
		return nil, err
	}
	return &n, tn.save()
}

func checkBasePort(base, nodes int) error {
	if last := base + testnetPortStride*nodes - 1; base < 1024 || last > 65535 {
		return fmt.Errorf("--base-port %d: %d nodes need ports %d-%d, within 1024-65535", base, nodes, base, last)
	}
	return nil
}

// writeHome writes n's config.toml (with its peers), genesis and app.toml.
func (tn *Testnet) writeHome(n TestnetNode, genesis []byte) error {
	cc := testnetCometConfig(n)
	var peers []string
	for _, p := range tn.Nodes {
		// Validators dial each other; a full node dials the validators.
		if p.Name != n.Name && p.Validator {
			peers = append(peers, p.Peer())
		}
	}
	cc.P2P.PersistentPeers = strings.Join(peers, ",")
	cmtcfg.WriteConfigFile(filepath.Join(n.Home, "config", "config.toml"), cc)
	if err := os.WriteFile(cc.GenesisFile(), genesis, 0o644); err != nil {
		return err
	}
	cfg := config.Default()
	cfg.JSONRPC.Address = fmt.Sprintf("127.0.0.1:%d", n.Ports.JSONRPC)
	cfg.JSONRPC.WSAddress = fmt.Sprintf("127.0.0.1:%d", n.Ports.WS)
	cfg.JSONRPC.API = []string{"eth", "net", "web3", "txpool", "debug"}
	cfg.REST.Address = fmt.Sprintf("127.0.0.1:%d", n.Ports.REST)
	cfg.GRPC.Address = fmt.Sprintf("127.0.0.1:%d", n.Ports.GRPC)
	cfg.Explorer.Enable = tn.Explorer
	cfg.Explorer.Address = fmt.Sprintf("127.0.0.1:%d", n.Ports.Explorer)
	cfg.Keyring.Backend = string(keyring.Test)
	cfg.StateSync.SnapshotInterval = config.TestnetSnapshotInterval // nodes can join by state sync (testnet_statesync.go)
	return writeAppFiles(n.Home, cfg)
}

// testnetCometConfig is CometBFT's configuration of a testnet home: every
// address on 127.0.0.1, peers found through persistent_peers (no PEX),
// several nodes per IP, the kv tx indexer, and timeouts fast enough for
// tests yet safe for several validators on one machine. Empty blocks are
// made, so heights advance while idle.
func testnetCometConfig(n TestnetNode) *cmtcfg.Config {
	cc := cmtcfg.DefaultConfig().SetRoot(n.Home)
	cc.Moniker = n.Name
	cc.P2P.ListenAddress = fmt.Sprintf("tcp://127.0.0.1:%d", n.Ports.P2P)
	cc.P2P.ExternalAddress = ""
	cc.P2P.AddrBookStrict = false
	cc.P2P.AllowDuplicateIP = true
	cc.P2P.PexReactor = false
	cc.RPC.ListenAddress = fmt.Sprintf("tcp://127.0.0.1:%d", n.Ports.RPC)
	cc.TxIndex.Indexer = "kv"
	cc.Consensus.TimeoutPropose = time.Second
	cc.Consensus.TimeoutProposeDelta = 200 * time.Millisecond
	cc.Consensus.TimeoutPrevote = 500 * time.Millisecond
	cc.Consensus.TimeoutPrevoteDelta = 200 * time.Millisecond
	cc.Consensus.TimeoutPrecommit = 500 * time.Millisecond
	cc.Consensus.TimeoutPrecommitDelta = 200 * time.Millisecond
	cc.Consensus.TimeoutCommit = 500 * time.Millisecond
	cc.Consensus.SkipTimeoutCommit = false
	cc.Consensus.CreateEmptyBlocks = true
	cc.Consensus.CreateEmptyBlocksInterval = 0
	cc.Consensus.PeerGossipSleepDuration = 20 * time.Millisecond
	return cc
}
