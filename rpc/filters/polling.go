package filters

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/rpc/eth"
	"github.com/emberchain/ember/store"
)

// install adds a filter, refusing past the cap.
func (api *API) install(f *filter) (rpc.ID, error) {
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.cfg.FilterCap > 0 && len(api.filters) >= api.cfg.FilterCap {
		return "", errFilterCap
	}
	id := rpc.NewID()
	f.lastPoll = time.Now()
	api.filters[id] = f
	return id, nil
}

// NewFilter creates a log filter: each poll returns the matching logs of
// the blocks committed since the previous one (within the criteria's range).
func (api *API) NewFilter(crit filters.FilterCriteria) (rpc.ID, error) {
	if len(crit.Topics) > maxTopics {
		return "", errExceedMaxTopics
	}
	if f, t := crit.FromBlock, crit.ToBlock; f != nil && t != nil && f.Sign() >= 0 && t.Sign() >= 0 && f.Cmp(t) > 0 {
		return "", errInvalidBlockRange
	}
	return api.install(&filter{typ: logsFilter, crit: crit, next: api.b.Head().Number.Uint64() + 1})
}

// NewBlockFilter creates a filter returning the hashes of new blocks.
func (api *API) NewBlockFilter() (rpc.ID, error) {
	return api.install(&filter{typ: blocksFilter, next: api.b.Head().Number.Uint64() + 1})
}

// NewPendingTransactionFilter creates a filter returning the hashes (or,
// with true, the objects) of transactions admitted to the pool. Its queue
// holds notification-queue entries; a filter that overflows is removed.
func (api *API) NewPendingTransactionFilter(fullTx *bool) (rpc.ID, error) {
	f := &filter{typ: pendingFilter, fullTx: fullTx != nil && *fullTx}
	f.pending = api.events.subscribe(api.cfg.NotificationQueue, false, true, nil)
	id, err := api.install(f)
	if err != nil {
		api.events.unsubscribe(f.pending)
	}
	return id, err
}

// UninstallFilter removes a filter; false when there is none with that id.
func (api *API) UninstallFilter(id rpc.ID) bool {
	api.mu.Lock()
	defer api.mu.Unlock()
	f, ok := api.filters[id]
	if ok {
		api.dropLocked(id, f)
	}
	return ok
}

// poll finds a filter and marks it polled now.
func (api *API) poll(id rpc.ID) (*filter, error) {
	api.mu.Lock()
	defer api.mu.Unlock()
	f, ok := api.filters[id]
	if !ok {
		return nil, errFilterNotFound
	}
	f.lastPoll = time.Now()
	return f, nil
}

// GetFilterChanges returns what happened since the filter was last polled:
// logs, block hashes, or pending transaction hashes.
func (api *API) GetFilterChanges(ctx context.Context, id rpc.ID) (any, error) {
	f, err := api.poll(id)
	if err != nil {
		return nil, err
	}
	switch f.typ {
	case pendingFilter:
		return api.drainPending(f), nil
	case blocksFilter:
		return api.advance(f, func(from, to uint64) (any, error) {
			hashes := []common.Hash{}
			for n := from; n <= to; n++ {
				if h := api.b.HeaderByNumber(n); h != nil {
					hashes = append(hashes, h.Hash())
				}
			}
			return hashes, nil
		})
	default:
		return api.advance(f, func(from, to uint64) (any, error) {
			// Changes cover every new block; only explicit block numbers in
			// the criteria narrow that (tags and omissions do not).
			q := store.LogQuery{Addresses: f.crit.Addresses, Topics: f.crit.Topics, Limit: api.cfg.LogsCap}
			q.From, q.To = from, to
			if b := f.crit.FromBlock; b != nil && b.Sign() >= 0 && b.IsUint64() {
				q.From = max(q.From, b.Uint64())
			}
			if b := f.crit.ToBlock; b != nil && b.Sign() >= 0 && b.IsUint64() {
				q.To = min(q.To, b.Uint64())
			}
			if q.From > q.To {
				return logList{}, nil
			}
			logs, err := api.b.Logs(ctx, q)
			if logs == nil {
				logs = []*types.Log{}
			}
			return logList(logs), err
		})
	}
}

// advance reports blocks f.next..head through read and moves the cursor
// past them when the read succeeded.
func (api *API) advance(f *filter, read func(from, to uint64) (any, error)) (any, error) {
	api.mu.Lock()
	from := f.next
	api.mu.Unlock()
	head := api.b.Head().Number.Uint64()
	if from > head {
		return read(from, from-1)
	}
	out, err := read(from, head)
	if err != nil {
		return nil, err
	}
	api.mu.Lock()
	if f.next == from {
		f.next = head + 1
	}
	api.mu.Unlock()
	return out, nil
}

func (api *API) drainPending(f *filter) any {
	var hashes []common.Hash
	var txs []*eth.RPCTransaction
	head := api.b.Head()
	for {
		select {
		case ev, ok := <-f.pending.ch:
			if !ok {
				return pendingResult(f.fullTx, hashes, txs)
			}
			if f.fullTx {
				txs = append(txs, eth.NewRPCTransaction(ev.tx, common.Hash{}, head.Number.Uint64(), head.Time, 0, nil, api.b.ChainConfig()))
			} else {
				hashes = append(hashes, ev.tx.Hash())
			}
		default:
			return pendingResult(f.fullTx, hashes, txs)
		}
	}
}

func pendingResult(full bool, hashes []common.Hash, txs []*eth.RPCTransaction) any {
	if full {
		if txs == nil {
			return []*eth.RPCTransaction{}
		}
		return txs
	}
	if hashes == nil {
		return []common.Hash{}
	}
	return hashes
}

// GetFilterLogs returns every log matching a log filter's criteria.
func (api *API) GetFilterLogs(ctx context.Context, id rpc.ID) (logList, error) {
	f, err := api.poll(id)
	if err != nil {
		return nil, err
	}
	if f.typ != logsFilter {
		return nil, fmt.Errorf("filter %s doesn't have a LogsSubscription type: got %d", id, f.typ)
	}
	return api.GetLogs(ctx, f.crit)
}
