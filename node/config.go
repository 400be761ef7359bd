package node

import (
	"bytes"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/BurntSushi/toml"

	explorer "github.com/emberchain/ember/explorer/service"
	"github.com/emberchain/ember/rpc"
	"github.com/emberchain/ember/store"
)

// Config is app.toml: Ember's settings beside CometBFT's config.toml.
type Config struct {
	// MinGasPrices is the lowest tip per gas this node admits (see
	// ParseMinGasPrices); miner_setGasPrice rewrites it.
	MinGasPrices string          `toml:"minimum-gas-prices"`
	TxPool       TxPoolConfig    `toml:"txpool"`
	JSONRPC      rpc.Config      `toml:"json-rpc"`
	REST         RESTConfig      `toml:"rest"`
	GRPC         GRPCConfig      `toml:"grpc"`
	Keyring      KeyringConfig   `toml:"keyring"`
	Store        StoreConfig     `toml:"store"`
	Validator    ValidatorConfig `toml:"validator"`
	Explorer     explorer.Config `toml:"explorer"`
	Log          LogConfig       `toml:"log"`
	Metrics      MetricsConfig   `toml:"metrics"`
	StateSync    StateSyncConfig `toml:"state-sync"`
	Runtime      RuntimeConfig   `toml:"runtime"`
}

// RuntimeConfig tunes the Go runtime the node runs in.
type RuntimeConfig struct {
	// GCPercent is the garbage collector's target (GOGC): how far, in
	// percent of the live heap, the heap grows before the next collection.
	// 0 keeps Go's default (100); a GOGC environment variable wins over it.
	// A dev home sets 400: a dev node's live heap is small (~36 MB), so it
	// collected every half second, each collection 8–21 ms of marking that
	// slows the block being made; one transaction at a time, 38% of the
	// sends over 9 ms overlapped one, against 3% of all sends. At 400,
	// three alternating pairs of 2,000 sends: sends over 9 ms 38 / 30 / 34
	// → 21 / 24 / 19, p99 13.1 / 10.6 / 11.2 → 9.1 / 9.8 / 8.8 ms; the
	// heap may grow to about five times the live one.
	GCPercent int `toml:"gc-percent"`
}

// Apply sets the runtime as c says, unless the GOGC environment variable
// already does; it reports whether it set the GC target.
func (c RuntimeConfig) Apply() bool {
	if c.GCPercent <= 0 || os.Getenv("GOGC") != "" {
		return false
	}
	debug.SetGCPercent(c.GCPercent)
	return true
}

// RESTConfig is the native (Cosmos-style) REST server.
type RESTConfig struct {
	Enable  bool   `toml:"enable"`
	Address string `toml:"address"` // listen address
}

// GRPCConfig is the gRPC server of the Cosmos query services
// (cosmos.auth.v1beta1.Query, cosmos.bank.v1beta1.Query) with reflection.
type GRPCConfig struct {
	Enable  bool   `toml:"enable"`
	Address string `toml:"address"` // listen address
}

// KeyringConfig selects the keyring the node's personal namespace and
// eth_accounts serve; the CLI's `keys` commands use the same one.
type KeyringConfig struct {
	Backend string `toml:"backend"` // test (no passphrases, development) or file (encrypted)
}

// StoreConfig sizes the node database caches and says how durable each
// block's writes are.
type StoreConfig struct {
	CacheMB     int `toml:"cache-mb"`      // Pebble block cache, MiB
	TrieCacheMB int `toml:"trie-cache-mb"` // clean trie-node cache, MiB
	// Sync makes each block durable on disk before the next one is made:
	// Ember's store and CometBFT's databases sync their writes. A dev home
	// sets it false: the writes still reach the operating system before
	// the next block (a killed process loses nothing; Ember's store may
	// trail CometBFT's by a block, which the start-up handshake replays),
	// and only a power loss could undo them. Those syncs were half of a
	// dev block's time from a transaction to its receipt.
	Sync bool `toml:"sync"`
	// Pruning is "archive" (every block's state kept) or "full" (the
	// states of the last KeepRecent blocks kept; older states' trie nodes
	// deleted every PruneInterval blocks). Blocks, receipts, logs and the
	// log index are kept in both. See docs/pruning.md.
	Pruning       string `toml:"pruning"`
	KeepRecent    uint64 `toml:"keep-recent"`
	PruneInterval uint64 `toml:"prune-interval"`
}

// pruneOptions is the store's view of the [store] pruning keys.
func (c StoreConfig) pruneOptions() store.PruneOptions {
	return store.PruneOptions{Mode: store.Pruning(c.Pruning), KeepRecent: c.KeepRecent, Interval: c.PruneInterval}
}

// LogConfig sets log verbosity.
type LogConfig struct {
	Level         string `toml:"level"`          // Ember's own logs: debug, info, warn, error
	CometBFTLevel string `toml:"cometbft-level"` // CometBFT's logs (chatty at info)
	Format        string `toml:"format"`         // text or json
}

// DefaultConfig is what `emberd init` writes.
func DefaultConfig() Config {
	return Config{
		MinGasPrices: FormatMinGasPrices(new(big.Int)),
		TxPool:       DefaultTxPoolConfig(),
		JSONRPC:      rpc.DefaultConfig(),
		REST:         RESTConfig{Enable: true, Address: "127.0.0.1:1317"},
		GRPC:         GRPCConfig{Enable: true, Address: "127.0.0.1:9090"},
		Keyring:      KeyringConfig{Backend: "file"},
		Store: StoreConfig{CacheMB: 256, TrieCacheMB: 128, Sync: true, Pruning: string(store.DefaultPruneOptions.Mode),
			KeepRecent: store.DefaultPruneOptions.KeepRecent, PruneInterval: store.DefaultPruneOptions.Interval},
		Validator: ValidatorConfig{SyncState: true},
		Explorer:  explorer.DefaultConfig(),
		Log:       LogConfig{Level: "info", CometBFTLevel: "error", Format: "text"},
		Metrics:   MetricsConfig{Enable: false, Address: DefaultMetricsAddress},
		StateSync: StateSyncConfig{SnapshotKeepRecent: DefaultSnapshotKeepRecent},
	}
}

// AppConfigPath is where app.toml lives in a home directory.
func AppConfigPath(home string) string { return filepath.Join(home, "config", "app.toml") }

// LoadConfig reads app.toml over the defaults; a key missing from the file
// keeps its default.
func LoadConfig(home string) (Config, error) {
	cfg := DefaultConfig()
	path := AppConfigPath(home)
	md, err := toml.DecodeFile(path, &cfg)
	if err != nil {
		return cfg, fmt.Errorf("read %s: %w", path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		return cfg, fmt.Errorf("read %s: unknown keys %v", path, undecoded)
	}
	return cfg, nil
}

// WriteConfig writes app.toml.
func WriteConfig(home string, cfg Config) error {
	var buf bytes.Buffer
	buf.WriteString("# Ember node configuration. Flags given to `emberd start` override these values.\n\n")
	if err := toml.NewEncoder(&buf).Encode(cfg); err != nil {
		return err
	}
	return os.WriteFile(AppConfigPath(home), buf.Bytes(), 0o644)
}
