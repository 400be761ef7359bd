package config

import (
	"time"

	"github.com/emberchain/ember/rpc"
)

// Health is the [health] section: when the node reads as not ready (GET
// /ready on the JSON-RPC port, ember_ready).
type Health struct {
	// MaxBlockAge: not ready when the head block's timestamp is older, on
	// top of config.toml's create_empty_blocks_interval; 0s for no check.
	// A chain that makes blocks only for transactions (create_empty_blocks
	// false) is not checked.
	MaxBlockAge rpc.Duration `toml:"max-block-age"`
	// MaxBlocksBehind: not ready when a peer reports a height more than
	// this many blocks above the head.
	MaxBlocksBehind uint64 `toml:"max-blocks-behind"`
}

// DefaultHealth: a minute without a block, or ten blocks behind a peer.
func DefaultHealth() Health {
	return Health{MaxBlockAge: rpc.Duration(time.Minute), MaxBlocksBehind: 10}
}
