package filters

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/store"
)

// Backend is what the filters need from the node.
type Backend interface {
	ChainConfig() *params.ChainConfig
	Head() *types.Header
	HeaderByNumber(number uint64) *types.Header
	HeaderByHash(hash common.Hash) *types.Header
	BlockByHash(hash common.Hash) *types.Block
	Logs(ctx context.Context, q store.LogQuery) ([]*types.Log, error)
	// SyncStatus reports whether CometBFT is catching up, and if so from
	// which height, where it is and how far it knows the chain goes.
	SyncStatus() (syncing bool, start, current, highest uint64)
}

// Config bounds the filters.
type Config struct {
	BlockRangeCap     uint64        // 0 = none
	LogsCap           int           // 0 = none
	FilterCap         int           // polling filters at once
	FilterTimeout     time.Duration // idle filters are removed after this
	SubscriptionCap   int           // subscriptions per WebSocket connection
	NotificationQueue int           // per subscription
}

// Filter types, numbered as go-ethereum numbers them.
const (
	logsFilter    = 1 // eth_newFilter
	pendingFilter = 2 // eth_newPendingTransactionFilter
	blocksFilter  = 3 // eth_newBlockFilter
)

// maxTopics is the number of topic positions a log has at most.
const maxTopics = 4

var (
	errFilterNotFound    = errors.New("filter not found")
	errExceedMaxTopics   = errors.New("exceed max topics")
	errInvalidBlockRange = &invalidParamsError{"invalid block range params"}
	errUnknownBlock      = errors.New("unknown block")
	errFilterCap         = errors.New("error creating filter: max limit reached")
)

type invalidParamsError struct{ msg string }

func (e *invalidParamsError) Error() string  { return e.msg }
func (e *invalidParamsError) ErrorCode() int { return -32602 }

// API serves eth_getLogs, the polling filters and the subscriptions.
type API struct {
	b      Backend
	cfg    Config
	events *Events
	// disconnect closes a WebSocket connection by remote address.
	disconnect func(remoteAddr string)

	mu      sync.Mutex
	filters map[rpc.ID]*filter
	conns   map[string]int // open subscriptions per connection
	quit    chan struct{}
}

// filter is a polling filter. Log and block filters keep a cursor (the next
// block to report) instead of a buffer: each poll reads the blocks committed
// since the last one, so every event is reported exactly once.
type filter struct {
	typ      int
	crit     filters.FilterCriteria
	next     uint64      // logs, blocks: next block to report
	pending  *subscriber // pending: queued tx hashes
	fullTx   bool
	lastPoll time.Time
}

// NewAPI returns the filters API; Close stops its janitor.
func NewAPI(b Backend, cfg Config, events *Events, disconnect func(string)) *API {
	api := &API{b: b, cfg: cfg, events: events, disconnect: disconnect,
		filters: make(map[rpc.ID]*filter), conns: make(map[string]int), quit: make(chan struct{})}
	go api.janitor()
	return api
}

// Close stops the janitor and drops every filter.
func (api *API) Close() {
	close(api.quit)
	api.mu.Lock()
	defer api.mu.Unlock()
	for id, f := range api.filters {
		api.dropLocked(id, f)
	}
}

// janitor removes filters not polled within the timeout.
func (api *API) janitor() {
	tick := time.NewTicker(max(api.cfg.FilterTimeout/10, 100*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-api.quit:
			return
		case now := <-tick.C:
			api.mu.Lock()
			for id, f := range api.filters {
				if now.Sub(f.lastPoll) > api.cfg.FilterTimeout {
					api.dropLocked(id, f)
				}
			}
			api.mu.Unlock()
		}
	}
}

func (api *API) dropLocked(id rpc.ID, f *filter) {
	delete(api.filters, id)
	if f.pending != nil {
		api.events.unsubscribe(f.pending)
	}
}

// GetLogs returns the logs matching crit from the log index.
func (api *API) GetLogs(ctx context.Context, crit filters.FilterCriteria) (logList, error) {
	q, err := api.query(crit)
	if err != nil {
		return nil, err
	}
	logs, err := api.b.Logs(ctx, q)
	if err != nil {
		return nil, err
	}
	if logs == nil {
		logs = []*types.Log{}
	}
	return logList(logs), nil
}

// query turns criteria into a store query, resolving tags and checking the
// caps. Pending, latest, safe and finalized all mean the latest block.
func (api *API) query(crit filters.FilterCriteria) (store.LogQuery, error) {
	if len(crit.Topics) > maxTopics {
		return store.LogQuery{}, errExceedMaxTopics
	}
	q := store.LogQuery{Addresses: crit.Addresses, Topics: crit.Topics, Limit: api.cfg.LogsCap}
	if crit.BlockHash != nil {
		h := api.b.HeaderByHash(*crit.BlockHash)
		if h == nil {
			return q, errUnknownBlock
		}
		q.From, q.To = h.Number.Uint64(), h.Number.Uint64()
		return q, nil
	}
	head := api.b.Head().Number.Uint64()
	from, err := resolve(crit.FromBlock, head)
	if err != nil {
		return q, err
	}
	to, err := resolve(crit.ToBlock, head)
	if err != nil {
		return q, err
	}
	if from > to {
		return q, errInvalidBlockRange
	}
	if api.cfg.BlockRangeCap != 0 && to-from > api.cfg.BlockRangeCap {
		return q, &invalidParamsError{fmt.Sprintf("exceed maximum block range %d", api.cfg.BlockRangeCap)}
	}
	q.From, q.To = from, to
	return q, nil
}

// resolve maps a filter block number (nil = latest) to a height.
func resolve(n *big.Int, head uint64) (uint64, error) {
	if n == nil {
		return head, nil
	}
	switch v := n.Int64(); v {
	case rpc.LatestBlockNumber.Int64(), rpc.PendingBlockNumber.Int64(), rpc.SafeBlockNumber.Int64(), rpc.FinalizedBlockNumber.Int64():
		return head, nil
	case rpc.EarliestBlockNumber.Int64():
		return 0, nil
	default:
		if v < 0 {
			return 0, errors.New("negative block number")
		}
		return uint64(v), nil
	}
}

// Counts is the installed polling filters and the active subscriptions (of
// all WebSocket connections), for the node's metrics.
func (api *API) Counts() (filters, subscriptions int) {
	api.mu.Lock()
	defer api.mu.Unlock()
	for _, n := range api.conns {
		subscriptions += n
	}
	return len(api.filters), subscriptions
}

// Rewind moves every block and log filter of api whose cursor is past
// block h back to h+1, after a dev chain went back to h (evm_revert): the
// blocks made next have the numbers of the reverted ones, and are
// reported. (A function, not a method: every exported method of the
// service would be served as eth_….)
func Rewind(api *API, h uint64) {
	api.mu.Lock()
	defer api.mu.Unlock()
	for _, f := range api.filters {
		if f.pending == nil && f.next > h+1 {
			f.next = h + 1
		}
	}
}
