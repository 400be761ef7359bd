// Package config is a node's configuration: app.toml (Ember's settings),
// read over defaults and written by `emberd init`, beside CometBFT's
// config.toml; and the settings table (settings.go) from which the
// command-line flags, app.toml's comments and docs/configuration.md derive.
package config

import (
	"bytes"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/spf13/viper"

	explorer "github.com/emberchain/ember/explorer/service"
	"github.com/emberchain/ember/rpc"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
)

// Config is app.toml: Ember's settings beside CometBFT's config.toml.
type Config struct {
	// MinGasPrices is the lowest tip per gas this node admits (see
	// ParseMinGasPrices); miner_setGasPrice rewrites it.
	MinGasPrices string `toml:"minimum-gas-prices"`
	// HaltHeight stops the node once it has committed this height (0:
	// never), as the SDK's halt-height (node/upgrade.go).
	HaltHeight uint64          `toml:"halt-height"`
	TxPool     TxPool          `toml:"txpool"`
	JSONRPC    rpc.Config      `toml:"json-rpc"`
	REST       REST            `toml:"rest"`
	GRPC       GRPC            `toml:"grpc"`
	Keyring    Keyring         `toml:"keyring"`
	Store      Store           `toml:"store"`
	Validator  Validator       `toml:"validator"`
	Explorer   explorer.Config `toml:"explorer"`
	Log        Log             `toml:"log"`
	Metrics    Metrics         `toml:"metrics"`
	StateSync  StateSync       `toml:"state-sync"`
	Runtime    Runtime         `toml:"runtime"`
	Health     Health          `toml:"health"` // health.go
}

// TxPool is the [txpool] section: the limits of the app's transaction pool
// (see txpool.Config), geth's names and defaults.
type TxPool struct {
	PriceBump    uint64       `toml:"price-bump"`    // % a same-nonce replacement must raise both fee cap and tip by
	AccountSlots int          `toml:"account-slots"` // pending txs per account evicted last when the pending pool is full
	GlobalSlots  int          `toml:"global-slots"`  // pending txs (CometBFT's mempool.size should be at least this)
	AccountQueue int          `toml:"account-queue"` // queued (nonce-gapped) txs per account
	GlobalQueue  int          `toml:"global-queue"`  // queued txs
	Lifetime     rpc.Duration `toml:"lifetime"`      // queued txs of an account that sends nothing this long are dropped
}

// DefaultTxPool is txpool.DefaultConfig in app.toml's form.
func DefaultTxPool() TxPool {
	d := txpool.DefaultConfig()
	return TxPool{
		PriceBump: d.PriceBump, AccountSlots: d.AccountSlots, GlobalSlots: d.GlobalSlots,
		AccountQueue: d.AccountQueue, GlobalQueue: d.GlobalQueue, Lifetime: rpc.Duration(d.Lifetime),
	}
}

// Pool is the pool's configuration.
func (c TxPool) Pool() txpool.Config {
	return txpool.Config{
		PriceBump: c.PriceBump, AccountSlots: c.AccountSlots, GlobalSlots: c.GlobalSlots,
		AccountQueue: c.AccountQueue, GlobalQueue: c.GlobalQueue, Lifetime: time.Duration(c.Lifetime),
	}
}

// REST is the native (Cosmos-style) REST server.
type REST struct {
	Enable  bool   `toml:"enable"`
	Address string `toml:"address"` // listen address
}

// GRPC is the gRPC server of the Cosmos query services
// (cosmos.auth.v1beta1.Query, cosmos.bank.v1beta1.Query) with reflection.
type GRPC struct {
	Enable  bool   `toml:"enable"`
	Address string `toml:"address"` // listen address
}

// Keyring selects the keyring the node's personal namespace and
// eth_accounts serve; the CLI's `keys` commands use the same one.
type Keyring struct {
	Backend string `toml:"backend"` // test (no passphrases, development) or file (encrypted)
}

// Store sizes the node database caches and says how durable each block's
// writes are.
type Store struct {
	CacheMB     int `toml:"cache-mb"`      // Pebble block cache, MiB
	TrieCacheMB int `toml:"trie-cache-mb"` // clean trie-node cache, MiB
	// Sync makes each block durable on disk before the next one is made:
	// Ember's store and CometBFT's databases sync their writes. A dev home
	// sets it false: the writes still reach the operating system before
	// the next block (a killed process loses nothing; Ember's store may
	// trail CometBFT's by a block, which the start-up handshake replays),
	// and only a power loss could undo them, while the disk syncs are a
	// large part of a dev block's time from a transaction to its receipt.
	Sync bool `toml:"sync"`
	// Pruning is "archive" (every block's state kept) or "full" (the
	// states of the last KeepRecent blocks kept; older states' trie nodes
	// deleted every PruneInterval blocks). Blocks, receipts, logs and the
	// log index are kept in both. See docs/pruning.md.
	Pruning       string `toml:"pruning"`
	KeepRecent    uint64 `toml:"keep-recent"`
	PruneInterval uint64 `toml:"prune-interval"`
}

// PruneOptions is the store's view of the [store] pruning keys.
func (c Store) PruneOptions() store.PruneOptions {
	return store.PruneOptions{Mode: store.Pruning(c.Pruning), KeepRecent: c.KeepRecent, Interval: c.PruneInterval}
}

// Validator is the [validator] section of app.toml.
type Validator struct {
	// SyncState makes the validator's double-sign guard (its last signed
	// height/round/step, config's priv_validator_state_file) durable with a
	// disk sync before every signature, as CometBFT's FilePV does. A dev
	// home sets it false: the state is still written (and renamed into
	// place) before each signature leaves, so a killed process restarts
	// safely, but not synced, which only a power loss could undo; the
	// syncs, several a block, would otherwise hold up the consensus
	// goroutine of a chain that has no other validator to double-sign
	// against.
	SyncState bool `toml:"sync-state"`
}

// Log sets log verbosity.
type Log struct {
	Level         string `toml:"level"`          // Ember's own logs: debug, info, warn, error
	CometBFTLevel string `toml:"cometbft-level"` // CometBFT's logs (chatty at info)
	Format        string `toml:"format"`         // text or json
}

// Metrics is the Prometheus endpoint: Ember's ember_* series and
// CometBFT's cometbft_* ones on one address, at /metrics.
type Metrics struct {
	Enable  bool   `toml:"enable"`
	Address string `toml:"address"` // listen address
}

// DefaultMetricsAddress is CometBFT's own prometheus_listen_addr port:
// dashboards and scrape configs made for CometBFT nodes find this one
// there, with Ember's series beside CometBFT's.
const DefaultMetricsAddress = "127.0.0.1:26660"

// StateSync is app.toml's [state-sync]: the snapshots this node makes and
// serves to nodes that join by CometBFT state sync (config.toml's
// [statesync] is the joining side).
type StateSync struct {
	// SnapshotInterval makes a snapshot of the state every this many
	// blocks; 0 makes none and serves none.
	SnapshotInterval uint64 `toml:"snapshot-interval"`
	// SnapshotKeepRecent is how many snapshots are kept (the oldest
	// deleted after a new one is made).
	SnapshotKeepRecent int `toml:"snapshot-keep-recent"`
}

// Defaults of [state-sync]: no snapshots (as the Cosmos SDK's default);
// testnet homes make one every TestnetSnapshotInterval blocks.
const (
	DefaultSnapshotKeepRecent = 2
	TestnetSnapshotInterval   = 100
)

// Runtime tunes the Go runtime the node runs in.
type Runtime struct {
	// GCPercent is the garbage collector's target (GOGC): how far, in
	// percent of the live heap, the heap grows before the next collection.
	// 0 keeps Go's default (100); a GOGC environment variable wins over it.
	// A dev home raises it: a dev node's live heap is small, so at Go's
	// default it collects several times a second, and each collection's
	// marking slows the block being made, which a client sending one
	// transaction at a time sees as latency. A higher target trades
	// memory (the heap may grow to several times the live one) for fewer
	// collections.
	GCPercent int `toml:"gc-percent"`
	// MemoryLimitMB is Go's soft memory limit (GOMEMLIMIT), MiB: as the
	// Go runtime's memory nears it, the collector runs more often whatever
	// GCPercent says, so a high GC target no longer lets the heap grow to
	// several times the live one (docs/memory.md). It counts only what Go
	// manages, not the caches outside its heap. 0 sets none; a GOMEMLIMIT
	// environment variable wins over it.
	MemoryLimitMB int `toml:"memory-limit-mb"`
}

// Apply sets the runtime as c says, unless the GOGC (GOMEMLIMIT)
// environment variable already does; it reports whether it set the GC
// target.
func (c Runtime) Apply() bool {
	if c.MemoryLimitMB > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(int64(c.MemoryLimitMB) << 20)
	}
	if c.GCPercent <= 0 || os.Getenv("GOGC") != "" {
		return false
	}
	debug.SetGCPercent(c.GCPercent)
	return true
}

// Default is what `emberd init` writes.
func Default() Config {
	return Config{
		MinGasPrices: FormatMinGasPrices(new(big.Int)),
		TxPool:       DefaultTxPool(),
		JSONRPC:      rpc.DefaultConfig(),
		REST:         REST{Enable: true, Address: "127.0.0.1:1317"},
		GRPC:         GRPC{Enable: true, Address: "127.0.0.1:9090"},
		Keyring:      Keyring{Backend: "file"},
		Store: Store{CacheMB: 256, TrieCacheMB: 128, Sync: true, Pruning: string(store.DefaultPruneOptions.Mode),
			KeepRecent: store.DefaultPruneOptions.KeepRecent, PruneInterval: store.DefaultPruneOptions.Interval},
		Validator: Validator{SyncState: true},
		Explorer:  explorer.DefaultConfig(),
		Log:       Log{Level: "info", CometBFTLevel: "error", Format: "text"},
		Metrics:   Metrics{Enable: false, Address: DefaultMetricsAddress},
		StateSync: StateSync{SnapshotKeepRecent: DefaultSnapshotKeepRecent},
		Health:    DefaultHealth(),
	}
}

// AppPath is where app.toml lives in a home directory.
func AppPath(home string) string { return filepath.Join(home, "config", "app.toml") }

// Load reads app.toml over the defaults; a key missing from the file keeps
// its default.
func Load(home string) (Config, error) {
	cfg := Default()
	path := AppPath(home)
	md, err := toml.DecodeFile(path, &cfg)
	if err != nil {
		return cfg, fmt.Errorf("read %s: %w", path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return cfg, fmt.Errorf("read %s: unknown keys %v", path, undecoded)
	}
	return cfg, nil
}

// Write writes app.toml, each key under a comment saying what it is (from
// the settings table).
func Write(home string, cfg Config) error {
	var buf bytes.Buffer
	buf.WriteString("# Ember node configuration. Flags given to `emberd start` override these values.\n\n")
	if err := toml.NewEncoder(&buf).Encode(cfg); err != nil {
		return err
	}
	return os.WriteFile(AppPath(home), annotate(buf.Bytes()), 0o644)
}

// LoadComet reads config.toml the way CometBFT's own command does.
func LoadComet(home string) (*cmtcfg.Config, error) {
	v := viper.New()
	v.SetConfigFile(filepath.Join(home, "config", "config.toml"))
	if err := v.ReadInConfig(); err != nil {
		return nil, fmt.Errorf("read CometBFT config: %w", err)
	}
	cc := cmtcfg.DefaultConfig()
	if err := v.Unmarshal(cc); err != nil {
		return nil, fmt.Errorf("parse CometBFT config: %w", err)
	}
	cc.SetRoot(home)
	if err := cc.ValidateBasic(); err != nil {
		return nil, fmt.Errorf("CometBFT config: %w", err)
	}
	return cc, nil
}

// BaseDenom is the native token's base unit: 1 aember = 1 wei.
const BaseDenom = "aember"

// ParseMinGasPrices reads minimum-gas-prices: the lowest tip per gas (an
// EIP-1559 maxPriorityFeePerGas, a legacy gas price) this node admits, as
// geth's --miner.gasprice, written the Cosmos way: an integer amount of
// aember (= wei), the denom optional ("1000000000aember", "1000000000").
// Empty is 0.
func ParseMinGasPrices(s string) (*big.Int, error) {
	amount := strings.TrimSuffix(strings.TrimSpace(s), BaseDenom)
	if amount == "" {
		return new(big.Int), nil
	}
	v, ok := new(big.Int).SetString(amount, 10)
	if !ok || v.Sign() < 0 {
		return nil, fmt.Errorf("invalid minimum-gas-prices %q: want a non-negative integer amount of %s (wei), e.g. 1000000000%s", s, BaseDenom, BaseDenom)
	}
	return v, nil
}

// FormatMinGasPrices writes a minimum gas price as app.toml holds it.
func FormatMinGasPrices(v *big.Int) string { return v.String() + BaseDenom }

// Namespaces lists every JSON-RPC namespace a node serves on any chain (a
// dev home enables them all).
func Namespaces() []string {
	return []string{"eth", "net", "web3", "debug", "personal", "txpool", "miner"}
}

// DevNamespaces are the test-chain namespaces a development chain serves
// beside its app.toml list (see package rpc/anvil).
var DevNamespaces = []string{"anvil", "hardhat", "evm"}
