package wait

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestPollReturnsOnceCheckHolds(t *testing.T) {
	calls := 0
	err := Poll(time.Minute, "the third call", func() error {
		calls++
		return Check(calls == 3, "call %d", calls)
	})
	if err != nil || calls != 3 {
		t.Fatalf("Poll = %v after %d calls, want nil after 3", err, calls)
	}
}

func TestPollTimeoutNamesWhatAndLastSeen(t *testing.T) {
	calls := 0
	start := time.Now()
	err := Poll(30*time.Millisecond, "block 7", func() error {
		calls++
		return Check(false, "head %d", calls)
	})
	if elapsed := time.Since(start); elapsed < 30*time.Millisecond || elapsed > 5*time.Second {
		t.Errorf("Poll gave up after %v, want about 30ms", elapsed)
	}
	if err == nil || !strings.Contains(err.Error(), "for block 7; last seen: head ") ||
		!strings.HasSuffix(err.Error(), "head "+strconv.Itoa(calls)) {
		t.Fatalf("Poll error %q after %d calls: want what was awaited and the last value", err, calls)
	}
	sentinel := errors.New("connection refused")
	if err := Poll(0, "x", func() error { return sentinel }); !errors.Is(err, sentinel) {
		t.Fatalf("Poll error %v does not wrap the check's last error", err)
	}
}

func TestForReturnsTheValue(t *testing.T) {
	n := 0
	got := For(t, time.Minute, "n to reach 2", func() (int, error) {
		n++
		return n * 10, Check(n >= 2, "n %d", n)
	})
	if got != 20 {
		t.Fatalf("For = %d, want 20 (the value of the call that held)", got)
	}
}

func TestCheck(t *testing.T) {
	if Check(true, "x") != nil {
		t.Fatal("Check(true) is not nil")
	}
	if err := Check(false, "head %d, want %d", 3, 4); err == nil || err.Error() != "head 3, want 4" {
		t.Fatalf("Check(false) = %v, want the formatted text", err)
	}
}

func TestStopEndsTheWait(t *testing.T) {
	exited := errors.New("emberd exited")
	calls := 0
	err := Poll(time.Minute, "JSON-RPC", func() error {
		calls++
		return Stop(exited)
	})
	if calls != 1 || !errors.Is(err, exited) || err.Error() != "waiting for JSON-RPC: emberd exited" {
		t.Fatalf("Poll after Stop: %v after %d calls, want the stop error after 1", err, calls)
	}
}
