package filters

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/rpc/eth"
)

// HeadsOptions is the optional argument of the newHeads subscription.
type HeadsOptions struct {
	IncludeTransactions bool `json:"includeTransactions"`
}

// NewHeads notifies each committed block's header (eth_subscribe
// "newHeads"); with includeTransactions, the block with full transactions.
// Its hash is the hash eth_getBlockByNumber returns.
func (api *API) NewHeads(ctx context.Context, opts *HeadsOptions) (*rpc.Subscription, error) {
	full := opts != nil && opts.IncludeTransactions
	return api.subscribe(ctx, true, false, func(ev event, send func(any) error) error {
		if full {
			return send(eth.MarshalBlock(ev.block.Block, true, api.b.ChainConfig()))
		}
		return send(eth.MarshalHeader(ev.block.Block.Header()))
	})
}

// Logs notifies, one notification per log and in chain order, the logs of
// committed blocks that match crit (eth_subscribe "logs").
func (api *API) Logs(ctx context.Context, crit filters.FilterCriteria) (*rpc.Subscription, error) {
	if len(crit.Topics) > maxTopics {
		return nil, errExceedMaxTopics
	}
	return api.subscribe(ctx, true, false, func(ev event, send func(any) error) error {
		for _, l := range blockLogs(ev.block, &crit) {
			if err := send(l); err != nil {
				return err
			}
		}
		return nil
	})
}

// NewPendingTransactions notifies the hash of each transaction admitted to
// the pool; with true, the transaction object.
func (api *API) NewPendingTransactions(ctx context.Context, fullTx *bool) (*rpc.Subscription, error) {
	full := fullTx != nil && *fullTx
	return api.subscribe(ctx, false, true, func(ev event, send func(any) error) error {
		if !full {
			return send(ev.tx.Hash())
		}
		head := api.b.Head()
		return send(eth.NewRPCTransaction(ev.tx, common.Hash{}, head.Number.Uint64(), head.Time, 0, nil, api.b.ChainConfig()))
	})
}

// syncStatus is the payload of the syncing subscription while catching up.
type syncStatus struct {
	Syncing bool           `json:"syncing"`
	Status  map[string]any `json:"status"`
}

// Syncing notifies when CometBFT starts or stops catching up with the
// network: {syncing: true, status: {startingBlock, currentBlock,
// highestBlock}} and then false.
func (api *API) Syncing(ctx context.Context) (*rpc.Subscription, error) {
	notifier, rpcSub, done, err := api.open(ctx)
	if err != nil {
		return nil, err
	}
	go func() {
		defer done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		was := false
		for {
			select {
			case <-tick.C:
				syncing, start, cur, high := api.b.SyncStatus()
				if syncing == was {
					continue
				}
				was = syncing
				var payload any = false
				if syncing {
					payload = syncStatus{Syncing: true, Status: map[string]any{
						"startingBlock": hexutil.Uint64(start), "currentBlock": hexutil.Uint64(cur), "highestBlock": hexutil.Uint64(high)}}
				}
				if notifier.Notify(rpcSub.ID, payload) != nil {
					return
				}
			case <-rpcSub.Err():
				return
			}
		}
	}()
	return rpcSub, nil
}

// open creates a subscription on the caller's connection, counting it
// against the connection's cap; done must be called when it ends.
func (api *API) open(ctx context.Context) (*rpc.Notifier, *rpc.Subscription, func(), error) {
	notifier, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, nil, nil, rpc.ErrNotificationsUnsupported
	}
	conn := rpc.PeerInfoFromContext(ctx).RemoteAddr
	api.mu.Lock()
	if api.cfg.SubscriptionCap > 0 && api.conns[conn] >= api.cfg.SubscriptionCap {
		api.mu.Unlock()
		return nil, nil, nil, fmt.Errorf("too many subscriptions on this connection (max %d)", api.cfg.SubscriptionCap)
	}
	api.conns[conn]++
	api.mu.Unlock()
	done := func() {
		api.mu.Lock()
		if api.conns[conn]--; api.conns[conn] <= 0 {
			delete(api.conns, conn)
		}
		api.mu.Unlock()
	}
	return notifier, notifier.CreateSubscription(), done, nil
}

// subscribe runs a subscription fed by the event hub: each event is turned
// into notifications by deliver. When the subscriber falls a whole queue
// behind, its WebSocket connection is closed rather than letting the queue
// grow; the subscription ends with the connection.
func (api *API) subscribe(ctx context.Context, blocks, txs bool, deliver func(ev event, send func(any) error) error) (*rpc.Subscription, error) {
	notifier, rpcSub, done, err := api.open(ctx)
	if err != nil {
		return nil, err
	}
	conn := rpc.PeerInfoFromContext(ctx).RemoteAddr
	sub := api.events.subscribe(api.cfg.NotificationQueue, blocks, txs, func() { api.disconnect(conn) })
	send := func(v any) error { return notifier.Notify(rpcSub.ID, v) }
	go func() {
		defer done()
		defer api.events.unsubscribe(sub)
		for {
			select {
			case ev, ok := <-sub.ch:
				if !ok {
					return // overflowed: the connection is being closed
				}
				if deliver(ev, send) != nil {
					return
				}
			case <-rpcSub.Err():
				return // unsubscribed, or the connection closed
			}
		}
	}()
	return rpcSub, nil
}

// OpenSubscriptions is the number of eth_subscribe subscriptions alive.
func (api *API) OpenSubscriptions() int {
	api.mu.Lock()
	defer api.mu.Unlock()
	total := 0
	for _, c := range api.conns {
		total += c
	}
	return total
}
