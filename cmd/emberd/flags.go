package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/emberchain/ember/node"
	"github.com/emberchain/ember/rpc"
)

// defaultHome is ~/.emberd.
func defaultHome() string {
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".emberd")
	}
	return ".emberd"
}

// nodeFlags are the flags start and dev share; they override the files.
type nodeFlags struct {
	enable       bool
	address      string
	wsAddress    string
	api          string
	rpcLaddr     string
	p2pLaddr     string
	logLevel     string
	minGas       string
	restOn       bool
	restAddr     string
	grpcOn       bool
	grpcAddr     string
	keyring      string
	explorerOn   bool
	explorerAddr string
	explorerDB   string
	pprof        string
	metricsOn    bool
	metricsAddr  string
	snapEvery    uint64
	snapKeep     int
	pruning      string
	keepRecent   uint64
	pruneEvery   uint64
	httpTimeout  time.Duration
	evmTimeout   time.Duration
}

func (f *nodeFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.BoolVar(&f.enable, "json-rpc.enable", true, "serve the Ethereum JSON-RPC")
	fs.StringVar(&f.address, "json-rpc.address", "", "JSON-RPC HTTP listen address (default from app.toml: 127.0.0.1:8545)")
	fs.StringVar(&f.wsAddress, "json-rpc.ws-address", "", "JSON-RPC WebSocket listen address (default from app.toml: 0.0.0.0:8546)")
	fs.StringVar(&f.api, "json-rpc.api", "", "comma-separated JSON-RPC namespaces to enable (default from app.toml: eth,net,web3)")
	fs.DurationVar(&f.httpTimeout, "json-rpc.http-timeout", 0, "time to read one JSON-RPC HTTP request and to answer it; a method still running then answers -32002 (default from app.toml: 30s)")
	fs.DurationVar(&f.evmTimeout, "json-rpc.evm-timeout", 0, "time limit of one eth_call or eth_simulateV1; 0s = none (default from app.toml: 5s)")
	fs.StringVar(&f.rpcLaddr, "rpc.laddr", "", "CometBFT RPC listen address (default from config.toml: tcp://127.0.0.1:26657)")
	fs.StringVar(&f.p2pLaddr, "p2p.laddr", "", "CometBFT P2P listen address (default from config.toml: tcp://0.0.0.0:26656)")
	fs.BoolVar(&f.restOn, "rest.enable", true, "serve the native (Cosmos-style) REST endpoints")
	fs.StringVar(&f.restAddr, "rest.address", "", "native REST listen address (default from app.toml: 127.0.0.1:1317)")
	fs.BoolVar(&f.grpcOn, "grpc.enable", true, "serve the Cosmos gRPC query services (auth, bank) with reflection (default from app.toml [grpc] enable: true)")
	fs.StringVar(&f.grpcAddr, "grpc.address", "", "gRPC listen address (default from app.toml: 127.0.0.1:9090)")
	fs.BoolVar(&f.explorerOn, "explorer.enable", false, "index the chain and serve the Blockscout-compatible explorer API (default from app.toml [explorer] enable: false)")
	fs.StringVar(&f.explorerAddr, "explorer.address", "", "explorer API listen address (default from app.toml: 127.0.0.1:4000)")
	fs.StringVar(&f.explorerDB, "explorer.db", "", "explorer database: a postgres:// DSN, or empty for SQLite at <home>/data/explorer.db")
	fs.BoolVar(&f.metricsOn, "metrics.enable", false, "serve Prometheus metrics (Ember's ember_* and CometBFT's cometbft_*) at http://ADDRESS/metrics (default from app.toml [metrics] enable: false; on in emberd dev)")
	fs.StringVar(&f.metricsAddr, "metrics.address", "", "Prometheus metrics listen address (default from app.toml: 127.0.0.1:26660, CometBFT's metrics port)")
	fs.Uint64Var(&f.snapEvery, "state-sync.snapshot-interval", 0, "make a state-sync snapshot every N blocks and serve them to joining nodes; 0 = none (default from app.toml [state-sync]: 0; testnet homes 100)")
	fs.IntVar(&f.snapKeep, "state-sync.snapshot-keep-recent", 0, "snapshots kept, the oldest deleted (default from app.toml [state-sync]: 2)")
	fs.StringVar(&f.pruning, "store.pruning", "", "state kept: archive (every block's) or full (the last --store.keep-recent blocks'); blocks, receipts and logs are always kept (default from app.toml [store] pruning: archive)")
	fs.Uint64Var(&f.keepRecent, "store.keep-recent", 0, "full pruning: the states of this many latest blocks are kept, at least 2 (default from app.toml [store] keep-recent: 10000)")
	fs.Uint64Var(&f.pruneEvery, "store.prune-interval", 0, "full pruning: blocks between two sweeps of older states (default from app.toml [store] prune-interval: 1000)")
	fs.StringVar(&f.keyring, "keyring-backend", "", "keyring the node serves to eth_accounts, eth_sign* and personal: test or file (default from app.toml [keyring] backend)")
	fs.StringVar(&f.minGas, "minimum-gas-prices", "", "lowest tip per gas (legacy gas price) admitted, in aember = wei, e.g. 1000000000aember; fixes it: miner_setGasPrice is then ignored (default from app.toml: 0aember)")
	fs.StringVar(&f.pprof, "pprof.address", "", "serve Go's CPU, heap and goroutine profiles at http://ADDRESS/debug/pprof/ (off when empty; keep it on 127.0.0.1)")
	fs.StringVar(&f.logLevel, "log-level", "", "log level: debug, info, warn, error (default from app.toml: info)")
}

func (f *nodeFlags) overrides(cmd *cobra.Command) node.Overrides {
	ov := node.Overrides{
		JSONRPCAddress:   f.address,
		JSONRPCWSAddress: f.wsAddress,
		RPCLaddr:         f.rpcLaddr,
		P2PLaddr:         f.p2pLaddr,
		LogLevel:         f.logLevel,
		MinGasPrices:     f.minGas,
		RESTAddress:      f.restAddr,
		GRPCAddress:      f.grpcAddr,
		KeyringBackend:   f.keyring,
		ExplorerAddress:  f.explorerAddr,
		ExplorerDB:       f.explorerDB,
		MetricsAddress:   f.metricsAddr,
		Pruning:          f.pruning,
	}
	if cmd.Flags().Changed("json-rpc.http-timeout") {
		ov.JSONRPCHTTPTimeout = &f.httpTimeout
	}
	if cmd.Flags().Changed("json-rpc.evm-timeout") {
		ov.JSONRPCEVMTimeout = &f.evmTimeout
	}
	if cmd.Flags().Changed("store.keep-recent") {
		ov.KeepRecent = &f.keepRecent
	}
	if cmd.Flags().Changed("store.prune-interval") {
		ov.PruneInterval = &f.pruneEvery
	}
	if cmd.Flags().Changed("metrics.enable") {
		ov.MetricsEnable = &f.metricsOn
	}
	if cmd.Flags().Changed("state-sync.snapshot-interval") {
		ov.SnapshotInterval = &f.snapEvery
	}
	if cmd.Flags().Changed("state-sync.snapshot-keep-recent") {
		ov.SnapshotKeepRecent = &f.snapKeep
	}
	if cmd.Flags().Changed("explorer.enable") {
		ov.ExplorerEnable = &f.explorerOn
	}
	if cmd.Flags().Changed("rest.enable") {
		ov.RESTEnable = &f.restOn
	}
	if cmd.Flags().Changed("grpc.enable") {
		ov.GRPCEnable = &f.grpcOn
	}
	if cmd.Flags().Changed("json-rpc.enable") {
		ov.JSONRPCEnable = &f.enable
	}
	if f.api != "" {
		ov.JSONRPCAPI = rpc.ParseAPIList(f.api)
	}
	return ov
}
