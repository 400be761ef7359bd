// Package service runs the explorer inside a node: the database, the
// indexer following a Source and the HTTP API, started and stopped as one.
package service

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/api"
	"github.com/emberchain/ember/explorer/indexer"
	"github.com/emberchain/ember/explorer/sqlstore"
	"github.com/emberchain/ember/explorer/web"
	"github.com/emberchain/ember/httpserve"
)

// Config is the [explorer] section of app.toml.
type Config struct {
	Enable  bool   `toml:"enable"`
	Address string `toml:"address"` // API listen address
	// DB is a postgres:// DSN, or empty for SQLite at <home>/data/explorer.db.
	DB string `toml:"db"`
	// JSONRPCURL is the chain's JSON-RPC endpoint the API tells wallets
	// (/api/v2/config/json-rpc-url); set by whoever starts the service, not
	// from app.toml.
	JSONRPCURL string `toml:"-"`
	// Chain is the Cosmos side's chain id, denomination and endpoints the
	// API tells wallets (/api/v2/config/chain); set like JSONRPCURL.
	Chain api.ChainInfo `toml:"-"`
	// IPFSGateway is the HTTP gateway NFT metadata at ipfs:// URIs is
	// fetched through ("" = https://ipfs.io/ipfs/).
	IPFSGateway string `toml:"ipfs-gateway"`
	// Solc is a solc binary (or solc-js's solcjs) contract verification
	// compiles with when the metadata hash does not match, for partial
	// matches; "" = full matches from metadata only.
	Solc string `toml:"solc"`
	// SQLiteCacheMB, SQLiteMmapMB and SQLiteMaxConns bound a SQLite
	// database's memory (sqlstore.SQLiteOptions; docs/memory.md): page
	// cache per connection, mapped part of the file, open connections.
	// Zero keeps sqlstore.DefaultSQLite's; a negative mmap maps nothing.
	SQLiteCacheMB  int `toml:"sqlite-cache-mb"`
	SQLiteMmapMB   int `toml:"sqlite-mmap-mb"`
	SQLiteMaxConns int `toml:"sqlite-max-conns"`
}

// SQLite is the SQLite options the config sets.
func (c Config) SQLite() sqlstore.SQLiteOptions {
	return sqlstore.SQLiteOptions{CacheMB: c.SQLiteCacheMB, MmapMB: c.SQLiteMmapMB, MaxConns: c.SQLiteMaxConns}
}

// DefaultConfig leaves the explorer off, listening on 127.0.0.1:4000 when on.
func DefaultConfig() Config {
	d := sqlstore.DefaultSQLite
	return Config{Address: "127.0.0.1:4000", IPFSGateway: indexer.DefaultIPFSGateway,
		SQLiteCacheMB: d.CacheMB, SQLiteMmapMB: d.MmapMB, SQLiteMaxConns: d.MaxConns}
}

// IndexerYield is how long at most the indexer of an in-process explorer
// leaves the CPU to a node busy making blocks before it indexes what it
// trails by (indexer.Indexer.Yield): a burst of a few thousand
// transactions then runs as fast as with the explorer off, and the lag
// under a steady load stays within a few seconds.
const IndexerYield = 3 * time.Second

// Service is a running explorer.
type Service struct {
	store  *sqlstore.Store
	ix     *indexer.Indexer
	api    *httpserve.Server
	cancel context.CancelFunc
	wg     sync.WaitGroup

	ixCancel context.CancelFunc // ends the indexer (runIndexer)
	ixDone   chan struct{}      // closed when it has
}

// Start opens the database (migrating it), starts indexing from src and
// serves the API. prefix is the chain's bech32 prefix.
func Start(cfg Config, home string, src explorer.Source, prefix string, log *slog.Logger) (*Service, error) {
	dsn := cfg.DB
	if dsn == "" {
		dsn = filepath.Join(home, "data", "explorer.db")
	}
	st, err := sqlstore.OpenWith(context.Background(), dsn, cfg.SQLite())
	if err != nil {
		return nil, err
	}
	ix := indexer.NewIndexer(src, st, log.With("part", "indexer"))
	ix.Yield(IndexerYield)
	meta := startMetadata(st, src, cfg.IPFSGateway, log) // service_tokens.go
	srv, err := Serve(cfg.Address, &api.Backend{Store: st, Status: ix.Status, Prefix: prefix, Pending: src.Pending, JSONRPCURL: cfg.JSONRPCURL, Info: cfg.Chain,
		RefetchMetadata: meta.wake, Tracer: tracerOf(src), Chain: chainReaderOf(src), Solc: cfg.Solc}, log)
	if err != nil {
		st.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{store: st, ix: ix, api: srv, cancel: cancel}
	s.runIndexer()
	meta.run(ctx, &s.wg)
	return s, nil
}

// Serve listens on addr and serves the whole explorer (api.Site: the JSON
// API and the pages) gzipped for clients that accept it (web.Compress);
// Stop waits up to 5 s for requests in flight. The timeouts are
// api.Start's.
func Serve(addr string, b *api.Backend, log *slog.Logger) (*httpserve.Server, error) {
	return httpserve.Start("explorer API", addr, &http.Server{
		Handler:           web.Compress(api.Site(b, log)),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		MaxHeaderBytes:    1 << 16,
	}, 5*time.Second, log)
}

// runIndexer starts the indexer; stopIndexer ends it.
func (s *Service) runIndexer() {
	ctx, cancel := context.WithCancel(context.Background())
	s.ixCancel = cancel
	s.ixDone = make(chan struct{})
	go func() {
		defer close(s.ixDone)
		s.ix.Run(ctx)
	}()
}

func (s *Service) stopIndexer() {
	s.ixCancel()
	<-s.ixDone
}

// Rewind forgets the blocks above h (a dev chain's evm_revert): with the
// indexer stopped, the database is reset if it holds any of them, and the
// indexer starts again (from block 0: see sqlstore.Store.Reset), so the
// API never shows a reverted block.
func (s *Service) Rewind(ctx context.Context, h uint64) error {
	s.stopIndexer()
	defer s.runIndexer()
	height, ok, err := s.store.IndexedHeight(ctx)
	if err != nil || !ok || height <= h {
		return err
	}
	if err := s.store.Reset(ctx); err != nil {
		return err
	}
	s.ix.Forget()
	return nil
}

// Addr is the API's bound address.
func (s *Service) Addr() string { return s.api.Addr().String() }

// Stop ends the API, then the indexer (mid-batch is fine: the open database
// transaction rolls back and the blocks are indexed again at the next
// start), then closes the database.
func (s *Service) Stop() {
	s.api.Stop()
	s.stopIndexer()
	s.cancel()
	s.wg.Wait()
	_ = s.store.Close()
}

// Memory is the SQLite database's memory bounds; ok is false on PostgreSQL.
func (s *Service) Memory() (sqlstore.Memory, bool) { return s.store.Memory() }

// Status is the last block indexed and the chain head the indexer works
// towards; ok is false until a block is indexed (for the node's metrics).
func (s *Service) Status() (indexed, head uint64, ok bool) {
	indexed, ok, head, _ = s.ix.Status()
	return indexed, head, ok
}

// Chain is the ChainInfo of an in-process explorer: the CometBFT chain id,
// the base denomination, CometBFT's RPC listen address (tcp://host:port,
// spelled http:// as wallets reach it) and the REST gateway's when it runs.
func Chain(chainID, denom, cometListen string, restEnabled bool, restAddr string) api.ChainInfo {
	c := api.ChainInfo{CosmosChainID: chainID, Denom: denom}
	if host, ok := strings.CutPrefix(cometListen, "tcp://"); ok {
		c.CometRPCURL = "http://" + host
	} else if strings.HasPrefix(cometListen, "http://") || strings.HasPrefix(cometListen, "https://") {
		c.CometRPCURL = cometListen
	}
	if restEnabled {
		c.RESTURL = "http://" + restAddr
	}
	return c
}
