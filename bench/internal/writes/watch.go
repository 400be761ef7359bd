package writes

import (
	"context"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// watcher polls the head every 2 ms and records when each transaction
// first appears in a block: the moment its receipt became available to a
// client. Blocks are read with transaction hashes only, so the watcher
// costs the node little.
type watcher struct {
	mu       sync.Mutex
	included map[common.Hash]time.Time
	blocks   int
	want     int
	quit     chan struct{}
	done     chan struct{}
}

func watch(c *rpc.Client, from uint64, want int) *watcher {
	w := &watcher{included: make(map[common.Hash]time.Time, want), want: want, quit: make(chan struct{}), done: make(chan struct{})}
	go w.loop(c, from+1)
	return w
}

func (w *watcher) loop(c *rpc.Client, next uint64) {
	defer close(w.done)
	ctx := context.Background()
	for {
		select {
		case <-w.quit:
			return
		default:
		}
		var head hexutil.Uint64
		if err := c.CallContext(ctx, &head, "eth_blockNumber"); err != nil || uint64(head) < next {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		now := time.Now()
		for ; next <= uint64(head); next++ {
			var b struct {
				Transactions []common.Hash `json:"transactions"`
			}
			if err := c.CallContext(ctx, &b, "eth_getBlockByNumber", hexutil.Uint64(next), false); err != nil {
				time.Sleep(10 * time.Millisecond)
				break
			}
			w.mu.Lock()
			if len(b.Transactions) > 0 {
				w.blocks++
			}
			for _, h := range b.Transactions {
				w.included[h] = now
			}
			n := len(w.included)
			w.mu.Unlock()
			if n >= w.want {
				return
			}
		}
	}
}

func (w *watcher) stop() {
	close(w.quit)
	<-w.done
}

// wait returns inclusion times once every transaction is in, or after
// timeout.
func (w *watcher) wait(timeout time.Duration) (map[common.Hash]time.Time, int) {
	select {
	case <-w.done:
	case <-time.After(timeout):
		w.stop()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.included, w.blocks
}
