package node

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/emberchain/ember/txpool/journal"
)

// journalRotation is how often the journal is rewritten with the pool's
// content (go-ethereum: hourly): a busy dev chain appends quickly, and
// included transactions should not be admitted again at a restart.
const journalRotation = time.Minute

// startJournal opens the home's transaction journal, admits again what it
// holds (after a crash or a stop: those the chain has not included yet),
// rewrites it with what the pool then holds and rotates it from then on.
func (n *Node) startJournal() error {
	j, raws, err := journal.Open(filepath.Join(n.home, "data", "txpool.journal"))
	if err != nil {
		return err
	}
	admitted := 0
	for _, raw := range raws {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if n.chain().Admit(ctx, raw, nil) == nil {
			admitted++
		}
		cancel()
	}
	if len(raws) > 0 {
		n.log.Info("transaction journal replayed", "journaled", len(raws), "admitted", admitted)
	}
	if err := j.Rotate(n.pool.Raws); err != nil {
		j.Close()
		return err
	}
	n.journal = j
	n.journalStop = j.RotateEvery(journalRotation, n.pool.Raws, func(err error) {
		n.log.Error("transaction journal", "err", err)
	})
	return nil
}

// journalTx records an accepted transaction. A failed write halts the
// node (failstop.go) and is the client's answer: a restart would lose the
// transaction, so no hash is given for it. A send still being answered
// while the node stops finds the journal closed, which is not an error:
// the node is going away.
func (n *Node) journalTx(raw []byte) error {
	if n.journal == nil {
		return nil
	}
	if err := n.journal.Add(raw); err != nil && !errors.Is(err, journal.ErrClosed) {
		n.fail(fmt.Errorf("write the transaction journal: %w", err))
		return n.halted()
	}
	return nil
}

// stopJournal writes the pool's content a last time and closes the
// journal. n.journal stays set (and closed): a send the RPC servers'
// shutdown left running may still read it.
func (n *Node) stopJournal() {
	if n.journal == nil {
		return
	}
	n.journalOnce.Do(func() {
		n.journalStop()
		if err := n.journal.Rotate(n.pool.Raws); err != nil {
			n.log.Error("transaction journal", "err", err)
		}
		n.journal.Close()
	})
}
