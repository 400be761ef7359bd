package node

import (
	"fmt"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/rest"
)

// restBackend serves the native REST endpoints from the store.
type restBackend struct{ n *Node }

func (b restBackend) Prefix() string { return b.n.state.Bech32Prefix }
func (b restBackend) Denom() string  { return b.n.state.Denom }

func (b restBackend) StateAt(height int64) (accounts.AccountState, int64, error) {
	header := b.n.store.Head()
	if height > 0 && height != header.Number.Int64() {
		if height > header.Number.Int64() {
			return nil, 0, fmt.Errorf("%w: height %d is in the future (latest is %d)", rest.ErrHeight, height, header.Number)
		}
		if header = b.n.store.HeaderByNumber(uint64(height)); header == nil {
			return nil, 0, fmt.Errorf("%w: no block %d", rest.ErrHeight, height)
		}
	}
	st, err := b.n.store.CachedStateAt(header.Root)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: state of block %d: %v", rest.ErrHeight, header.Number, err)
	}
	return st, header.Number.Int64(), nil
}
