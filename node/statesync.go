package node

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/snapshot"
)

// snapshotsDir is where a home keeps its snapshots.
func snapshotsDir(home string) string { return filepath.Join(home, "data", "snapshots") }

// openSnapshots makes the app serve snapshots and make one every interval
// blocks, when the config asks for them.
func (n *Node) openSnapshots() error {
	c := n.cfg.StateSync
	if c.SnapshotInterval == 0 {
		return nil
	}
	m, err := snapshot.Open(snapshotsDir(n.home), c.SnapshotKeepRecent, n.log.With("module", "snapshot"))
	if err != nil {
		return fmt.Errorf("snapshots: %w", err)
	}
	n.snapshots = m
	n.app.SetSnapshots(m)
	n.app.OnCommit(func(b *app.CommittedBlock) {
		if h := b.Block.NumberU64(); h%c.SnapshotInterval == 0 {
			m.CreateAsync(n.store, h)
		}
	})
	return nil
}

// errExplorerStateSync refuses the explorer on a node without every block.
var errExplorerStateSync = errors.New("the explorer indexes every block from genesis: it cannot run on a node that joined by state sync ([explorer] enable = false)")

// checkStateSync refuses settings a state-synced node cannot serve.
func (n *Node) checkStateSync() error {
	syncing := n.store.Head() == nil && n.cmtCfg.StateSync.Enable
	if n.cfg.Explorer.Enable && (syncing || n.store.FirstBlock() > 0) {
		return errExplorerStateSync
	}
	return nil
}

// awaitState waits, when CometBFT is restoring a snapshot into an empty
// store, until the store has a head: the servers started after it read
// the state at the head. A stop signal meanwhile ends the process (nothing
// was committed; a partial restore starts over at the next start).
func (n *Node) awaitState() {
	if n.store.Head() != nil {
		return
	}
	n.log.Info("state sync: waiting for a snapshot to be restored")
	start, last := time.Now(), time.Now()
	for n.store.Head() == nil {
		if time.Since(last) > 10*time.Second {
			n.log.Info("state sync: still waiting for a snapshot", "waited", time.Since(start).Round(time.Second))
			last = time.Now()
		}
		time.Sleep(50 * time.Millisecond)
	}
	n.startHead = n.store.Head().Number.Uint64()
	n.log.Info("state sync: restored", "height", n.startHead, "took", time.Since(start).Round(time.Millisecond))
}

// headNumber is the store's head, 0 before it has one.
func (n *Node) headNumber() uint64 {
	if h := n.store.Head(); h != nil {
		return h.Number.Uint64()
	}
	return 0
}
