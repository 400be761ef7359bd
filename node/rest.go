package node

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core/state"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/cosmosapi"
)

// cosmosBackend serves the Cosmos services (gRPC, REST, abci_query) from
// the store, the app and the in-process CometBFT.
type cosmosBackend struct{ n *Node }

func (b cosmosBackend) Prefix() string         { return b.n.state.Bech32Prefix }
func (b cosmosBackend) Denom() string          { return b.n.state.Denom }
func (b cosmosBackend) Version() string        { return app.Version }
func (b cosmosBackend) Comet() cosmosapi.Comet { return b.n.local.Load() }

func (b cosmosBackend) Simulate(tx []byte) (uint64, uint64, error) { return b.n.app.Simulate(tx) }

func (b cosmosBackend) StateAt(height int64) (*state.StateDB, int64, error) {
	header := b.n.store.Head()
	if height > 0 && height != header.Number.Int64() {
		if height > header.Number.Int64() {
			return nil, 0, fmt.Errorf("%w: height %d is in the future (latest is %d)", cosmosapi.ErrHeight, height, header.Number)
		}
		if err := b.n.store.CheckState(uint64(height)); err != nil {
			return nil, 0, fmt.Errorf("%w: %v", cosmosapi.ErrHeight, err)
		}
		if header = b.n.store.HeaderByNumber(uint64(height)); header == nil {
			return nil, 0, fmt.Errorf("%w: no block %d", cosmosapi.ErrHeight, height)
		}
	}
	st, err := b.n.store.CachedStateOf(header)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", cosmosapi.ErrHeight, err)
	}
	return st, header.Number.Int64(), nil
}
