package node

import (
	"context"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/internal/wait"
)

// TestSubscriptionsFreedWithConnection opens 1,000 WebSocket connections,
// each subscribing to newHeads, logs and newPendingTransactions, and closes
// them without unsubscribing: afterwards no subscriber, goroutine or heap
// growth may remain.
func TestSubscriptionsFreedWithConnection(t *testing.T) {
	n := startDevNode(t)
	url := "ws://" + n.Config().JSONRPC.WSAddress
	ctx := context.Background()

	cycle := func() {
		c, err := rpc.Dial(url)
		if err != nil {
			t.Fatal(err)
		}
		heads, logs, txs := make(chan *types.Header, 1), make(chan types.Log, 1), make(chan common.Hash, 1)
		for _, s := range []struct {
			ch   any
			args []any
		}{{heads, []any{"newHeads"}}, {logs, []any{"logs", map[string]any{}}}, {txs, []any{"newPendingTransactions"}}} {
			if _, err := c.EthSubscribe(ctx, s.ch, s.args...); err != nil {
				t.Fatal(err)
			}
		}
		c.Close()
	}
	for i := 0; i < 50; i++ { // warm up pools and caches
		cycle()
	}
	settle(t, n)
	baseG, baseHeap := steadyGoroutines(), heapInUse()

	for i := 0; i < 1000; i++ {
		cycle()
	}
	settle(t, n)
	// A connection's goroutines exit after its subscriptions are gone: a
	// leak is a count that does not come back down.
	_ = wait.Poll(10*time.Second, "the connections' goroutines to exit", func() error {
		g := runtime.NumGoroutine()
		return wait.Check(g <= baseG+5, "%d goroutines", g)
	})
	g, heap := runtime.NumGoroutine(), heapInUse()
	t.Logf("after 1000 cycles: goroutines %d -> %d, heap in use %.1f -> %.1f MiB", baseG, g, mib(baseHeap), mib(heap))
	if g > baseG+5 {
		t.Errorf("goroutines grew from %d to %d", baseG, g)
	}
	if heap > baseHeap+8<<20 {
		t.Errorf("heap in use grew from %.1f to %.1f MiB", mib(baseHeap), mib(heap))
	}
}

// settle waits until every subscription of closed connections is gone.
func settle(t *testing.T, n *Node) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, "the closed connections' subscriptions to go", func() error {
		subs, open := n.events.Len(), n.filters.OpenSubscriptions()
		return wait.Check(subs == 0 && open == 0, "%d event subscribers, %d subscriptions open", subs, open)
	})
}

// steadyGoroutines is the goroutine count once it stops falling (the
// closed connections' goroutines have exited), for a baseline.
func steadyGoroutines() int {
	last := math.MaxInt // the first poll only takes a sample
	_ = wait.PollEvery(100*time.Millisecond, 5*time.Second, "the goroutine count to stop falling", func() error {
		g := runtime.NumGoroutine()
		defer func() { last = g }()
		return wait.Check(g >= last, "%d goroutines, %d before", g, last)
	})
	return last
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
