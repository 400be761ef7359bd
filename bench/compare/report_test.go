package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/emberchain/ember/bench/internal/writes"
)

// The drain row lists each round's drain for every node that committed
// something, and leaves a failed round out.
func TestPrintDrain(t *testing.T) {
	r := &report{kinds: []nodeKind{{key: "ember"}, {key: "geth"}}}
	res := func(drain time.Duration) *writes.Result {
		return &writes.Result{Committed: 10, Drain: drain}
	}
	rounds := [][]*writes.Result{
		{res(142 * time.Millisecond), res(448 * time.Millisecond)},
		{res(98600 * time.Microsecond), nil},
		{{Committed: 0}, res(902 * time.Millisecond)},
	}
	var b bytes.Buffer
	r.printDrain(&b, rounds)
	want := "| " + drainLabel + " | 142 / 99 | 448 / 902 |\n"
	if got := b.String(); got != want {
		t.Fatalf("drain row:\n%q\nwant\n%q", got, want)
	}
}
