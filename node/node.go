// Package node starts and stops everything one emberd process runs: the
// store, the ABCI application, CometBFT in-process (consensus, p2p, mempool,
// block store, its RPC) and Ember's JSON-RPC server.
package node

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	cmtcfg "github.com/cometbft/cometbft/config"
	cmtlog "github.com/cometbft/cometbft/libs/log"
	cmtnode "github.com/cometbft/cometbft/node"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/proxy"
	"github.com/cometbft/cometbft/rpc/client/local"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/cosmosapi"
	"github.com/emberchain/ember/explorer/nodesource"
	explorer "github.com/emberchain/ember/explorer/service"
	"github.com/emberchain/ember/grpcapi"
	"github.com/emberchain/ember/httpserve"
	"github.com/emberchain/ember/metrics"
	"github.com/emberchain/ember/node/backend"
	"github.com/emberchain/ember/node/cometstore"
	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/node/homes"
	"github.com/emberchain/ember/rest"
	"github.com/emberchain/ember/rpc"
	"github.com/emberchain/ember/rpc/anvil"
	"github.com/emberchain/ember/rpc/debug"
	"github.com/emberchain/ember/rpc/eth"
	"github.com/emberchain/ember/rpc/filters"
	"github.com/emberchain/ember/rpc/miner"
	"github.com/emberchain/ember/rpc/netapi"
	"github.com/emberchain/ember/rpc/personal"
	txpoolapi "github.com/emberchain/ember/rpc/txpool"
	"github.com/emberchain/ember/rpc/web3"
	"github.com/emberchain/ember/snapshot"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
	"github.com/emberchain/ember/txpool/journal"
)

// Node is one running emberd.
type Node struct {
	home    string
	cfg     config.Config
	cmtCfg  *cmtcfg.Config
	genesis *cmttypes.GenesisDoc
	state   *app.AppState
	log     *slog.Logger

	store  *store.Store
	pool   *txpool.Pool
	app    *app.App
	events *filters.Events
	// cmt is the in-process CometBFT node; a dev chain's evm_revert
	// replaces it (revert.go), so it is read through comet().
	cmt         atomic.Pointer[cmtnode.Node]
	cmtStart    cometStart                  // what starts it (again)
	local       atomic.Pointer[local.Local] // its RPC as a client, for the Cosmos services
	revertMu    sync.Mutex                  // one evm_revert at a time (revert.go)
	cmtDBs      cometstore.DBs              // its databases, open until Stop
	rpc         *rpc.Server
	rest        *httpserve.Server
	grpc        *grpcapi.Server   // nil unless [grpc] enable
	cosmos      backend.Cosmos    // what the Cosmos services read
	services    *cosmosapi.Router // the Cosmos services by method path (abci_query, REST)
	explorer    *explorer.Service // nil unless [explorer] enable
	exSource    *nodesource.NodeSource
	filters     *filters.API
	ethAPI      *eth.API
	keys        *backend.Keys // the keyring eth_accounts, eth_sign* and personal serve
	devAPI      *anvil.API    // anvil_/hardhat_/evm_ on a development chain (dev.go)
	answerMined bool          // emberd dev: sends answer once mined (AnswerSendsMined)

	coinbase common.Address // this node's validator's reward address
	// startHead is the app's head when CometBFT started: where a block sync
	// (eth_syncing's startingBlock) begins.
	startHead uint64

	mempool *mempoolWorker // CometBFT mempool changes the app asks for
	pvDone  func()         // frees the validator's tmpfs state (see cometstore.LoadValidator)
	walDone func()         // frees the tmpfs consensus WAL (see cometstore.TmpfsWAL)

	journal     *journal.Journal // accepted transactions, admitted again at start (journal.go)
	journalStop func()           // ends the journal's rotation
	journalOnce sync.Once        // stopJournal's work, once
	stopOnce    sync.Once        // Stop's work, once
	minGasFixed bool             // --minimum-gas-prices was given: miner_setGasPrice changes nothing

	metrics     *metrics.Metrics // nil unless [metrics] enable (metrics.go)
	metricsSrv  *httpserve.Server
	metricsStop func() // ends the database size sampling

	snapshots *snapshot.Manager // nil unless [state-sync] snapshot-interval > 0 (statesync.go)

	halt   *failStop // a failed write stops the node (failstop.go)
	halter halter    // the app's halt: an upgrade plan or the halt height (upgrade.go)
}

// New loads the home's configuration (the files, with ov over them) and
// genesis and opens the store.
func New(home string, ov config.Overrides) (*Node, error) {
	if !homes.Initialized(home) {
		return nil, fmt.Errorf("%s: %w", home, homes.ErrNotInitialized)
	}
	cfg, err := config.Load(home)
	if err != nil {
		return nil, err
	}
	cmtCfg, err := config.LoadComet(home)
	if err != nil {
		return nil, err
	}
	ov.Apply(&cfg, cmtCfg)
	if err := checkMempoolConfig(cmtCfg); err != nil {
		return nil, err
	}
	minTip, err := config.ParseMinGasPrices(cfg.MinGasPrices)
	if err != nil {
		return nil, err
	}
	log, err := NewLogger(os.Stderr, cfg.Log.Level, cfg.Log.Format)
	if err != nil {
		return nil, err
	}
	doc, err := cmttypes.GenesisDocFromFile(cmtCfg.GenesisFile())
	if err != nil {
		return nil, err
	}
	appState, err := app.ParseAppState(doc.AppState, doc.ChainID)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(filepath.Join(home, "data", "ember"), appState.EVM.Config, store.Options{CacheMB: cfg.Store.CacheMB, TrieCacheMB: cfg.Store.TrieCacheMB, NoSync: !cfg.Store.Sync,
		Preimages: appState.Dev, Prune: cfg.Store.PruneOptions(), Log: log.With("module", "store")})
	if err != nil {
		return nil, err
	}
	ks, err := backend.OpenKeys(home, cfg.Keyring.Backend)
	if err != nil {
		return nil, err
	}
	pool := txpool.New(cfg.TxPool.Pool())
	n := &Node{
		home: home, cfg: cfg, cmtCfg: cmtCfg, genesis: doc, state: appState, log: log,
		store: st, pool: pool, keys: ks, halt: newFailStop(),
		app:    app.New(st, pool, appState, log.With("module", "app")),
		events: filters.NewEvents(),
	}
	n.app.SetMinTip(minTip)
	n.app.SetChainID(doc.ChainID)
	n.minGasFixed = ov.Given("minimum-gas-prices")
	n.app.OnCommit(n.events.PublishBlock)
	n.app.OnPendingTx(n.events.PublishPending)
	n.setupUpgrade() // upgrade.go
	if cfg.Metrics.Enable {
		n.metrics = n.newMetrics()
		n.app.OnCommit(n.onCommitMetrics)
	}
	if err := n.checkStateSync(); err != nil {
		st.Close()
		return nil, err
	}
	if err := n.openSnapshots(); err != nil {
		st.Close()
		return nil, err
	}
	return n, nil
}

// Start runs CometBFT (which replays any blocks the store lacks) and then
// the JSON-RPC server. A start that fails stops what it had started, so its
// ports, databases and locks are free again when it returns.
func (n *Node) Start() (err error) {
	defer func() {
		if err != nil {
			n.Stop()
		}
	}()
	cmtLog, err := newCometLogger(n.log, n.cfg.Log.CometBFTLevel, n.failedCometLog)
	if err != nil {
		return err
	}
	nodeKey, err := p2p.LoadNodeKey(n.cmtCfg.NodeKeyFile())
	if err != nil {
		return fmt.Errorf("load node key: %w", err)
	}
	pv, pvDone, err := cometstore.LoadValidator(n.cmtCfg, n.cfg.Validator.SyncState)
	if err != nil {
		return fmt.Errorf("load validator: %w", err)
	}
	n.pvDone = pvDone
	if !n.cfg.Store.Sync {
		if n.walDone, err = cometstore.TmpfsWAL(n.cmtCfg, int64(n.headNumber()), n.log); err != nil {
			return err
		}
	}
	pub, err := pv.GetPubKey()
	if err != nil {
		return fmt.Errorf("load validator: %w", err)
	}
	n.coinbase = n.app.RewardAddress(pub.Address())
	if n.admitsLocally(pub) { // mempool.go
		n.app.AdmitLocally()
	}
	n.cmtStart = cometStart{pv: pv, nodeKey: nodeKey, log: cmtLog}
	if err := n.checkUpgrade(); err != nil { // upgrade.go
		return err
	}
	cmt, err := n.newComet() // its handshake writes the genesis or replays blocks
	if err != nil {
		return err
	}
	defer func() {
		if err != nil && !cmt.IsRunning() {
			// Made, or started only in part (its RPC listens before its P2P):
			// Stop would not reach it, so close its listeners and stores here.
			cmt.OnStop()
		}
	}()
	if err := n.startExplorer(); err != nil {
		return err
	}
	n.store.SetPruneHold(n.pruneHold)
	n.store.StartPruning()       // after the explorer started: the first sweep may run at once
	n.startHead = n.headNumber() // none yet when state-syncing
	n.cosmos = backend.NewCosmos(n.chain(), n.local.Load)
	n.services = cosmosapi.NewRouter(func() int64 { return int64(n.headNumber()) })
	cosmosapi.Register(n.services, n.cosmos)
	n.app.SetServiceQuery(n.services.ABCIQuery)
	if err := n.startComet(cmt); err != nil {
		return err
	}
	n.awaitState() // statesync.go
	if err := n.startJournal(); err != nil {
		return err
	}
	if n.cfg.JSONRPC.Enable {
		if err := n.startRPC(); err != nil {
			return err
		}
	}
	if n.cfg.REST.Enable {
		srv, err := rest.Start(n.cfg.REST.Address, n.services, n.log.With("module", "rest"))
		if err != nil {
			return err
		}
		n.rest = srv
	}
	if n.cfg.GRPC.Enable {
		srv, err := grpcapi.Start(n.cfg.GRPC.Address, n.cosmos, n.log.With("module", "grpc"))
		if err != nil {
			return err
		}
		n.grpc = srv
	}
	if err := n.startMetrics(); err != nil {
		return err
	}
	head := n.store.Head()
	n.log.Info("node started", "chain", n.genesis.ChainID, "height", head.Number, "hash", head.Hash(),
		"cometbft_rpc", n.cmtCfg.RPC.ListenAddress)
	return nil
}

func (n *Node) startRPC() error {
	b := backend.New(n.chain(), backend.Options{
		Coinbase: n.coinbase, StartHead: n.startHead, Home: n.home, MinGasPinned: n.minGasFixed,
		Sent: n.journalTx, Log: n.log, AnswerMined: n.answerMined,
	})
	c := n.cfg.JSONRPC
	n.filters = filters.NewAPI(b, filters.Config{
		BlockRangeCap: c.BlockRangeCap, LogsCap: c.LogsCap, FilterCap: c.FilterCap, FilterTimeout: c.FilterTimeout.Std(),
		SubscriptionCap: c.SubscriptionCap, NotificationQueue: c.NotificationQueue,
	}, n.events, func(remote string) {
		if n.rpc != nil {
			n.rpc.Disconnect(remote)
		}
	})
	ethCfg := eth.Config{
		GasCap: c.GasCap, EVMTimeout: c.EVMTimeout.Std(), TxFeeCap: c.TxFeeCap,
		AllowUnprotectedTxs: c.AllowUnprotectedTxs,
	}
	sender := eth.NewTxSender(b, ethCfg) // one nonce lock per account for eth and personal
	web3API := web3.NewAPI(app.Version, n.app.Dev() && c.DevClientVersion)
	ethAPI := eth.NewAPI(b, ethCfg, n.keys, sender)
	n.ethAPI = ethAPI
	namespaces := []rpc.Namespace{
		{Name: "eth", Service: n.filters},
		{Name: "eth", Service: ethAPI},
		{Name: "personal", Service: personal.NewAPI(n.keys, sender, n.log.With("module", "personal"))},
		{Name: "txpool", Service: txpoolapi.NewAPI(b)},
		{Name: "miner", Service: miner.NewAPI(b)},
		{Name: "net", Service: netapi.NewAPI(b, n.state.EVM.Config.ChainID)},
		{Name: "web3", Service: web3API},
		{Name: "debug", Service: debug.NewAPI(backend.NewTracer(n.chain(), c.GasCap), b, debug.Config{
			MaxTimeout: c.TraceMaxTimeout.Std(), Concurrency: c.TraceConcurrency,
		})},
	}
	if dev := n.devNamespaces(b, ethAPI, web3API.ClientVersion()); dev != nil { // dev.go
		namespaces = append(namespaces, dev...)
		c.API = append(slices.Clip(c.API), config.DevNamespaces...)
	}
	auth, err := n.rpcAuth()
	if err != nil {
		return err
	}
	srv, err := rpc.NewServer(c, namespaces, auth, n.log.With("module", "json-rpc"))
	if err != nil {
		return err
	}
	if n.metrics != nil {
		// Before Start: the serving goroutines read the observer unlocked.
		srv.Observe(n.metrics.NewRPC(srv.MethodNames()))
	}
	srv.SetReadiness(n.Readiness) // health.go
	if err := srv.Start(); err != nil {
		return err
	}
	n.rpc = srv
	return nil
}

// cometStart is what starting CometBFT takes beside the configuration.
type cometStart struct {
	pv      cmttypes.PrivValidator
	nodeKey *p2p.NodeKey
	log     cmtlog.Logger
}

// newComet creates the in-process CometBFT node on the stores as they
// are; its handshake with the app replays the blocks the app lacks.
func (n *Node) newComet() (*cmtnode.Node, error) {
	cs := n.cmtStart
	cmt, err := cmtnode.NewNode(n.cmtCfg, cs.pv, cs.nodeKey,
		// One mutex per ABCI connection, not one for all: CheckTx (mempool
		// connection) runs while FinalizeBlock (consensus) executes a block;
		// the app locks its own state (see app.App).
		proxy.NewConnSyncLocalClientCreator(n.abciApp()),
		func() (*cmttypes.GenesisDoc, error) { return n.genesis, nil },
		n.cometDBProvider(),
		n.cometMetrics(),
		cs.log,
	)
	if err != nil {
		return nil, fmt.Errorf("create CometBFT node: %w", err)
	}
	return cmt, nil
}

// startComet starts cmt with its mempool wired to the app's pool.
func (n *Node) startComet(cmt *cmtnode.Node) error {
	n.local.Store(local.New(cmt))
	n.startMempoolWorker(cmt.Mempool())
	if err := cmt.Start(); err != nil {
		n.mempool.stop()
		n.mempool = nil
		return fmt.Errorf("start CometBFT: %w", err)
	}
	n.cmt.Store(cmt)
	return nil
}

// stopComet stops CometBFT and the mempool worker feeding it; it closes
// CometBFT's databases.
func (n *Node) stopComet() {
	if n.mempool != nil {
		n.mempool.stop()
		n.mempool = nil
	}
	if cmt := n.comet(); cmt != nil && cmt.IsRunning() {
		if err := cmt.Stop(); err != nil {
			n.log.Error("stop CometBFT", "err", err)
		}
		cmt.Wait()
	}
}

// cometDBProvider opens CometBFT's databases once for the process, as
// [store] sync says; a failed write to one halts the node (failstop.go).
func (n *Node) cometDBProvider() cmtcfg.DBProvider {
	return n.cmtDBs.Provider(cometstore.WatchWrites(cometstore.DBProvider(n.cfg.Store.Sync), n.fail))
}

// chain is what the backends read.
func (n *Node) chain() backend.Chain {
	return backend.Chain{Store: n.store, Pool: n.pool, App: n.app, State: n.state, Comet: n.comet, Halted: n.halted}
}

// comet is the running CometBFT node (nil before Start).
func (n *Node) comet() *cmtnode.Node { return n.cmt.Load() }

// Stop shuts down the JSON-RPC server, CometBFT and the store, in that order.
// Only the first call does anything: a failed Start has already stopped.
func (n *Node) Stop() { n.stopOnce.Do(n.stop) }

func (n *Node) stop() {
	n.stopMetrics()
	if n.rpc != nil {
		n.rpc.Stop()
	}
	if n.rest != nil {
		n.rest.Stop()
	}
	if n.grpc != nil {
		n.grpc.Stop()
	}
	if n.filters != nil {
		n.filters.Close()
	}
	if n.devAPI != nil {
		n.devAPI.Close()
	}
	n.stopJournal()    // no client adds to the pool any more
	n.awaitHaltComet() // failstop.go
	n.stopComet()
	n.cmtDBs.CloseAll()
	if n.pvDone != nil {
		n.pvDone()
	}
	if n.walDone != nil {
		n.walDone()
	}
	if n.explorer != nil {
		n.explorer.Stop() // after CometBFT: no more commits to index
	}
	if n.snapshots != nil {
		n.snapshots.Close() // a snapshot being made is abandoned
	}
	if err := n.store.Close(); err != nil {
		n.log.Error("close store", "err", err)
	}
}

// startExplorer starts indexing and serving the explorer API when enabled.
// It runs before CometBFT so that no commit is missed; blocks committed
// while it was off are caught up from the store.
func (n *Node) startExplorer() error {
	if !n.cfg.Explorer.Enable {
		return nil
	}
	src := nodesource.NewNodeSource(n.store, n.pool.Content)
	src.SetTracer(backend.NewExplorerTracer(n.chain()))
	src.SetNative(n.state.Bech32Prefix, n.state.Denom)
	src.SetBusy(func() bool { pending, _ := n.pool.Stats(); return pending > 0 })
	n.app.CaptureInternalCalls(true) // internal transactions, stored with each block
	n.app.OnCommit(src.Committed)
	cfg := n.cfg.Explorer
	if n.cfg.JSONRPC.Enable {
		cfg.JSONRPCURL = "http://" + n.cfg.JSONRPC.Address
	}
	cfg.Chain = explorer.Chain(n.genesis.ChainID, n.state.Denom, n.cmtCfg.RPC.ListenAddress, n.cfg.REST.Enable, n.cfg.REST.Address)
	svc, err := explorer.Start(cfg, n.home, src, n.state.Bech32Prefix, n.log.With("module", "explorer"))
	if err != nil {
		return fmt.Errorf("start explorer: %w", err)
	}
	n.explorer, n.exSource = svc, src
	return nil
}

// pruneHold is the lowest height whose state a reader in this process still
// needs, which a pruning sweep keeps however far behind the head it is: the
// indexer's next block (the balances before and after it) and the height of
// a state-sync snapshot being made.
func (n *Node) pruneHold() (uint64, bool) {
	hold, held := uint64(0), false
	if n.explorer != nil {
		held = true // nothing indexed yet: it starts from genesis
		if indexed, _, ok := n.explorer.Status(); ok {
			hold = indexed
		}
	}
	if n.snapshots != nil {
		if h, ok := n.snapshots.Making(); ok && (!held || h < hold) {
			hold, held = h, true
		}
	}
	return hold, held
}

// RESTAddr is the bound REST address, or "" when disabled.
func (n *Node) RESTAddr() string {
	if n.rest == nil {
		return ""
	}
	return n.rest.Addr().String()
}

// JSONRPCAddr is the bound JSON-RPC HTTP address, or "" when disabled.
func (n *Node) JSONRPCAddr() string {
	if n.rpc == nil {
		return ""
	}
	return n.rpc.Addr("http").String()
}

// Genesis is the CometBFT genesis document.
func (n *Node) Genesis() *cmttypes.GenesisDoc { return n.genesis }

// AppState is the parsed genesis app state.
func (n *Node) AppState() *app.AppState { return n.state }

// CometConfig is the effective CometBFT configuration.
func (n *Node) CometConfig() *cmtcfg.Config { return n.cmtCfg }

// Config is the effective Ember configuration.
func (n *Node) Config() config.Config { return n.cfg }
