package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/writes"
)

// load is one configuration's workload: Rate transfers a second, open
// loop, for Window, from the senders, sender i always through node i%4
// (so the four nodes get a quarter each, round robin, and one sender's
// nonces reach one node in order; the other nodes get them by CometBFT's
// mempool gossip).
type load struct {
	Rate   int
	Window time.Duration
	Drain  time.Duration // after the window, for the last transfers to be included
}

// plannedTx is one pre-signed transfer and its place in the schedule.
type plannedTx struct {
	body []byte // the eth_sendRawTransaction request
	hash common.Hash
	at   time.Duration // after the start
}

// sent is what happened to one transfer.
type sent struct {
	hash common.Hash
	at   time.Time
	err  error
}

// plan pre-signs the window's transfers (1 wei each to a fresh address,
// EIP-1559, 21,000 gas) so that signing is not measured: transfer k of the
// window is sender k%N's, sent at k/Rate.
func plan(ctx context.Context, url string, keys []*accounts.Key, l load) ([][]plannedTx, error) {
	eth, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return nil, err
	}
	defer eth.Close()
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	head, err := eth.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	tip := big.NewInt(1e9)
	// Room for the base fee to climb through a minute of full blocks,
	// and a floor for a chain whose base fee has fallen to nothing.
	feeCap := new(big.Int).Add(big.NewInt(100e9), tip)
	if head.BaseFee != nil {
		feeCap.Add(feeCap, new(big.Int).Mul(head.BaseFee, big.NewInt(100)))
	}
	signer := types.LatestSignerForChainID(chainID)
	total := l.Rate * int(l.Window/time.Second)
	out := make([][]plannedTx, len(keys))
	nonces := make([]uint64, len(keys))
	for i, k := range keys {
		if nonces[i], err = eth.PendingNonceAt(ctx, k.Address); err != nil {
			return nil, err
		}
	}
	for k := 0; k < total; k++ {
		i := k % len(keys)
		to := common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("bench-network-%d", k)))[:20])
		tx, err := types.SignNewTx(keys[i].Private, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonces[i],
			GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000, To: &to, Value: big.NewInt(1)})
		if err != nil {
			return nil, err
		}
		nonces[i]++
		raw, err := tx.MarshalBinary()
		if err != nil {
			return nil, err
		}
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["` + hexutil.Encode(raw) + `"]}`)
		out[i] = append(out[i], plannedTx{body: body, hash: tx.Hash(), at: time.Duration(k) * time.Second / time.Duration(l.Rate)})
	}
	return out, nil
}

// send runs the schedule from start until end: one goroutine per sender,
// each on its own kept-alive connection, sending its transfers in nonce
// order at their times (late if the previous send has not been answered
// yet, so a node that answers slowly gets fewer than the rate). A sender
// still behind at end stops there: the window measures what the nodes
// took in it, not a backlog of the generator's.
//
// A transfer the node refuses (its pool full) is sent again 200 ms later,
// as a wallet would, until the window ends: skipped, it would leave a
// nonce gap, and the sender's later transfers would sit in the pools
// where no block can take them (an earlier version did that, and both
// chains' pools filled with such transfers and their throughput fell).
// Its latency counts from the first attempt.
func send(ctx context.Context, urls []string, planned [][]plannedTx, start, end time.Time) ([]sent, sendStats) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: len(planned), MaxConnsPerHost: len(planned),
		IdleConnTimeout: time.Minute}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	results := make([][]sent, len(planned))
	var late, retries atomic.Int64
	var first sync.Once
	var firstErr string
	var wg sync.WaitGroup
	for i := range planned {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url := urls[i%len(urls)]
			for _, p := range planned[i] {
				if time.Now().After(end) {
					return
				}
				wait := time.Until(start.Add(p.at))
				if wait < -100*time.Millisecond {
					late.Add(1)
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
				s := sent{hash: p.hash, at: time.Now()}
				for {
					if s.err = post(client, url, p.body); s.err == nil || !time.Now().Before(end) || ctx.Err() != nil {
						break
					}
					retries.Add(1)
					first.Do(func() { firstErr = s.err.Error() })
					time.Sleep(200 * time.Millisecond)
				}
				results[i] = append(results[i], s)
				if s.err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	var all []sent
	for _, r := range results {
		all = append(all, r...)
	}
	return all, sendStats{late: int(late.Load()), retries: int(retries.Load()), firstRefusal: firstErr}
}

// sendStats count how the schedule went.
type sendStats struct {
	late    int // sends more than 100 ms behind their time
	retries int // refused sends, sent again
	// firstRefusal is the first refused send's answer.
	firstRefusal string
}

// post sends one request and fails on a JSON-RPC error.
func post(c *http.Client, url string, body []byte) error {
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || bytes.Contains(b, []byte(`"error"`)) {
		return fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, b)
	}
	return nil
}

// blockSeen is a block as the watcher saw it.
type blockSeen struct {
	number uint64
	at     time.Time
	txs    int
}

// watcher polls one node's head every 10 ms and records when each
// transaction first appeared in a block there: the moment a client polling
// that node could have read its receipt. Blocks are read with hashes only,
// which costs the node little.
type watcher struct {
	mu       sync.Mutex
	included map[common.Hash]time.Time
	blocks   []blockSeen
	quit     chan struct{}
	done     chan struct{}
	once     sync.Once
}

func watch(ctx context.Context, url string) (*watcher, error) {
	c, err := writes.Dial(url)
	if err != nil {
		return nil, err
	}
	eth := ethclient.NewClient(c)
	head, err := eth.BlockNumber(ctx)
	if err != nil {
		c.Close()
		return nil, err
	}
	w := &watcher{included: map[common.Hash]time.Time{}, quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer c.Close()
		w.loop(ctx, eth, head+1)
	}()
	return w, nil
}

func (w *watcher) loop(ctx context.Context, eth *ethclient.Client, next uint64) {
	for {
		select {
		case <-w.quit:
			return
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Millisecond):
		}
		head, err := eth.BlockNumber(ctx)
		if err != nil || head < next {
			continue
		}
		now := time.Now()
		for ; next <= head; next++ {
			var b struct {
				Transactions []common.Hash `json:"transactions"`
			}
			if err := eth.Client().CallContext(ctx, &b, "eth_getBlockByNumber", hexutil.Uint64(next), false); err != nil {
				break
			}
			w.mu.Lock()
			w.blocks = append(w.blocks, blockSeen{number: next, at: now, txs: len(b.Transactions)})
			for _, h := range b.Transactions {
				w.included[h] = now
			}
			w.mu.Unlock()
		}
	}
}

// count is how many of hashes are in a block so far.
func (w *watcher) count(txs []sent) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, s := range txs {
		if _, ok := w.included[s.hash]; ok {
			n++
		}
	}
	return n
}

// stop ends the polling; it may be called more than once.
func (w *watcher) stop() {
	w.once.Do(func() { close(w.quit) })
	<-w.done
}
