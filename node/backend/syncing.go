package backend

import (
	cs "github.com/cometbft/cometbft/consensus"
	cmttypes "github.com/cometbft/cometbft/types"
)

// SyncStatus reports CometBFT's block sync, the state /status shows as
// sync_info.catching_up: while it lasts, syncing is true, start is the
// app's head when the node started, current the app's head now, and
// highest the highest block known: CometBFT's block store height or the
// last block a connected peer committed (its consensus height - 1),
// whichever is higher, never below current. Once caught up: false.
func (b *Backend) SyncStatus() (syncing bool, start, current, highest uint64) {
	cmt := b.c.Comet()
	if cmt == nil || !cmt.ConsensusReactor().WaitSync() {
		return false, 0, 0, 0
	}
	current = b.c.Store.Head().Number.Uint64()
	highest = max(current, uint64(max(cmt.BlockStore().Height(), 0)))
	for _, p := range cmt.Switch().Peers().List() {
		ps, ok := p.Get(cmttypes.PeerStateKey).(*cs.PeerState)
		if !ok {
			continue
		}
		if h := ps.GetHeight() - 1; h > 0 && uint64(h) > highest {
			highest = uint64(h)
		}
	}
	return true, min(b.opts.StartHead, current), current, highest
}
