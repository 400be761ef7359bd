package node

import (
	"context"
	"fmt"
	"time"

	"github.com/emberchain/ember/node/cometstore"
	"github.com/emberchain/ember/rpc/eth"
	"github.com/emberchain/ember/rpc/filters"
)

// Revert brings a dev chain back to block h (evm_revert), on every
// surface: CometBFT is stopped, its block, state and index stores, its
// consensus WAL and the validator's sign state are rewound to h, then
// Ember's store, the pool, the filters and the explorer, and CometBFT is
// started again on the rewound stores (its handshake finds app and store
// at h). See docs/dev-chain.md.
func (n *Node) Revert(ctx context.Context, h uint64) error {
	n.revertMu.Lock()
	defer n.revertMu.Unlock()
	if head := n.store.Head().Number.Uint64(); h >= head {
		return nil
	}
	start := time.Now()
	n.stopComet()
	if err := n.rewind(ctx, h); err != nil {
		// The chain is in no state to go on: say so loudly; a restart of
		// the node replays what CometBFT has that the store lacks.
		n.log.Error("evm_revert failed", "height", h, "err", err)
		return err
	}
	cmt, err := n.newComet()
	if err != nil {
		return err
	}
	if err := n.startComet(cmt); err != nil {
		return err
	}
	n.log.Info("reverted", "height", h, "took", time.Since(start))
	return nil
}

// rewind rewinds everything CometBFT and the node keep to h, CometBFT
// stopped.
func (n *Node) rewind(ctx context.Context, h uint64) error {
	if err := cometstore.Rewind(n.cmtCfg, n.cometDBProvider(), n.cmtStart.pv, int64(h)); err != nil {
		return err
	}
	if err := n.store.Rewind(h); err != nil {
		return err
	}
	if err := n.app.Rewound(); err != nil {
		return err
	}
	// The pool's transactions were checked against reverted state (and
	// CometBFT's new mempool starts empty): drop them, journal included.
	n.pool.RemoveAll(n.pool.Raws())
	if n.journal != nil {
		if err := n.journal.Rotate(func() [][]byte { return nil }); err != nil {
			return err
		}
	}
	if n.filters != nil {
		filters.Rewind(n.filters, h)
	}
	if n.ethAPI != nil {
		eth.Rewound(n.ethAPI)
	}
	if n.explorer != nil {
		n.exSource.Rewind(h)
		if err := n.explorer.Rewind(ctx, h); err != nil {
			return fmt.Errorf("rewind the explorer: %w", err)
		}
	}
	return nil
}
