// Package filters implements the log and event parts of the eth namespace:
// eth_getLogs over the store's log index, polling filters
// (eth_newFilter, eth_getFilterChanges, ...) and WebSocket subscriptions
// (eth_subscribe newHeads, logs, newPendingTransactions, syncing).
package filters

import (
	"sync"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/app"
)

// event is one committed block or one newly pending transaction.
type event struct {
	block *app.CommittedBlock
	tx    *types.Transaction
}

// Events fans committed blocks and pending transactions out to subscribers.
// Publishing never blocks: a subscriber whose queue is full is dropped (its
// channel closed) and its overflow callback runs.
type Events struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

// NewEvents returns an empty hub.
func NewEvents() *Events { return &Events{subs: make(map[*subscriber]struct{})} }

type subscriber struct {
	ch         chan event
	wantBlocks bool
	wantTxs    bool
	onOverflow func()
}

// PublishBlock hands a committed block to every block subscriber.
func (e *Events) PublishBlock(b *app.CommittedBlock) { e.publish(event{block: b}) }

// PublishPending hands a newly pending transaction to every tx subscriber.
func (e *Events) PublishPending(tx *types.Transaction) { e.publish(event{tx: tx}) }

func (e *Events) publish(ev event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for s := range e.subs {
		if (ev.block != nil && !s.wantBlocks) || (ev.tx != nil && !s.wantTxs) {
			continue
		}
		select {
		case s.ch <- ev:
		default:
			delete(e.subs, s)
			close(s.ch)
			if s.onOverflow != nil {
				go s.onOverflow()
			}
		}
	}
}

// subscribe adds a subscriber with a queue of the given size.
func (e *Events) subscribe(queue int, blocks, txs bool, onOverflow func()) *subscriber {
	s := &subscriber{ch: make(chan event, queue), wantBlocks: blocks, wantTxs: txs, onOverflow: onOverflow}
	e.mu.Lock()
	e.subs[s] = struct{}{}
	e.mu.Unlock()
	return s
}

// unsubscribe removes s; its channel is closed if it was not already.
func (e *Events) unsubscribe(s *subscriber) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.subs[s]; ok {
		delete(e.subs, s)
		close(s.ch)
	}
}

// Len is the number of subscribers (for tests and metrics).
func (e *Events) Len() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.subs)
}
