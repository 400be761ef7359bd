package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
)

// workload is the signed transactions, per sender in nonce order.
type workload struct {
	mode    string // pending or queued
	senders [][][]byte
	total   int
}

// recipient receives 1 wei from every transaction.
var recipient = common.HexToAddress("0x00000000000000000000000000000000000b0b0b")

// sign makes perSender EIP-1559 transfers for each key: nonces 0… (all
// pending) or 1… (all queued behind the missing nonce 0). Tips vary by
// sender so prices are not all equal.
func sign(keys []*accounts.Key, perSender int, mode string, chainID *big.Int) (*workload, error) {
	first := uint64(0)
	if mode == "queued" {
		first = 1
	}
	signer := types.LatestSignerForChainID(chainID)
	w := &workload{mode: mode, senders: make([][][]byte, len(keys))}
	for i, k := range keys {
		for j := 0; j < perSender; j++ {
			tx, err := types.SignNewTx(k.Private, signer, &types.DynamicFeeTx{
				ChainID: chainID, Nonce: first + uint64(j), To: &recipient, Value: big.NewInt(1), Gas: 21000,
				GasTipCap: big.NewInt(int64(1e9 + i%100)), GasFeeCap: big.NewInt(100e9),
			})
			if err != nil {
				return nil, err
			}
			raw, _ := tx.MarshalBinary()
			w.senders[i] = append(w.senders[i], raw)
			w.total++
		}
	}
	return w, nil
}

// admission is what sending the workload took.
type admission struct {
	sent, refused int
	elapsed       time.Duration
	lat           []time.Duration // per eth_sendRawTransaction, sorted
	firstErr      string
}

func (a admission) rate() float64 { return float64(a.sent-a.refused) / a.elapsed.Seconds() }

// send submits the workload with eth_sendRawTransaction from `clients`
// connections at once, each taking whole senders and sending each sender's
// transactions in nonce order, one call at a time.
func send(url string, w *workload, clients int) (admission, error) {
	conns := make([]*rpc.Client, clients)
	for i := range conns {
		c, err := dial(url)
		if err != nil {
			return admission{}, err
		}
		defer c.Close()
		conns[i] = c
	}
	var (
		mu  sync.Mutex
		res admission
		wg  sync.WaitGroup
	)
	next := make(chan [][]byte)
	start := time.Now()
	for _, c := range conns {
		wg.Add(1)
		go func(c *rpc.Client) {
			defer wg.Done()
			for txs := range next {
				lat, refused, firstErr := sendSender(c, txs)
				mu.Lock()
				res.lat = append(res.lat, lat...)
				res.sent += len(txs)
				res.refused += refused
				if res.firstErr == "" {
					res.firstErr = firstErr
				}
				mu.Unlock()
			}
		}(c)
	}
	for _, txs := range w.senders {
		next <- txs
	}
	close(next)
	wg.Wait()
	res.elapsed = time.Since(start)
	slices.Sort(res.lat)
	return res, nil
}

func sendSender(c *rpc.Client, txs [][]byte) (lat []time.Duration, refused int, firstErr string) {
	for _, raw := range txs {
		var hash common.Hash
		t0 := time.Now()
		err := c.Call(&hash, "eth_sendRawTransaction", hexutil.Bytes(raw))
		lat = append(lat, time.Since(t0))
		if err != nil {
			refused++
			if firstErr == "" {
				firstErr = err.Error()
			}
		}
	}
	return lat, refused, firstErr
}

// gzip makes the clients ask for compressed answers (-gzip): Go's HTTP
// client does by default; geth then compresses, Ember never does.
var gzip = true

// dial opens a JSON-RPC client over HTTP, asking for gzip or not.
func dial(url string) (*rpc.Client, error) {
	hc := &http.Client{Transport: &http.Transport{DisableCompression: !gzip, MaxIdleConnsPerHost: 4}}
	return rpc.DialOptions(context.Background(), url, rpc.WithHTTPClient(hc))
}

// poolStatus is txpool_status.
type poolStatus struct {
	Pending hexutil.Uint `json:"pending"`
	Queued  hexutil.Uint `json:"queued"`
}

func status(c *rpc.Client) (poolStatus, error) {
	var s poolStatus
	err := c.Call(&s, "txpool_status")
	return s, err
}

// contentTiming is txpool_content's latency over runs calls after a
// warm-up, and the size and entry count of its answer.
type contentTiming struct {
	median, max time.Duration
	bytes       int
	entries     int
}

func timeContent(ctx context.Context, c *rpc.Client, runs int) (contentTiming, error) {
	var raw json.RawMessage
	if err := c.CallContext(ctx, &raw, "txpool_content"); err != nil {
		return contentTiming{}, err
	}
	var lat []time.Duration
	for i := 0; i < runs; i++ {
		t0 := time.Now()
		if err := c.CallContext(ctx, &raw, "txpool_content"); err != nil {
			return contentTiming{}, err
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	entries, err := countEntries(raw)
	if err != nil {
		return contentTiming{}, err
	}
	return contentTiming{median: lat[len(lat)/2], max: lat[len(lat)-1], bytes: len(raw), entries: entries}, nil
}

// countEntries counts the transactions in a txpool_content answer.
func countEntries(raw json.RawMessage) (int, error) {
	var content map[string]map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &content); err != nil {
		return 0, fmt.Errorf("txpool_content: %w", err)
	}
	n := 0
	for _, byAddr := range content {
		for _, byNonce := range byAddr {
			n += len(byNonce)
		}
	}
	return n, nil
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(float64(len(sorted)-1)*p)]
}
