package node

import (
	"testing"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"

	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/rpc"
)

// TestOverridesApply: a flag given wins over app.toml; one not given leaves
// the file's value.
func TestOverridesApply(t *testing.T) {
	cfg := config.Default()
	cfg.JSONRPC.EVMTimeout = rpc.Duration(7 * time.Second) // as if read from app.toml
	http := 5 * time.Minute
	keep := uint64(12)
	Overrides{JSONRPCHTTPTimeout: &http, KeepRecent: &keep, Pruning: "full"}.apply(&cfg, cmtcfg.DefaultConfig())
	if cfg.JSONRPC.HTTPTimeout.Std() != 5*time.Minute {
		t.Errorf("http-timeout %v, want the flag's 5m", cfg.JSONRPC.HTTPTimeout.Std())
	}
	if cfg.JSONRPC.EVMTimeout.Std() != 7*time.Second {
		t.Errorf("evm-timeout %v, want the file's 7s (no flag)", cfg.JSONRPC.EVMTimeout.Std())
	}
	if cfg.Store.KeepRecent != 12 || cfg.Store.Pruning != "full" {
		t.Errorf("store %+v, want the flags' full / 12", cfg.Store)
	}
}
