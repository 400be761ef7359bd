package app

import (
	"context"
	"errors"
	"sync"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/emberchain/ember/snapshot"
)

// State sync (ABCI snapshot connection). A node serves the snapshots its
// snapshot.Manager made; a node CometBFT state-syncs restores one through a
// snapshot.Restorer. CometBFT calls these on the snapshot connection, one
// at a time, beside the other connections.

// errNoState answers CheckTx while a state-syncing node has no state yet.
var errNoState = errors.New("this node is state-syncing and has no state yet")

// snapshotState is the app's state-sync part.
type snapshotState struct {
	mu       sync.Mutex
	manager  *snapshot.Manager  // nil: this node serves no snapshots
	restorer *snapshot.Restorer // the snapshot being restored, if any
}

// SetSnapshots makes the app serve the snapshots m holds.
func (a *App) SetSnapshots(m *snapshot.Manager) {
	a.snap.mu.Lock()
	defer a.snap.mu.Unlock()
	a.snap.manager = m
}

func (a *App) snapshots() *snapshot.Manager {
	a.snap.mu.Lock()
	defer a.snap.mu.Unlock()
	return a.snap.manager
}

// ListSnapshots lists the snapshots this node serves, newest first.
func (a *App) ListSnapshots(context.Context, *abci.RequestListSnapshots) (*abci.ResponseListSnapshots, error) {
	m := a.snapshots()
	if m == nil {
		return &abci.ResponseListSnapshots{}, nil
	}
	list, err := m.List()
	if err != nil {
		a.log.Error("list snapshots", "err", err)
		return &abci.ResponseListSnapshots{}, nil
	}
	res := &abci.ResponseListSnapshots{Snapshots: make([]*abci.Snapshot, len(list))}
	for i, s := range list {
		res.Snapshots[i] = &abci.Snapshot{Height: s.Height, Format: s.Format, Chunks: s.Chunks, Hash: s.Hash, Metadata: s.Metadata}
	}
	return res, nil
}

// LoadSnapshotChunk serves one chunk; an unknown one is answered empty,
// which CometBFT takes as "not available here".
func (a *App) LoadSnapshotChunk(_ context.Context, req *abci.RequestLoadSnapshotChunk) (*abci.ResponseLoadSnapshotChunk, error) {
	m := a.snapshots()
	if m == nil {
		return &abci.ResponseLoadSnapshotChunk{}, nil
	}
	chunk, err := m.Chunk(req.Height, req.Format, req.Chunk)
	if err != nil {
		a.log.Debug("load snapshot chunk", "height", req.Height, "chunk", req.Chunk, "err", err)
		return &abci.ResponseLoadSnapshotChunk{}, nil
	}
	return &abci.ResponseLoadSnapshotChunk{Chunk: chunk}, nil
}

// OfferSnapshot accepts a snapshot of this format whose metadata matches
// its hash and whose state root is the app hash CometBFT's light client
// verified for that height. It starts the restore over: a previous
// partial one is abandoned.
func (a *App) OfferSnapshot(_ context.Context, req *abci.RequestOfferSnapshot) (*abci.ResponseOfferSnapshot, error) {
	a.snap.mu.Lock()
	defer a.snap.mu.Unlock()
	a.snap.restorer = nil
	s := req.Snapshot
	if s == nil {
		return &abci.ResponseOfferSnapshot{Result: abci.ResponseOfferSnapshot_REJECT}, nil
	}
	if s.Format != snapshot.Format {
		return &abci.ResponseOfferSnapshot{Result: abci.ResponseOfferSnapshot_REJECT_FORMAT}, nil
	}
	md, err := snapshot.DecodeMetadata(s.Metadata, s.Hash, s.Height, s.Format, s.Chunks)
	if err == nil {
		a.snap.restorer, err = snapshot.NewRestorer(a.store, md, req.AppHash)
	}
	if err != nil {
		a.log.Info("snapshot rejected", "height", s.Height, "err", err)
		return &abci.ResponseOfferSnapshot{Result: abci.ResponseOfferSnapshot_REJECT}, nil
	}
	a.log.Info("restoring snapshot", "height", s.Height, "chunks", s.Chunks)
	return &abci.ResponseOfferSnapshot{Result: abci.ResponseOfferSnapshot_ACCEPT}, nil
}

// ApplySnapshotChunk applies the next chunk of the accepted snapshot. A
// chunk that does not hash as the metadata says is fetched again from
// another peer; a snapshot that turns out invalid is rejected (CometBFT
// tries another); after the last chunk the app serves from the snapshot
// height.
func (a *App) ApplySnapshotChunk(_ context.Context, req *abci.RequestApplySnapshotChunk) (*abci.ResponseApplySnapshotChunk, error) {
	a.snap.mu.Lock()
	defer a.snap.mu.Unlock()
	r := a.snap.restorer
	if r == nil {
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ABORT}, nil
	}
	done, err := r.Apply(req.Index, req.Chunk)
	switch {
	case errors.Is(err, snapshot.ErrChunkHash):
		a.log.Info("snapshot chunk refetched", "chunk", req.Index, "sender", req.Sender, "err", err)
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_RETRY,
			RefetchChunks: []uint32{req.Index}, RejectSenders: []string{req.Sender}}, nil
	case err != nil:
		a.log.Error("snapshot rejected while restoring", "height", r.Height(), "chunk", req.Index, "err", err)
		a.snap.restorer = nil
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_REJECT_SNAPSHOT}, nil
	case !done:
		return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ACCEPT}, nil
	}
	a.snap.restorer = nil
	a.checkMu.Lock()
	err = a.resetCheckState()
	a.checkMu.Unlock()
	if err != nil {
		return nil, err
	}
	a.log.Info("snapshot restored", "height", r.Height(), "stateRoot", a.store.Head().Root)
	return &abci.ResponseApplySnapshotChunk{Result: abci.ResponseApplySnapshotChunk_ACCEPT}, nil
}
