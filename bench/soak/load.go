package main

import (
	"context"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/emberchain/ember/accounts"
)

// load sends signed ETH transfers at a steady rate from many prefunded
// accounts (the dev chain's test mnemonic). Each worker owns a disjoint set
// of accounts, so every account's nonces reach the node in order however
// the workers interleave.
type load struct {
	eth     *ethclient.Client
	keys    []*accounts.Key
	nonces  []uint64
	signer  types.Signer
	chainID *big.Int
	feeCap  *big.Int

	sent, failed atomic.Uint64
}

// tip is the priority fee of every transfer; the fee cap leaves room for
// the base fee to climb (it falls at a block per transfer).
var tip = big.NewInt(1e9)

func newLoad(ctx context.Context, eth *ethclient.Client, senders int) (*load, error) {
	keys, err := accounts.DeriveKeys(accounts.TestMnemonic, senders)
	if err != nil {
		return nil, err
	}
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	h, err := eth.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	fee := big.NewInt(1e9)
	if h.BaseFee != nil && h.BaseFee.Cmp(fee) > 0 {
		fee = h.BaseFee
	}
	l := &load{eth: eth, keys: keys, nonces: make([]uint64, senders), signer: types.LatestSignerForChainID(chainID),
		chainID: chainID, feeCap: new(big.Int).Add(new(big.Int).Mul(fee, big.NewInt(10)), tip)}
	for i, k := range keys {
		if l.nonces[i], err = eth.PendingNonceAt(ctx, k.Address); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// run sends rate transfers a second until ctx ends: a pacer hands out one
// token per transfer every tick, and workers send one transfer per token
// (tokens a slow node leaves unused are dropped, not accumulated).
func (l *load) run(ctx context.Context, rate, workers int) {
	tokens := make(chan struct{}, rate)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); l.worker(ctx, w, workers, tokens) }()
	}
	l.pace(ctx, rate, tokens)
	wg.Wait()
}

func (l *load) pace(ctx context.Context, rate int, tokens chan<- struct{}) {
	const tick = 20 * time.Millisecond
	t := time.NewTicker(tick)
	defer t.Stop()
	start, given := time.Now(), 0
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			due := int(now.Sub(start).Seconds() * float64(rate))
			for ; given < due; given++ {
				select {
				case tokens <- struct{}{}:
				default: // the workers are behind: drop the token
				}
			}
		}
	}
}

// worker sends for accounts w, w+workers, w+2·workers, … in turn.
func (l *load) worker(ctx context.Context, w, workers int, tokens <-chan struct{}) {
	mine := []int{}
	for i := w; i < len(l.keys); i += workers {
		mine = append(mine, i)
	}
	if len(mine) == 0 {
		return
	}
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tokens:
		}
		l.send(ctx, mine[n%len(mine)])
	}
}

// send transfers 1 wei from account i to the next account; after a failed
// send the account's nonce is read again from the node.
func (l *load) send(ctx context.Context, i int) {
	to := l.keys[(i+1)%len(l.keys)].Address
	tx, err := types.SignNewTx(l.keys[i].Private, l.signer, &types.DynamicFeeTx{ChainID: l.chainID, Nonce: l.nonces[i],
		GasTipCap: tip, GasFeeCap: l.feeCap, Gas: 21000, To: &to, Value: big.NewInt(1)})
	if err == nil {
		err = l.eth.SendTransaction(ctx, tx)
	}
	if err != nil {
		if ctx.Err() == nil {
			l.failed.Add(1)
			if n, err := l.eth.PendingNonceAt(ctx, l.keys[i].Address); err == nil {
				l.nonces[i] = n
			}
		}
		return
	}
	l.nonces[i]++
	l.sent.Add(1)
}
