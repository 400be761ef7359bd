package node

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rlp"
)

// txJournal keeps the transactions this node's clients sent it and it
// accepted (eth_sendRawTransaction answered their hash), so that a restart,
// even after a kill, admits them again instead of losing them with the
// in-memory pools (CometBFT's mempool and Ember's). As go-ethereum journals
// its local transactions: each is appended, as an RLP string of its bytes,
// before the client gets its answer, in one write that reaches the
// operating system (a killed process loses none; only a power loss could);
// now and then the file is rewritten with what the pool still holds, so
// included transactions leave it.
type txJournal struct {
	path string
	mu   sync.Mutex
	f    *os.File // open for appending
}

// openTxJournal opens the journal at path (creating it) and returns what
// it holds. A record cut short by a crash ends the list.
func openTxJournal(path string) (*txJournal, [][]byte, error) {
	raws, err := readTxJournal(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open transaction journal: %w", err)
	}
	return &txJournal{path: path, f: f}, raws, nil
}

func readTxJournal(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read transaction journal: %w", err)
	}
	defer f.Close()
	s := rlp.NewStream(bufio.NewReader(f), 0)
	var raws [][]byte
	for {
		raw, err := s.Bytes()
		if err != nil { // io.EOF, or the tail of a write a crash cut
			return raws, nil
		}
		raws = append(raws, raw)
	}
}

// add appends raw.
func (j *txJournal) add(raw []byte) error {
	rec, err := rlp.EncodeToBytes(raw)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errJournalClosed
	}
	_, err = j.f.Write(rec)
	return err
}

// rotate replaces the journal with content() (the pool's transactions):
// written to a temporary file, then renamed over the journal, so a crash
// leaves one or the other whole. content is read under the lock appends
// take: a transaction is added to the pool before it is appended, so one
// appended before is in content (or has left the pool: included), and one
// appended after goes to the new file. (Reading it before taking the lock
// lost a transaction admitted and appended in between.)
func (j *txJournal) rotate(content func() [][]byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errJournalClosed
	}
	tmp := j.path + ".new"
	if err := writeTxJournal(tmp, content()); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, j.path); err != nil {
		return fmt.Errorf("rotate transaction journal: %w", err)
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("reopen transaction journal: %w", err)
	}
	j.f.Close()
	j.f = f
	return nil
}

func writeTxJournal(path string, raws [][]byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("write transaction journal: %w", err)
	}
	w := bufio.NewWriter(f)
	for _, raw := range raws {
		if err := rlp.Encode(w, raw); err != nil {
			f.Close()
			return err
		}
	}
	return errors.Join(w.Flush(), f.Close())
}

// close ends appending.
func (j *txJournal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// journalRotation is how often the journal is rewritten with the pool's
// content (go-ethereum: hourly); a busy dev chain appends a few MB a
// minute.
const journalRotation = time.Minute

// startJournal opens the home's transaction journal, admits again what it
// holds (after a crash or a stop: those the chain has not included yet),
// rewrites it with what the pool then holds and rotates it from then on.
func (n *Node) startJournal() error {
	j, raws, err := openTxJournal(filepath.Join(n.home, "data", "txpool.journal"))
	if err != nil {
		return err
	}
	admitted := 0
	for _, raw := range raws {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if n.admit(ctx, raw, nil) == nil {
			admitted++
		}
		cancel()
	}
	if len(raws) > 0 {
		n.log.Info("transaction journal replayed", "journaled", len(raws), "admitted", admitted)
	}
	if err := j.rotate(n.pool.Raws); err != nil {
		j.close()
		return err
	}
	n.journal = j
	n.journalStop = make(chan struct{})
	n.journalDone = make(chan struct{})
	go n.rotateJournal()
	return nil
}

func (n *Node) rotateJournal() {
	defer close(n.journalDone)
	t := time.NewTicker(journalRotation)
	defer t.Stop()
	for {
		select {
		case <-n.journalStop:
			return
		case <-t.C:
			if err := n.journal.rotate(n.pool.Raws); err != nil {
				n.log.Error("transaction journal", "err", err)
			}
		}
	}
}

// errJournalClosed is what adding to a stopped journal answers.
var errJournalClosed = errors.New("transaction journal closed")

// journalTx records an accepted transaction; a failure is logged, not the
// client's: the transaction is in the pools. A send still being answered
// while the node stops finds the journal closed, which is not an error:
// the node is going away.
func (n *Node) journalTx(raw []byte) {
	if n.journal == nil {
		return
	}
	if err := n.journal.add(raw); err != nil && !errors.Is(err, errJournalClosed) {
		n.log.Error("transaction journal", "err", err)
	}
}

// stopJournal writes the pool's content a last time and closes the
// journal. n.journal stays set (and closed): a send the RPC servers'
// shutdown left running may still read it.
func (n *Node) stopJournal() {
	if n.journal == nil {
		return
	}
	n.journalOnce.Do(func() {
		close(n.journalStop)
		<-n.journalDone
		if err := n.journal.rotate(n.pool.Raws); err != nil {
			n.log.Error("transaction journal", "err", err)
		}
		n.journal.close()
	})
}
