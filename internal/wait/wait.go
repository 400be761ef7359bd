// Package wait is the one way tests wait for something another process or
// goroutine does: poll a check until it holds or a deadline passes, and on
// failure say what was awaited and what was seen last. A bare time.Sleep
// before an assertion guesses how long the other side needs; a guess that
// holds on an idle machine fails on a loaded CI runner.
package wait

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// Poll calls check until it returns nil and returns nil; if timeout passes
// first, it returns an error naming what and check's last error (the last
// value seen, as the check words it). A check that returns Stop(err) ends
// the wait at once with err. The first poll is immediate; the pause between
// polls grows from 1 ms to 50 ms, so a quick answer is seen quickly and a
// slow one is not hammered. Poll does not fail a test, so a goroutine other
// than the test's may call it.
func Poll(timeout time.Duration, what string, check func() error) error {
	return poll(0, timeout, what, check)
}

// PollEvery is Poll with a fixed pause between polls, for a test that acts
// the moment something happens (kills a node as a snapshot begins).
func PollEvery(every, timeout time.Duration, what string, check func() error) error {
	return poll(every, timeout, what, check)
}

func poll(every, timeout time.Duration, what string, check func() error) error {
	start := time.Now()
	deadline := start.Add(timeout)
	pause := every
	if every == 0 {
		pause = time.Millisecond
	}
	for {
		err := check()
		if err == nil {
			return nil
		}
		if s := (stopped{}); errors.As(err, &s) {
			return fmt.Errorf("waiting for %s: %w", what, s.error)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waited %v for %s; last seen: %w", time.Since(start).Round(time.Millisecond), what, err)
		}
		time.Sleep(pause)
		if every == 0 {
			pause = min(2*pause, 50*time.Millisecond)
		}
	}
}

// Eventually is Poll that fails t (t.Fatal) when the timeout passes. It
// must be called from the test's goroutine.
func Eventually(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	if err := Poll(timeout, what, check); err != nil {
		t.Fatal(err)
	}
}

// For is Eventually for a check that produces something: get returns the
// value and nil once it is ready (or a reason it is not yet), and For
// returns that value.
func For[T any](t testing.TB, timeout time.Duration, what string, get func() (T, error)) T {
	t.Helper()
	var v T
	Eventually(t, timeout, what, func() error {
		got, err := get()
		if err == nil {
			v = got
		}
		return err
	})
	return v
}

// Check is a check's answer: nil when ok, otherwise an error saying what
// was seen, so a timeout reports it: wait.Check(h >= want, "head %d", h).
func Check(ok bool, seen string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(seen, args...)
}

// Stop is a check's answer when what it waits for can no longer happen
// (the process it polls exited): Poll returns at once with err.
func Stop(err error) error { return stopped{err} }

type stopped struct{ error }

func (s stopped) Unwrap() error { return s.error }
