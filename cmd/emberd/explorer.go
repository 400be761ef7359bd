package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/indexer"
	"github.com/emberchain/ember/explorer/rpcsource"
	"github.com/emberchain/ember/explorer/service"
	"github.com/emberchain/ember/explorer/sqlstore"
	"github.com/emberchain/ember/node"
)

// explorerCmd runs the explorer alone, following another node (any
// Ethereum JSON-RPC endpoint) instead of this process's chain.
func explorerCmd() *cobra.Command {
	var (
		home, rpcURL, cometURL, db, addr, prefix, logLevel string
		ipfsGateway, genesisFile                           string
		solc                                               string
	)
	cmd := &cobra.Command{
		Use:   "explorer --rpc URL",
		Short: "Index any Ethereum JSON-RPC endpoint and serve the Blockscout-compatible explorer API",
		Long: `Index the chain behind an Ethereum JSON-RPC endpoint (an Ember node, geth, anvil, …) and
serve the same Blockscout v2 API as 'emberd start --explorer.enable'. Blocks and
transactions come from eth_getBlockByNumber, receipts from eth_getBlockReceipts
(eth_getTransactionReceipt where it is missing), balances from eth_getBalance at
each block. A ws:// URL is followed with a newHeads subscription; an http:// URL
is polled every second. The index resumes where it stopped.

Native (Cosmos) transactions of an Ember chain are in its CometBFT blocks, not
in the EVM blocks: give the node's CometBFT RPC with --comet (e.g.
http://127.0.0.1:26657) to index them too (block and block_results of each
height); without it only EVM transactions are indexed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rpcURL == "" {
				return errors.New("--rpc is required: the JSON-RPC endpoint to index, e.g. http://127.0.0.1:8545")
			}
			log, err := node.NewLogger(os.Stderr, logLevel, "text")
			if err != nil {
				return err
			}
			var genesis []common.Address
			if genesisFile != "" {
				if genesis, err = genesisAccounts(genesisFile); err != nil {
					return err
				}
			}
			if !cmd.Flags().Changed("bech32-prefix") {
				prefix = "" // the chain's own, from --comet's genesis, else the default
			}
			return runExplorer(rpcURL, cometURL, service.Config{Enable: true, Address: addr, DB: db, IPFSGateway: ipfsGateway, Solc: solc}, home, prefix, genesis, log)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&rpcURL, "rpc", "", "JSON-RPC endpoint to index: http(s):// (polled) or ws(s):// (newHeads subscription)")
	fs.StringVar(&cometURL, "comet", "", "CometBFT RPC of the same chain (an Ember node's --rpc.laddr, e.g. http://127.0.0.1:26657): its native (Cosmos) transactions are indexed too; empty = EVM transactions only")
	fs.StringVar(&home, "home", defaultHome(), "directory of the default SQLite database (<home>/data/explorer.db)")
	fs.StringVar(&db, "explorer.db", "", "explorer database: a postgres:// DSN, or empty for SQLite at <home>/data/explorer.db")
	fs.StringVar(&addr, "explorer.address", service.DefaultConfig().Address, "explorer API listen address")
	fs.StringVar(&solc, "explorer.solc", "", "solc (or solcjs) binary contract verification compiles with for partial matches; empty = metadata full matches only")
	fs.StringVar(&ipfsGateway, "explorer.ipfs-gateway", indexer.DefaultIPFSGateway, "HTTP gateway NFT metadata at ipfs:// URIs is fetched through")
	fs.StringVar(&prefix, "bech32-prefix", app.DefaultPrefix, "bech32 prefix of the chain's addresses, accepted by search and address endpoints (default: the genesis' with --comet)")
	fs.StringVar(&genesisFile, "genesis", "", "the chain's genesis file (Ember/CometBFT genesis.json or a go-ethereum genesis with alloc): its funded accounts are indexed at block 0")
	fs.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	return cmd
}

// runExplorer indexes and serves until SIGINT or SIGTERM.
func runExplorer(rpcURL, cometURL string, cfg service.Config, home, prefix string, genesis []common.Address, log *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	src, err := rpcsource.Dial(ctx, rpcURL, log.With("module", "rpcsource"))
	if err != nil {
		return err
	}
	defer src.Close()
	src.SetGenesisAccounts(genesis)
	switch {
	case cometURL != "":
		if err := src.DialComet(ctx, cometURL); err != nil {
			return err
		}
	case src.Ember():
		// JSON-RPC does not say where the node's CometBFT RPC listens.
		log.Warn("native (Cosmos) transactions are not indexed: give the node's CometBFT RPC with --comet, e.g. http://127.0.0.1:26657")
	}
	if prefix == "" {
		if prefix = src.Bech32Prefix(); prefix == "" {
			prefix = app.DefaultPrefix
		}
	}
	if cfg.DB == "" {
		cfg.DB = filepath.Join(home, "data", "explorer.db")
	}
	if err := sameChain(ctx, cfg.DB, src); err != nil {
		return err
	}
	if u, err := url.Parse(rpcURL); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		cfg.JSONRPCURL = rpcURL // what /config/json-rpc-url tells wallets
	}
	svc, err := service.Start(cfg, home, src, prefix, log.With("module", "explorer"))
	if err != nil {
		return fmt.Errorf("start explorer: %w", err)
	}
	log.Info("explorer indexing", "rpc", src.URL(), "pages", "http://"+svc.Addr()+"/", "api", "http://"+svc.Addr()+"/api/v2/", "db", dbLabel(cfg.DB))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	svc.Stop()
	return nil
}

// genesisAccounts reads the accounts a genesis file funds: an Ember
// (CometBFT) genesis.json — its allocation plus the app's system accounts —
// or a go-ethereum genesis ({"alloc": …}).
func genesisAccounts(path string) ([]common.Address, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--genesis: %w", err)
	}
	var doc struct {
		ChainID  string             `json:"chain_id"`
		AppState json.RawMessage    `json:"app_state"`
		Alloc    types.GenesisAlloc `json:"alloc"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("--genesis %s: %w", path, err)
	}
	alloc := doc.Alloc
	if len(doc.AppState) > 0 {
		gs, err := app.ParseAppState(doc.AppState, doc.ChainID)
		if err != nil {
			return nil, fmt.Errorf("--genesis %s: %w", path, err)
		}
		alloc = gs.EVM.Alloc
		// The app funds some accounts of its own at genesis (the bonded
		// pool); the indexer keeps those holding a balance at block 0.
		for _, a := range app.SystemAccounts() {
			if _, ok := alloc[a]; !ok {
				alloc[a] = types.Account{}
			}
		}
	}
	if alloc == nil {
		return nil, fmt.Errorf("--genesis %s: neither app_state (Ember genesis) nor alloc (go-ethereum genesis) found", path)
	}
	out := make([]common.Address, 0, len(alloc))
	for a := range alloc {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Cmp(out[j]) < 0 })
	return out, nil
}

// sameChain refuses a database that already indexes another chain: its
// genesis block must be the endpoint's, or the two would be mixed.
func sameChain(ctx context.Context, dsn string, src *rpcsource.Source) error {
	st, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	stored, err := st.Block(ctx, 0)
	if errors.Is(err, explorer.ErrNotFound) {
		return nil // a new database
	}
	if err != nil {
		return fmt.Errorf("explorer database: read genesis: %w", err)
	}
	genesis, err := src.Block(ctx, 0)
	if err != nil {
		return fmt.Errorf("%s: genesis block: %w", src.URL(), err)
	}
	if genesis.Block.Hash() != stored.Hash {
		return fmt.Errorf("explorer database %s indexes the chain with genesis %s, but %s serves genesis %s: use another --explorer.db",
			dbLabel(dsn), stored.Hash.Hex(), src.URL(), genesis.Block.Hash().Hex())
	}
	return nil
}

// dbLabel names a database in messages without its password.
func dbLabel(dsn string) string {
	if !sqlstore.IsPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "(unparsable DSN)"
	}
	return u.Redacted()
}
