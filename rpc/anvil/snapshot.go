package anvil

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// snapshots are evm_snapshot's marks: ids counted up from 0, as anvil
// counts them, each the head's number when it was taken.
type snapshots struct {
	next    uint64
	heights map[uint64]uint64 // id -> head number
}

// snapshot is evm_snapshot: a mark of the current head, once settled: a
// snapshot taken right after a transaction's receipt would otherwise mark
// the block before CometBFT's proof block, which the client may already
// see as the head, and evm_revert would go one block further back than
// the head it saw (hardhat's loadFixture and takeSnapshot compare them).
func (api *API) snapshot(ctx context.Context) (hexutil.Uint64, error) {
	if err := api.b.Settle(ctx); err != nil {
		return 0, err
	}
	head := api.b.Head().Number.Uint64()
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.snaps.heights == nil {
		api.snaps.heights = make(map[uint64]uint64)
	}
	id := api.snaps.next
	api.snaps.next++
	api.snaps.heights[id] = head
	return hexutil.Uint64(id), nil
}

// revert is evm_revert: the chain goes back to the snapshot's head, as if
// the blocks after it had never been made. The snapshot and every later
// one are used up, as on anvil; an unknown id answers false.
func (api *API) revert(ctx context.Context, id Quantity) (bool, error) {
	if !id.Big().IsUint64() {
		return false, nil
	}
	n := id.Big().Uint64()
	api.mu.Lock()
	h, ok := api.snaps.heights[n]
	if ok {
		for k := range api.snaps.heights {
			if k >= n {
				delete(api.snaps.heights, k)
			}
		}
	}
	api.mu.Unlock()
	if !ok {
		return false, nil
	}
	if err := api.b.Revert(ctx, h); err != nil {
		return false, fmt.Errorf("revert to block %d: %w", h, err)
	}
	return true, nil
}

// Snapshot is evm_snapshot.
func (e *EVM) Snapshot(ctx context.Context) (hexutil.Uint64, error) { return e.api.snapshot(ctx) }

// Revert is evm_revert(id): true if the chain went back to snapshot id.
func (e *EVM) Revert(ctx context.Context, id Quantity) (bool, error) { return e.api.revert(ctx, id) }

// Snapshot is anvil_snapshot, evm_snapshot's alias.
func (a *Anvil) Snapshot(ctx context.Context) (hexutil.Uint64, error) { return a.api.snapshot(ctx) }

// Revert is anvil_revert, evm_revert's alias.
func (a *Anvil) Revert(ctx context.Context, id Quantity) (bool, error) { return a.api.revert(ctx, id) }
