package filters

import (
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

func TestEventsDropsSubscriberThatFallsAQueueBehind(t *testing.T) {
	e := NewEvents()
	overflowed := make(chan struct{})
	slow := e.subscribe(2, false, true, func() { close(overflowed) })
	fast := e.subscribe(10, false, true, nil)
	blocksOnly := e.subscribe(1, true, false, nil)

	tx := types.NewTx(&types.LegacyTx{})
	for i := 0; i < 3; i++ {
		e.PublishPending(tx) // never blocks, however full a queue is
	}
	select {
	case <-overflowed:
	case <-time.After(time.Second):
		t.Fatal("overflow callback not called")
	}
	// The slow subscriber got its two events, then its channel was closed.
	for i := 0; i < 2; i++ {
		if ev, ok := <-slow.ch; !ok || ev.tx != tx {
			t.Fatalf("slow event %d: ok=%v", i, ok)
		}
	}
	if _, ok := <-slow.ch; ok {
		t.Fatal("slow subscriber's channel not closed")
	}
	if len(fast.ch) != 3 || len(blocksOnly.ch) != 0 || e.Len() != 2 {
		t.Fatalf("fast %d, blocksOnly %d, subscribers %d", len(fast.ch), len(blocksOnly.ch), e.Len())
	}
	e.unsubscribe(slow) // unsubscribing a dropped subscriber is harmless
	e.unsubscribe(fast)
	e.unsubscribe(blocksOnly)
	if e.Len() != 0 {
		t.Fatalf("%d subscribers left", e.Len())
	}
}
