// Package rpcsource is an explorer.Source that follows any Ethereum JSON-RPC
// endpoint: blocks with their transactions from eth_getBlockByNumber,
// receipts from eth_getBlockReceipts (or one eth_getTransactionReceipt per
// transaction, batched, where that is missing), balances from eth_getBalance
// at the block. New blocks are signalled from an eth_subscribe("newHeads")
// subscription on ws:// endpoints; on http:// ones the indexer's own
// once-a-second poll finds them.
package rpcsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/rpc/web3"
)

// balanceBatch is how many eth_getBalance calls one HTTP request carries:
// few round trips, requests well under servers' batch limits (geth: 1000).
const balanceBatch = 100

// Source follows a JSON-RPC endpoint.
type Source struct {
	c      *rpc.Client
	url    string
	log    *slog.Logger
	notify chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu               sync.Mutex
	noBlockReceipts  bool // the server lacks eth_getBlockReceipts
	warnedNoReceipts bool
	tracing          traceState       // traces.go
	genesis          []common.Address // genesis.go
	ember            bool             // the endpoint is an Ember node (emberCometHash)
	comet            *comet           // the chain's CometBFT RPC, for native transactions (native.go); nil: EVM only
}

var _ explorer.Source = (*Source)(nil)

// Dial connects to rawURL (http, https, ws, wss) and checks it answers
// eth_chainId, so that a wrong URL fails at start rather than in the
// indexer's retry loop.
func Dial(ctx context.Context, rawURL string, log *slog.Logger) (*Source, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("--rpc %q: not a URL (want http://host:port, https://, ws:// or wss://)", rawURL)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss":
	default:
		return nil, fmt.Errorf("--rpc %q: unsupported scheme %q (want http, https, ws or wss)", u.Redacted(), u.Scheme)
	}
	c, err := rpc.DialContext(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", u.Redacted(), err)
	}
	var chainID hexutil.Big
	callCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := c.CallContext(callCtx, &chainID, "eth_chainId"); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s does not answer eth_chainId: %w", u.Redacted(), err)
	}
	s := newSource(c, u.Redacted(), u.Scheme == "ws" || u.Scheme == "wss", log)
	var version string // best effort: a server without web3_clientVersion is not Ember
	if c.CallContext(callCtx, &version, "web3_clientVersion") == nil && strings.HasPrefix(strings.TrimPrefix(version, web3.DevPrefix), "emberd/") {
		s.ember = true
	}
	return s, nil
}

// Ember reports whether the endpoint is an Ember node (web3_clientVersion
// emberd/…, or anvil-compatible/emberd/… on a dev chain).
func (s *Source) Ember() bool { return s.ember }

// emberCometHash is the CometBFT block hash of b when the endpoint is an
// Ember node, which sets the header's mixHash (PREVRANDAO) to it; nil
// otherwise (elsewhere mixHash is the beacon chain's randomness) and for
// the genesis block, which CometBFT did not make.
func (s *Source) emberCometHash(b *types.Block) []byte {
	if !s.ember || b.NumberU64() == 0 {
		return nil
	}
	return b.MixDigest().Bytes()
}

// newSource wraps a connected client; subscribe follows newHeads (the
// client must support subscriptions).
func newSource(c *rpc.Client, url string, subscribe bool, log *slog.Logger) *Source {
	runCtx, stop := context.WithCancel(context.Background())
	s := &Source{c: c, url: url, log: log, notify: make(chan struct{}, 1), cancel: stop}
	if subscribe {
		s.wg.Add(1)
		go s.followHeads(runCtx)
	}
	return s
}

// Close stops the head subscription and the connection.
func (s *Source) Close() {
	s.cancel()
	s.wg.Wait()
	s.c.Close()
}

// URL is the endpoint, password hidden.
func (s *Source) URL() string { return s.url }

// Notify implements explorer.Source.
func (s *Source) Notify() <-chan struct{} { return s.notify }

func (s *Source) signal() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// followHeads signals each new head of a newHeads subscription and
// resubscribes after a pause when it breaks; meanwhile the indexer polls.
func (s *Source) followHeads(ctx context.Context) {
	defer s.wg.Done()
	for ctx.Err() == nil {
		heads := make(chan json.RawMessage, 16)
		sub, err := s.c.EthSubscribe(ctx, heads, "newHeads")
		if err == nil {
			s.log.Info("following newHeads", "rpc", s.url)
			err = s.drain(ctx, sub, heads)
		}
		if ctx.Err() != nil {
			return
		}
		s.log.Warn("newHeads subscription failed; polling until it is back", "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
}

func (s *Source) drain(ctx context.Context, sub *rpc.ClientSubscription, heads <-chan json.RawMessage) error {
	defer sub.Unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-sub.Err():
			return err
		case <-heads:
			s.signal()
		}
	}
}

// Head implements explorer.Source.
func (s *Source) Head(ctx context.Context) (uint64, bool, error) {
	var n hexutil.Uint64
	if err := s.c.CallContext(ctx, &n, "eth_blockNumber"); err != nil {
		return 0, false, fmt.Errorf("eth_blockNumber: %w", err)
	}
	return uint64(n), true, nil
}

// rpcBlock is eth_getBlockByNumber's answer with full transactions: the
// header fields, the hash the server computed, and each transaction with
// the sender the server recovered.
type rpcBlock struct {
	Hash         common.Hash         `json:"hash"`
	Transactions []rpcTx             `json:"transactions"`
	Uncles       []common.Hash       `json:"uncles"`
	Withdrawals  []*types.Withdrawal `json:"withdrawals"`
}

type rpcTx struct {
	tx   *types.Transaction
	From common.Address `json:"from"`
}

func (t *rpcTx) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &t.tx); err != nil {
		return err
	}
	var extra struct {
		From common.Address `json:"from"`
	}
	if err := json.Unmarshal(b, &extra); err != nil {
		return err
	}
	t.From = extra.From
	return nil
}

// Block implements explorer.Source.
func (s *Source) Block(ctx context.Context, number uint64) (*explorer.SourceBlock, error) {
	var raw json.RawMessage
	if err := s.c.CallContext(ctx, &raw, "eth_getBlockByNumber", hexutil.Uint64(number), true); err != nil {
		return nil, fmt.Errorf("eth_getBlockByNumber %d: %w", number, err)
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, fmt.Errorf("block %d: the endpoint does not have it", number)
	}
	b, senders, err := decodeBlock(raw)
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", number, err)
	}
	receipts, err := s.receipts(ctx, b)
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", number, err)
	}
	internal, err := s.internalCalls(ctx, b) // traces.go
	if err != nil {
		return nil, fmt.Errorf("block %d: %w", number, err)
	}
	natives, err := s.nativeTxs(ctx, b) // native.go
	if err != nil {
		return nil, err
	}
	return &explorer.SourceBlock{Block: b, Receipts: receipts, Senders: senders, Internal: internal, CometHash: s.emberCometHash(b),
		Native: natives}, nil
}

// decodeBlock rebuilds the block and checks that its header hashes to the
// hash the server gave: a chain whose headers go-ethereum cannot hash would
// otherwise be indexed under wrong hashes.
func decodeBlock(raw json.RawMessage) (*types.Block, []common.Address, error) {
	var head types.Header
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, nil, fmt.Errorf("decode header: %w", err)
	}
	var body rpcBlock
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, nil, fmt.Errorf("decode transactions: %w", err)
	}
	if head.Hash() != body.Hash {
		return nil, nil, fmt.Errorf("header hashes to %s, the endpoint says %s: this chain's header format is not supported",
			head.Hash().Hex(), body.Hash.Hex())
	}
	if len(body.Uncles) > 0 {
		return nil, nil, fmt.Errorf("block has %d uncles: proof-of-work chains are not supported", len(body.Uncles))
	}
	txs := make([]*types.Transaction, len(body.Transactions))
	senders := make([]common.Address, len(body.Transactions))
	for i, t := range body.Transactions {
		txs[i], senders[i] = t.tx, t.From
	}
	b := types.NewBlockWithHeader(&head).WithBody(types.Body{Transactions: txs, Withdrawals: body.Withdrawals})
	return b, senders, nil
}

// receipts fetches the block's receipts and checks they are the block's.
func (s *Source) receipts(ctx context.Context, b *types.Block) (types.Receipts, error) {
	txs := b.Transactions()
	if len(txs) == 0 {
		return nil, nil
	}
	rs, err := s.blockReceipts(ctx, b)
	if err != nil {
		return nil, err
	}
	if len(rs) != len(txs) {
		return nil, fmt.Errorf("%d receipts for %d transactions", len(rs), len(txs))
	}
	for i, r := range rs {
		if r == nil || r.TxHash != txs[i].Hash() || r.BlockHash != b.Hash() {
			return nil, fmt.Errorf("receipt %d is not transaction %s of this block", i, txs[i].Hash().Hex())
		}
	}
	return rs, nil
}

// blockReceipts uses eth_getBlockReceipts, and per-transaction receipts in
// one batch on servers without it (remembered after the first refusal).
func (s *Source) blockReceipts(ctx context.Context, b *types.Block) (types.Receipts, error) {
	s.mu.Lock()
	fallback := s.noBlockReceipts
	s.mu.Unlock()
	if !fallback {
		var rs types.Receipts
		err := s.c.CallContext(ctx, &rs, "eth_getBlockReceipts", hexutil.Uint64(b.NumberU64()))
		if err == nil {
			return rs, nil
		}
		if !methodMissing(err) {
			return nil, fmt.Errorf("eth_getBlockReceipts: %w", err)
		}
		s.mu.Lock()
		s.noBlockReceipts = true
		s.mu.Unlock()
		s.log.Warn("endpoint lacks eth_getBlockReceipts; fetching receipts one transaction at a time", "err", err)
	}
	batch := make([]rpc.BatchElem, len(b.Transactions()))
	rs := make(types.Receipts, len(batch))
	for i, tx := range b.Transactions() {
		rs[i] = new(types.Receipt)
		batch[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{tx.Hash()}, Result: rs[i]}
	}
	if err := s.c.BatchCallContext(ctx, batch); err != nil {
		return nil, fmt.Errorf("eth_getTransactionReceipt batch: %w", err)
	}
	for _, el := range batch {
		if el.Error != nil {
			return nil, fmt.Errorf("eth_getTransactionReceipt %v: %w", el.Args[0], el.Error)
		}
	}
	return rs, nil
}

// methodMissing reports a JSON-RPC "method not found" (-32601), or the
// message servers that use other codes send for it.
func methodMissing(err error) bool {
	var rerr rpc.Error
	if errors.As(err, &rerr) && rerr.ErrorCode() == -32601 {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "method not found") || strings.Contains(msg, "does not exist") ||
		strings.Contains(msg, "not supported")
}

// Balances implements explorer.Source, with eth_getBalance at the block in
// batches.
func (s *Source) Balances(ctx context.Context, number uint64, addrs []common.Address) ([]*big.Int, error) {
	out := make([]*big.Int, len(addrs))
	for start := 0; start < len(addrs); start += balanceBatch {
		end := min(start+balanceBatch, len(addrs))
		batch := make([]rpc.BatchElem, end-start)
		vals := make([]hexutil.Big, end-start)
		for i := range batch {
			batch[i] = rpc.BatchElem{Method: "eth_getBalance", Args: []any{addrs[start+i], hexutil.Uint64(number)}, Result: &vals[i]}
		}
		if err := s.c.BatchCallContext(ctx, batch); err != nil {
			return nil, fmt.Errorf("eth_getBalance batch at block %d: %w", number, err)
		}
		for i, el := range batch {
			if el.Error != nil {
				return nil, fmt.Errorf("eth_getBalance %s at block %d: %w", addrs[start+i].Hex(), number, el.Error)
			}
			out[start+i] = vals[i].ToInt()
		}
	}
	return out, nil
}

// Pending implements explorer.Source from txpool_content, when the endpoint
// serves it; nil otherwise (the list then shows no pending transactions).
func (s *Source) Pending() []explorer.PendingTx {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var content struct {
		Pending map[common.Address]map[string]*rpcTx `json:"pending"`
	}
	if err := s.c.CallContext(ctx, &content, "txpool_content"); err != nil {
		return nil
	}
	return pendingList(content.Pending)
}

// pendingList orders the pool as NodeSource does: senders by address, each
// sender's transactions by nonce.
func pendingList(pool map[common.Address]map[string]*rpcTx) []explorer.PendingTx {
	senders := make([]common.Address, 0, len(pool))
	for a := range pool {
		senders = append(senders, a)
	}
	sort.Slice(senders, func(i, j int) bool { return senders[i].Cmp(senders[j]) < 0 })
	var out []explorer.PendingTx
	for _, a := range senders {
		txs := make([]*types.Transaction, 0, len(pool[a]))
		for _, t := range pool[a] {
			if t != nil && t.tx != nil {
				txs = append(txs, t.tx)
			}
		}
		sort.Slice(txs, func(i, j int) bool { return txs[i].Nonce() < txs[j].Nonce() })
		for _, tx := range txs {
			out = append(out, explorer.PendingTx{Tx: tx, From: a})
		}
	}
	return out
}
