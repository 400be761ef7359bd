package main

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
)

// watcher polls the head and records when each transaction first appears in
// a block: the moment its receipt became available to a client.
type watcher struct {
	included map[common.Hash]time.Time
	blocks   int
	err      error // last error reading a block
	done     chan struct{}
}

func newWatcher(eth *ethclient.Client, from uint64, want int, timeout time.Duration) *watcher {
	w := &watcher{included: make(map[common.Hash]time.Time, want), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		next := from + 1
		deadline := time.Now().Add(timeout)
		for len(w.included) < want && time.Now().Before(deadline) {
			head, err := eth.BlockNumber(context.Background())
			if err != nil || head < next {
				time.Sleep(2 * time.Millisecond)
				continue
			}
			now := time.Now()
			for ; next <= head; next++ {
				b, err := eth.BlockByNumber(context.Background(), new(big.Int).SetUint64(next))
				if err != nil {
					w.err = err
					time.Sleep(10 * time.Millisecond)
					break
				}
				if len(b.Transactions()) > 0 {
					w.blocks++
				}
				for _, tx := range b.Transactions() {
					w.included[tx.Hash()] = now
				}
			}
		}
	}()
	return w
}

// wait returns inclusion times once every tx is in, or at the timeout.
func (w *watcher) wait() (map[common.Hash]time.Time, int) {
	<-w.done
	return w.included, w.blocks
}
