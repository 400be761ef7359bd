// Package journal keeps the transactions a node's clients sent it and it
// accepted, so that a restart, even after a kill, admits them again instead
// of losing them with the in-memory pools (CometBFT's mempool and Ember's).
// As go-ethereum journals its local transactions: each is appended, as an
// RLP string of its bytes, before the client gets its answer, in one write
// that reaches the operating system (a killed process loses none; only a
// power loss could); now and then the file is rewritten with what the pool
// still holds, so included transactions leave it.
package journal

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rlp"
)

// ErrClosed is what adding to a closed journal answers.
var ErrClosed = errors.New("transaction journal closed")

// Journal is the file of accepted transactions.
type Journal struct {
	path string
	mu   sync.Mutex
	f    *os.File // open for appending; nil once closed
}

// Open opens the journal at path (creating it) and returns what it holds.
// A record cut short by a crash ends the list.
func Open(path string) (*Journal, [][]byte, error) {
	raws, err := read(path)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open transaction journal: %w", err)
	}
	return &Journal{path: path, f: f}, raws, nil
}

func read(path string) ([][]byte, error) {
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

// Add appends raw.
func (j *Journal) Add(raw []byte) error {
	rec, err := rlp.EncodeToBytes(raw)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return ErrClosed
	}
	_, err = j.f.Write(rec)
	return err
}

// Rotate replaces the journal with content() (the pool's transactions):
// written to a temporary file, then renamed over the journal, so a crash
// leaves one or the other whole. content is read under the lock Add
// takes: a transaction is added to the pool before it is appended, so one
// appended before is in content (or has left the pool: included), and one
// appended after goes to the new file. Reading it before taking the lock
// would lose a transaction admitted and appended in between.
func (j *Journal) Rotate(content func() [][]byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return ErrClosed
	}
	tmp := j.path + ".new"
	if err := write(tmp, content()); err != nil {
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

func write(path string, raws [][]byte) error {
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

// Close ends appending; Add answers ErrClosed from then on.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// RotateEvery rotates the journal with content every interval until the
// returned stop is called; stop waits for a rotation under way. A failed
// rotation is handed to fail and the next one tried as usual.
func (j *Journal) RotateEvery(interval time.Duration, content func() [][]byte, fail func(error)) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				if err := j.Rotate(content); err != nil {
					fail(err)
				}
			}
		}
	}()
	return func() { close(quit); <-done }
}
