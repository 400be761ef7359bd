package backend

import (
	"fmt"

	"github.com/cometbft/cometbft/rpc/client/local"
	"github.com/ethereum/go-ethereum/core/state"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/cosmosapi"
)

// Cosmos serves the Cosmos services (gRPC, REST, abci_query) from the
// store, the app and the in-process CometBFT.
type Cosmos struct {
	c     Chain
	local func() *local.Local // CometBFT's RPC as a client, replaced with CometBFT
}

// NewCosmos is the Cosmos services' backend over c, reaching CometBFT
// through local.
func NewCosmos(c Chain, local func() *local.Local) Cosmos { return Cosmos{c: c, local: local} }

func (b Cosmos) Prefix() string         { return b.c.State.Bech32Prefix }
func (b Cosmos) Denom() string          { return b.c.State.Denom }
func (b Cosmos) Version() string        { return app.Version }
func (b Cosmos) Comet() cosmosapi.Comet { return b.local() }

func (b Cosmos) Simulate(tx []byte) (uint64, uint64, error) { return b.c.App.Simulate(tx) }

func (b Cosmos) StateAt(height int64) (*state.StateDB, int64, error) {
	header := b.c.Store.Head()
	if height > 0 && height != header.Number.Int64() {
		if height > header.Number.Int64() {
			return nil, 0, fmt.Errorf("%w: height %d is in the future (latest is %d)", cosmosapi.ErrHeight, height, header.Number)
		}
		if err := b.c.Store.CheckState(uint64(height)); err != nil {
			return nil, 0, fmt.Errorf("%w: %v", cosmosapi.ErrHeight, err)
		}
		if header = b.c.Store.HeaderByNumber(uint64(height)); header == nil {
			return nil, 0, fmt.Errorf("%w: no block %d", cosmosapi.ErrHeight, height)
		}
	}
	st, err := b.c.Store.CachedStateOf(header)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", cosmosapi.ErrHeight, err)
	}
	return st, header.Number.Int64(), nil
}
