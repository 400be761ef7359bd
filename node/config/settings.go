package config

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/spf13/pflag"

	"github.com/emberchain/ember/rpc"
)

// File is the configuration file a setting is kept in.
type File string

const (
	AppToml   File = "app.toml"    // Ember's settings (Config)
	CometToml File = "config.toml" // CometBFT's (cmtcfg.Config)
)

// A Setting is one key of a home's configuration files, declared once:
// the flags of `emberd start` and `emberd dev`, the comments of the
// app.toml `emberd init` writes and the table in docs/configuration.md
// derive from it. Its default is the file's: Default's value for app.toml
// keys, CometBFT's for config.toml keys (Settings reads it from there).
type Setting struct {
	File File   // AppToml when empty
	Key  string // "section.key" ("minimum-gas-prices" at the top); config.toml keys as CometBFT names them
	// Flag is the command-line flag that overrides the file's value for
	// one run; "" for none. Given, it wins; not given, the file's value
	// stands, whatever the flag's default says. A string flag given empty
	// leaves the file's value too.
	Flag string
	Help string // what it sets: one or two sentences, no " = " (app.toml's comments must not read as keys)
}

// settings lists every key of app.toml, in its order, and the config.toml
// keys that have a flag.
var settings = []Setting{
	{Key: "minimum-gas-prices", Flag: "minimum-gas-prices", Help: "lowest tip per gas (legacy gas price) admitted, in aember (wei), e.g. 1000000000aember; " +
		"given as a flag it fixes the price: miner_setGasPrice is then ignored (otherwise miner_setGasPrice rewrites this key)"},
	{Key: "halt-height", Flag: "halt-height", Help: "stop after committing this block height, exit status 0 (a coordinated stop, as the SDK's halt-height); " +
		"a restart at or past it refuses to run until the setting is removed; 0 for never"},

	{Key: "txpool.price-bump", Help: "percent by which a same-nonce replacement must raise both its fee cap and its tip"},
	{Key: "txpool.account-slots", Help: "pending transactions per account that are evicted last when the pending pool is full"},
	{Key: "txpool.global-slots", Help: "pending transactions in the pool (CometBFT's mempool.size should be at least this); a dev home sizes it to its mempool"},
	{Key: "txpool.account-queue", Help: "queued (nonce-gapped) transactions per account"},
	{Key: "txpool.global-queue", Help: "queued transactions in the pool"},
	{Key: "txpool.lifetime", Help: "queued transactions of an account that sends nothing for this long are dropped"},

	{Key: "json-rpc.enable", Flag: "json-rpc.enable", Help: "serve the Ethereum JSON-RPC"},
	{Key: "json-rpc.address", Flag: "json-rpc.address", Help: "JSON-RPC HTTP listen address (WebSocket upgrades are accepted here too)"},
	{Key: "json-rpc.ws-address", Flag: "json-rpc.ws-address", Help: "JSON-RPC WebSocket listen address; empty for none"},
	{Key: "json-rpc.api", Flag: "json-rpc.api", Help: "comma-separated JSON-RPC namespaces to enable (a dev home enables them all, and a dev chain adds anvil, hardhat and evm)"},
	{Key: "json-rpc.gas-cap", Help: "gas limit cap of eth_call and eth_estimateGas; 0 for none"},
	{Key: "json-rpc.evm-timeout", Flag: "json-rpc.evm-timeout", Help: "time limit of one eth_call or eth_simulateV1; 0s for none"},
	{Key: "json-rpc.txfee-cap", Help: "highest fee, in ether, of a transaction sent through the RPC; 0 for none"},
	{Key: "json-rpc.allow-unprotected-txs", Help: "accept legacy transactions without EIP-155 replay protection"},
	{Key: "json-rpc.dev-client-version", Flag: "json-rpc.dev-client-version", Help: "on a dev chain (emberd dev), web3_clientVersion reads anvil-compatible/emberd/…, " +
		"so tools that serve dev-only features by the client version (hardhat-network-helpers) accept the chain; false: emberd/… as on any chain. No effect on other chains"},
	{Key: "json-rpc.dev-answer-mined", Flag: "json-rpc.dev-answer-mined", Help: "emberd dev only: eth_sendRawTransaction and eth_sendTransaction answer once the transaction is mined (with automine), " +
		"as on Hardhat Network and anvil; false: at admission, as emberd start always does"},
	{Key: "json-rpc.http-timeout", Flag: "json-rpc.http-timeout", Help: "time to read one JSON-RPC HTTP request and to answer it; a method still running then answers -32002"},
	{Key: "json-rpc.http-idle-timeout", Help: "how long an idle keep-alive HTTP connection stays open"},
	{Key: "json-rpc.max-open-connections", Help: "concurrent connections per listener; 0 for no limit"},
	{Key: "json-rpc.max-body-size", Help: "bytes of one HTTP request body"},
	{Key: "json-rpc.batch-request-limit", Help: "requests in one batch"},
	{Key: "json-rpc.batch-response-max-size", Help: "bytes of one batch response"},
	{Key: "json-rpc.cors-origins", Help: "allowed HTTP CORS origins"},
	{Key: "json-rpc.ws-origins", Help: "allowed WebSocket origins"},
	{Key: "json-rpc.vhosts", Flag: "json-rpc.vhosts", Help: "comma-separated host names a request's Host header may name on the JSON-RPC HTTP and WebSocket ports (geth's --http.vhosts); " +
		"others get 403, IP addresses always pass, * lets every name through"},
	{Key: "json-rpc.block-range-cap", Help: "blocks one eth_getLogs may span; 0 for none"},
	{Key: "json-rpc.logs-cap", Help: "logs one eth_getLogs may return; 0 for none"},
	{Key: "json-rpc.filter-cap", Help: "polling filters that may exist at once"},
	{Key: "json-rpc.filter-timeout", Help: "a polling filter not polled for this long is removed"},
	{Key: "json-rpc.subscription-cap", Help: "eth_subscribe subscriptions per WebSocket connection"},
	{Key: "json-rpc.notification-queue", Help: "undelivered notifications per subscription before its connection is closed"},
	{Key: "json-rpc.trace-max-timeout", Help: "cap on a debug_trace* request's timeout; 0 for none"},
	{Key: "json-rpc.trace-concurrency", Help: "debug_trace* requests running at once; others wait"},

	{Key: "rest.enable", Flag: "rest.enable", Help: "serve the native (Cosmos-style) REST endpoints"},
	{Key: "rest.address", Flag: "rest.address", Help: "native REST listen address"},

	{Key: "grpc.enable", Flag: "grpc.enable", Help: "serve the Cosmos gRPC query services (auth, bank) with reflection"},
	{Key: "grpc.address", Flag: "grpc.address", Help: "gRPC listen address"},

	{Key: "keyring.backend", Flag: "keyring-backend", Help: "keyring the node serves to eth_accounts, eth_sign* and personal, and the keys commands use: test (no passphrases, development; dev homes) or file (encrypted)"},

	{Key: "store.cache-mb", Flag: "store.cache-mb", Help: "Pebble block cache of the node's database, MiB; Pebble's memtables may take as much again (docs/memory.md)"},
	{Key: "store.trie-cache-mb", Flag: "store.trie-cache-mb", Help: "clean trie-node cache, MiB (outside the Go heap; docs/memory.md)"},
	{Key: "store.sync", Help: "make each block durable on disk before the next one (Ember's store and CometBFT's databases sync their writes); " +
		"dev homes set false: the writes still reach the operating system, so only a power loss could undo them"},
	{Key: "store.pruning", Flag: "store.pruning", Help: "state kept: archive (every block's) or full (the last keep-recent blocks'); blocks, receipts and logs are always kept"},
	{Key: "store.keep-recent", Flag: "store.keep-recent", Help: "full pruning: the states of this many latest blocks are kept, at least 2"},
	{Key: "store.prune-interval", Flag: "store.prune-interval", Help: "full pruning: blocks between two sweeps of older states"},

	{Key: "validator.sync-state", Help: "sync the validator's sign state (its double-sign guard) to disk before each signature; " +
		"dev homes set false: it is still written before each signature leaves"},

	{Key: "explorer.enable", Flag: "explorer.enable", Help: "index the chain and serve the Blockscout-compatible explorer API (on in dev homes)"},
	{Key: "explorer.address", Flag: "explorer.address", Help: "explorer API listen address"},
	{Key: "explorer.db", Flag: "explorer.db", Help: "explorer database: a postgres:// DSN, or empty for SQLite at <home>/data/explorer.db"},
	{Key: "explorer.ipfs-gateway", Help: "HTTP gateway through which NFT metadata at ipfs:// URIs is fetched"},
	{Key: "explorer.solc", Help: "a solc binary (or solc-js's solcjs) with which contract verification compiles for partial matches; empty for full matches from metadata only"},
	{Key: "explorer.sqlite-cache-mb", Flag: "explorer.sqlite-cache-mb", Help: "SQLite explorer database: page cache of each connection, MiB (docs/memory.md); 0 for the default"},
	{Key: "explorer.sqlite-mmap-mb", Flag: "explorer.sqlite-mmap-mb", Help: "SQLite explorer database: MiB of the file mapped into memory (file-backed, resident as read); 0 for the default, negative for none"},
	{Key: "explorer.sqlite-max-conns", Flag: "explorer.sqlite-max-conns", Help: "SQLite explorer database: open connections at most, each with its own page cache; 0 for the default"},

	{Key: "log.level", Flag: "log-level", Help: "log level of Ember's own logs: debug, info, warn, error"},
	{Key: "log.cometbft-level", Help: "log level of CometBFT's logs (chatty at info)"},
	{Key: "log.format", Help: "log format: text or json"},

	{Key: "metrics.enable", Flag: "metrics.enable", Help: "serve Prometheus metrics (Ember's ember_* and CometBFT's cometbft_*) at http://ADDRESS/metrics (on in dev homes)"},
	{Key: "metrics.address", Flag: "metrics.address", Help: "Prometheus metrics listen address (CometBFT's metrics port)"},

	{Key: "state-sync.snapshot-interval", Flag: "state-sync.snapshot-interval", Help: "make a state-sync snapshot every N blocks and serve them to joining nodes; 0 for none (testnet homes: 100)"},
	{Key: "state-sync.snapshot-keep-recent", Flag: "state-sync.snapshot-keep-recent", Help: "snapshots kept, the oldest deleted"},

	{Key: "runtime.gc-percent", Help: "Go's garbage collector target (GOGC); 0 keeps Go's default, and a GOGC environment variable wins (dev homes: 400)"},
	{Key: "runtime.memory-limit-mb", Flag: "runtime.memory-limit-mb", Help: "Go's soft memory limit (GOMEMLIMIT), MiB: near it the collector runs more often whatever gc-percent says (docs/memory.md); 0 for none, and a GOMEMLIMIT environment variable wins"},

	{Key: "health.max-block-age", Help: "not ready (GET /ready answers 503, ember_ready 0) when the head block is older than this beyond config.toml's create_empty_blocks_interval; " +
		"0s for no check; not checked when create_empty_blocks is false (blocks only for transactions)"},
	{Key: "health.max-blocks-behind", Help: "not ready when a peer reports a height more than this many blocks above the head"},

	{File: CometToml, Key: "rpc.laddr", Flag: "rpc.laddr", Help: "CometBFT RPC listen address"},
	{File: CometToml, Key: "p2p.laddr", Flag: "p2p.laddr", Help: "CometBFT P2P listen address"},
	{File: CometToml, Key: "p2p.persistent_peers", Flag: "p2p.persistent-peers", Help: "comma-separated <node id>@<host>:<port> of the peers this node always dials (collect-gentxs writes them)"},
	{File: CometToml, Key: "statesync.enable", Flag: "statesync.enable", Help: "join by CometBFT state sync from a snapshot other nodes serve, when this home has no state yet"},
	{File: CometToml, Key: "statesync.rpc_servers", Flag: "statesync.rpc-servers", Help: "comma-separated CometBFT RPCs (host:port) the state-sync light client reads; " +
		"given as a flag without the trust flags, the node reads a recent trusted block from the first and checks it against the second, and enables state sync"},
	{File: CometToml, Key: "statesync.trust_height", Flag: "statesync.trust-height", Help: "height of the block the state-sync light client trusts"},
	{File: CometToml, Key: "statesync.trust_hash", Flag: "statesync.trust-hash", Help: "hash (hex) of the block at trust_height"},
}

// Settings lists every setting, in app.toml's order, then config.toml's.
func Settings() []Setting { return settings }

// file is the setting's file, AppToml by default.
func (s Setting) file() File {
	if s.File == "" {
		return AppToml
	}
	return s.File
}

// Default is the setting's default as the file holds it.
func (s Setting) Default() string {
	cfg, cc := Default(), cmtcfg.DefaultConfig()
	return formatValue(s.field(&cfg, cc))
}

// field is the setting's field in cfg or cc (as its file says).
func (s Setting) field(cfg *Config, cc *cmtcfg.Config) reflect.Value {
	if s.file() == CometToml {
		return lookup(reflect.ValueOf(cc).Elem(), "mapstructure", s.Key)
	}
	return lookup(reflect.ValueOf(cfg).Elem(), "toml", s.Key)
}

// lookup finds the field a dotted key names in v, by the struct tags
// named tag (a ",squash" field's keys are its parent's), or an invalid
// Value.
func lookup(v reflect.Value, tag, key string) reflect.Value {
	name, rest, nested := strings.Cut(key, ".")
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}
	}
	for i := 0; i < v.NumField(); i++ {
		f, sf := v.Field(i), v.Type().Field(i)
		tagName, opts, _ := strings.Cut(sf.Tag.Get(tag), ",")
		if opts == "squash" {
			if found := lookup(f, tag, key); found.IsValid() {
				return found
			}
			continue
		}
		if tagName != name || !sf.IsExported() {
			continue
		}
		if nested {
			return lookup(f, tag, rest)
		}
		return f
	}
	return reflect.Value{}
}

// formatValue writes a field's value as a person reads it in a file.
func formatValue(v reflect.Value) string {
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, err := m.MarshalText()
		if err == nil {
			return string(b)
		}
	}
	switch v.Kind() {
	case reflect.Slice:
		if v.Len() == 0 {
			return `""`
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = fmt.Sprint(v.Index(i).Interface())
		}
		return strings.Join(parts, ",")
	case reflect.String:
		if v.String() == "" {
			return `""`
		}
	}
	return fmt.Sprint(v.Interface())
}

// flagKind is the kind of flag a setting's field takes.
type flagKind int

const (
	boolFlag flagKind = iota
	stringFlag
	uint64Flag
	intFlag
	int64Flag
	durationFlag
	listFlag // a comma-separated string
)

var durationType = reflect.TypeOf(rpc.Duration(0))

func kindOf(t reflect.Type) flagKind {
	switch {
	case t == durationType || t == reflect.TypeOf(time.Duration(0)):
		return durationFlag
	case t.Kind() == reflect.Bool:
		return boolFlag
	case t.Kind() == reflect.String:
		return stringFlag
	case t.Kind() == reflect.Uint64:
		return uint64Flag
	case t.Kind() == reflect.Int:
		return intFlag
	case t.Kind() == reflect.Int64:
		return int64Flag
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return listFlag
	}
	panic(fmt.Sprintf("config: no flag for a setting of type %v", t))
}

// flagUsage is the flag's help: the setting's, and where its default comes
// from.
func (s Setting) flagUsage() string {
	section, key, nested := strings.Cut(s.Key, ".")
	where := s.Key
	if nested {
		where = "[" + section + "] " + key
	}
	return fmt.Sprintf("%s (default from %s %s: %s)", s.Help, s.file(), where, s.Default())
}

// AddFlags adds to fs the flag of each setting that has one. A bool flag's
// default is the file's default (as --help shows it); the others default
// to nothing and their help says the file's default, which applies unless
// the flag is given.
func AddFlags(fs *pflag.FlagSet) {
	cfg, cc := Default(), cmtcfg.DefaultConfig()
	for _, s := range settings {
		if s.Flag == "" {
			continue
		}
		f, usage := s.field(&cfg, cc), s.flagUsage()
		switch kindOf(f.Type()) {
		case boolFlag:
			fs.Bool(s.Flag, f.Bool(), usage)
		case stringFlag, listFlag:
			fs.String(s.Flag, "", usage)
		case uint64Flag:
			fs.Uint64(s.Flag, 0, usage)
		case intFlag:
			fs.Int(s.Flag, 0, usage)
		case int64Flag:
			fs.Int64(s.Flag, 0, usage)
		case durationFlag:
			fs.Duration(s.Flag, 0, usage)
		}
	}
}

// Overrides are the settings given on the command line: each wins over
// its file's value. The zero Overrides gives none.
type Overrides struct{ fs *pflag.FlagSet }

// FromFlags are the settings whose flags (added by AddFlags) were given
// when fs was parsed.
func FromFlags(fs *pflag.FlagSet) Overrides { return Overrides{fs: fs} }

// ParseOverrides reads overrides from command-line arguments, as `emberd
// start` would ("--json-rpc.address=127.0.0.1:0", ...).
func ParseOverrides(args []string) (Overrides, error) {
	fs := pflag.NewFlagSet("overrides", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return Overrides{}, err
	}
	return FromFlags(fs), nil
}

// Value is the value flag was given, "" when it was not.
func (o Overrides) Value(flag string) string {
	if f := o.lookup(flag); f != nil {
		return f.Value.String()
	}
	return ""
}

// Given tells whether flag was given (a string flag: given not empty).
func (o Overrides) Given(flag string) bool { return o.lookup(flag) != nil }

// lookup is flag if it was given, else nil.
func (o Overrides) lookup(flag string) *pflag.Flag {
	if o.fs == nil {
		return nil
	}
	f := o.fs.Lookup(flag)
	if f == nil || !f.Changed {
		return nil
	}
	if t := f.Value.Type(); t == "string" && f.Value.String() == "" {
		return nil
	}
	return f
}

// Apply sets in cfg and cc the settings given.
func (o Overrides) Apply(cfg *Config, cc *cmtcfg.Config) {
	for _, s := range settings {
		if s.Flag == "" || !o.Given(s.Flag) {
			continue
		}
		field := s.field(cfg, cc)
		var err error
		switch kindOf(field.Type()) {
		case boolFlag:
			var v bool
			v, err = o.fs.GetBool(s.Flag)
			field.SetBool(v)
		case stringFlag:
			field.SetString(o.Value(s.Flag))
		case listFlag:
			if list := rpc.ParseAPIList(o.Value(s.Flag)); list != nil { // " , " names none: the file's list stands
				field.Set(reflect.ValueOf(list).Convert(field.Type()))
			}
		case uint64Flag:
			var v uint64
			v, err = o.fs.GetUint64(s.Flag)
			field.SetUint(v)
		case intFlag:
			var v int
			v, err = o.fs.GetInt(s.Flag)
			field.SetInt(int64(v))
		case int64Flag:
			var v int64
			v, err = o.fs.GetInt64(s.Flag)
			field.SetInt(v)
		case durationFlag:
			var v time.Duration
			v, err = o.fs.GetDuration(s.Flag)
			field.SetInt(int64(v))
		}
		if err != nil { // AddFlags made the flag of this type
			panic(fmt.Sprintf("config: flag --%s: %v", s.Flag, err))
		}
	}
}

// annotate puts each key of an encoded app.toml under a comment: its
// setting's help, and its flag.
func annotate(encoded []byte) []byte {
	help := make(map[string]Setting)
	for _, s := range settings {
		if s.file() == AppToml {
			help[s.Key] = s
		}
	}
	var out strings.Builder
	section := ""
	for _, line := range strings.SplitAfter(string(encoded), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "[") && strings.HasSuffix(trimmed, "]") {
			section = strings.Trim(trimmed, "[]") + "."
		} else if key, _, ok := strings.Cut(trimmed, " = "); ok {
			if s, ok := help[section+key]; ok {
				indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
				writeComment(&out, indent, s)
			}
		}
		out.WriteString(line)
	}
	return []byte(out.String())
}

// writeComment writes s's help as comment lines of at most about 80
// columns, the flag last.
func writeComment(w *strings.Builder, indent string, s Setting) {
	text := s.Help
	if s.Flag != "" {
		text += " (flag --" + s.Flag + ")"
	}
	line := indent + "#"
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > 80 && line != indent+"#" {
			w.WriteString(line + "\n")
			line = indent + "#"
		}
		line += " " + word
	}
	w.WriteString(line + "\n")
}

// Markdown is the table of every setting docs/configuration.md holds: its
// flag, its file and key, its default and what it sets.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| Flag | File: key | Default | Meaning |\n|---|---|---|---|\n")
	for _, s := range settings {
		flag := ""
		if s.Flag != "" {
			flag = "`--" + s.Flag + "`"
		}
		fmt.Fprintf(&b, "| %s | %s: `%s` | `%s` | %s |\n", flag, s.file(), s.Key, s.Default(), strings.ReplaceAll(s.Help, "|", `\|`))
	}
	return b.String()
}
