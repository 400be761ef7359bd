package main

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bench/internal/peer"
)

type workload struct{ txs, senders int }

type result struct {
	name               string
	committed, blocks  int
	tps                float64
	p50, p90, p99, max time.Duration
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// run sends the workload to one node and measures it.
func run(name string, p *peer.Node, w workload) result {
	ctx := context.Background()
	client, err := rpc.Dial(p.URL)
	if err != nil {
		fatalf("%s: %v", name, err)
	}
	defer client.Close()
	eth := ethclient.NewClient(client)
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		fatalf("%s: %v", name, err)
	}
	head, err := eth.HeaderByNumber(ctx, nil)
	if err != nil {
		fatalf("%s: %v", name, err)
	}
	batches := signAll(ctx, eth, chainID, head.BaseFee, w)

	var (
		sentAt = make(map[common.Hash]time.Time, w.txs)
		mu     sync.Mutex
		wg     sync.WaitGroup
		start  = time.Now()
	)
	watcher := newWatcher(eth, head.Number.Uint64(), w.txs, 2*time.Minute)
	for _, batch := range batches {
		wg.Add(1)
		go func(batch []*types.Transaction) {
			defer wg.Done()
			for _, tx := range batch {
				mu.Lock()
				sentAt[tx.Hash()] = time.Now()
				mu.Unlock()
				if err := eth.SendTransaction(ctx, tx); err != nil {
					fmt.Fprintf(os.Stderr, "%s: send: %v\n", name, err)
					return
				}
			}
		}(batch)
	}
	wg.Wait()
	fmt.Fprintf(os.Stderr, "%s: %d transfers sent in %v\n", name, w.txs, time.Since(start).Round(time.Millisecond))
	included, blocks := watcher.wait()
	if len(included) < w.txs && watcher.err != nil {
		fmt.Fprintf(os.Stderr, "%s: reading blocks: %v\n", name, watcher.err)
	}

	var lat []time.Duration
	var last time.Time
	for h, at := range included {
		if s, ok := sentAt[h]; ok {
			lat = append(lat, at.Sub(s))
			if at.After(last) {
				last = at
			}
		}
	}
	slices.Sort(lat)
	r := result{name: name, committed: len(lat), blocks: blocks}
	if len(lat) > 0 {
		r.tps = float64(len(lat)) / last.Sub(start).Seconds()
		r.p50, r.p90, r.p99, r.max = pct(lat, 50), pct(lat, 90), pct(lat, 99), lat[len(lat)-1]
	}
	return r
}

func pct(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)-1)*p/100]
}

// signAll pre-signs every sender's transfers (nonces from the node) to fresh
// recipients, so signing is not measured.
func signAll(ctx context.Context, eth *ethclient.Client, chainID, baseFee *big.Int, w workload) [][]*types.Transaction {
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, w.senders)
	if err != nil {
		fatalf("%v", err)
	}
	signer := types.LatestSignerForChainID(chainID)
	feeCap := new(big.Int).Add(new(big.Int).Mul(baseFee, big.NewInt(4)), big.NewInt(1e9))
	per := w.txs / w.senders
	out := make([][]*types.Transaction, w.senders)
	for i, k := range keys {
		nonce, err := eth.PendingNonceAt(ctx, k.Address)
		if err != nil {
			fatalf("%v", err)
		}
		for j := 0; j < per; j++ {
			to := common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("bench-%d-%d", i, j)))[:20])
			tx, err := types.SignNewTx(k.Private, signer, &types.DynamicFeeTx{
				ChainID: chainID, Nonce: nonce + uint64(j), GasTipCap: big.NewInt(1e9), GasFeeCap: feeCap,
				Gas: 21000, To: &to, Value: big.NewInt(1),
			})
			if err != nil {
				fatalf("%v", err)
			}
			out[i] = append(out[i], tx)
		}
	}
	return out
}
