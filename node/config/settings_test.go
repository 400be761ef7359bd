package config

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"

	"github.com/emberchain/ember/rpc"
)

var update = flag.Bool("update", false, "rewrite the settings table in docs/configuration.md")

// tomlKeys lists the dotted keys of every leaf of t's toml tree.
func tomlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		if sf.Type.Kind() == reflect.Struct {
			keys = append(keys, tomlKeys(sf.Type, prefix+name+".")...)
			continue
		}
		keys = append(keys, prefix+name)
	}
	return keys
}

// TestSettingsCoverTheFiles: every key of app.toml has one setting, in
// app.toml's order; every setting names a field; no help reads as a key.
func TestSettingsCoverTheFiles(t *testing.T) {
	var app []string
	seen := map[string]bool{}
	cfg, cc := Default(), cmtcfg.DefaultConfig()
	for _, s := range Settings() {
		if seen[string(s.file())+s.Key] {
			t.Errorf("%s %s declared twice", s.file(), s.Key)
		}
		seen[string(s.file())+s.Key] = true
		if !s.field(&cfg, cc).IsValid() {
			t.Errorf("%s %s names no field", s.file(), s.Key)
		}
		if s.file() == AppToml {
			app = append(app, s.Key)
		}
		if s.Help == "" || strings.Contains(s.Help, " = ") {
			t.Errorf("%s: help %q", s.Key, s.Help)
		}
	}
	if want := tomlKeys(reflect.TypeOf(Config{}), ""); !slices.Equal(app, want) {
		t.Errorf("app.toml settings\n%v\nwant app.toml's keys\n%v", app, want)
	}
}

// TestOverridesApply: a flag given wins over app.toml; one not given leaves
// the file's value, whatever the flag's default.
func TestOverridesApply(t *testing.T) {
	cfg := Default()
	cfg.JSONRPC.EVMTimeout = rpc.Duration(7 * time.Second) // as if read from app.toml
	cfg.Explorer.Enable = true                             // as a dev home's app.toml says
	cfg.REST.Address = "127.0.0.1:7777"
	cc := cmtcfg.DefaultConfig()
	ov, err := ParseOverrides([]string{"--json-rpc.http-timeout=5m", "--store.keep-recent=12", "--store.pruning=full",
		"--rest.address=", "--json-rpc.api=eth, debug", "--grpc.enable=false", "--rpc.laddr=tcp://127.0.0.1:1", "--log-level=debug"})
	if err != nil {
		t.Fatal(err)
	}
	ov.Apply(&cfg, cc)
	if cfg.JSONRPC.HTTPTimeout.Std() != 5*time.Minute {
		t.Errorf("http-timeout %v, want the flag's 5m", cfg.JSONRPC.HTTPTimeout.Std())
	}
	if cfg.JSONRPC.EVMTimeout.Std() != 7*time.Second {
		t.Errorf("evm-timeout %v, want the file's 7s (no flag)", cfg.JSONRPC.EVMTimeout.Std())
	}
	if cfg.Store.KeepRecent != 12 || cfg.Store.Pruning != "full" {
		t.Errorf("store %+v, want the flags' full / 12", cfg.Store)
	}
	if !cfg.Explorer.Enable || cfg.REST.Address != "127.0.0.1:7777" {
		t.Errorf("explorer.enable %v, rest.address %q: want the file's (flag not given, or given empty)", cfg.Explorer.Enable, cfg.REST.Address)
	}
	if !slices.Equal(cfg.JSONRPC.API, rpc.APIList{"eth", "debug"}) || cfg.GRPC.Enable || cfg.Log.Level != "debug" {
		t.Errorf("api %v, grpc.enable %v, log.level %q: want the flags'", cfg.JSONRPC.API, cfg.GRPC.Enable, cfg.Log.Level)
	}
	if cc.RPC.ListenAddress != "tcp://127.0.0.1:1" || cc.P2P.ListenAddress != cmtcfg.DefaultConfig().P2P.ListenAddress {
		t.Errorf("config.toml laddrs %q %q", cc.RPC.ListenAddress, cc.P2P.ListenAddress)
	}
	if !ov.Given("store.pruning") || ov.Given("rest.address") || ov.Given("explorer.enable") {
		t.Error("Given wrong")
	}
}

// TestAppTomlRoundTrip: the app.toml Write makes (keys under comments)
// reads back as written, and each key with a flag names it.
func TestAppTomlRoundTrip(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "config"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := Default()
	cfg.JSONRPC.API = rpc.APIList{"eth", "debug"}
	cfg.Runtime.GCPercent = 400
	if err := Write(home, cfg); err != nil {
		t.Fatal(err)
	}
	got, err := Load(home)
	if err != nil || !reflect.DeepEqual(got, cfg) {
		t.Fatalf("read back %+v %v\nwant %+v", got, err, cfg)
	}
	raw, _ := os.ReadFile(AppPath(home))
	for _, want := range []string{"# JSON-RPC HTTP listen address", "(flag --json-rpc.address)\n  address = ", "(flag --keyring-backend)\n  backend = \"file\""} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("app.toml lacks %q:\n%s", want, raw)
		}
	}
}

// TestDocsTable: docs/configuration.md holds the table of every setting
// between its markers (go test -run TestDocsTable -update rewrites it).
func TestDocsTable(t *testing.T) {
	const begin, end = "<!-- settings:begin -->\n", "<!-- settings:end -->"
	path := filepath.Join("..", "..", "docs", "configuration.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q markers", path, begin, end)
	}
	want := doc[:i+len(begin)] + Markdown() + doc[j:]
	if want == doc {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the settings table is out of date; run go test ./node/config -run TestDocsTable -update", path)
}
