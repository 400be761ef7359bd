package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestJournalRoundTrip: what was added is read back at the next Open, a
// record cut short by a crash ends the list, a rotation keeps only the
// content given, and a closed journal refuses additions.
func TestJournalRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "txpool.journal")
	j, raws, err := Open(path)
	if err != nil || len(raws) != 0 {
		t.Fatalf("new journal: %v %v", raws, err)
	}
	txs := [][]byte{[]byte("one"), bytes.Repeat([]byte{7}, 300), []byte("three")}
	for _, raw := range txs {
		if err := j.Add(raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := j.Add([]byte("late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("add after close: %v, want ErrClosed", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0xb9, 0x01}) // the head of a long string, its body never written
	f.Close()

	j, raws, err = Open(path)
	if err != nil || !slices.EqualFunc(raws, txs, bytes.Equal) {
		t.Fatalf("reopened: %q %v, want %q", raws, err, txs)
	}
	if err := j.Rotate(func() [][]byte { return txs[2:] }); err != nil {
		t.Fatal(err)
	}
	if err := j.Add([]byte("four")); err != nil {
		t.Fatal(err)
	}
	j.Close()
	if _, raws, err = Open(path); err != nil || !slices.EqualFunc(raws, [][]byte{[]byte("three"), []byte("four")}, bytes.Equal) {
		t.Fatalf("after rotation: %q %v", raws, err)
	}
}
