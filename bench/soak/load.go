package main

import (
	"context"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/emberchain/ember/bench/internal/writes"
)

// load sends signed ETH transfers at a steady rate from many prefunded
// accounts (the dev chain's test mnemonic). Each worker owns a disjoint set
// of accounts, so every account's nonces reach the node in order however
// the workers interleave.
type load struct {
	eth    *ethclient.Client
	signer *writes.Signer

	sent, failed atomic.Uint64
}

func newLoad(ctx context.Context, eth *ethclient.Client, senders int) (*load, error) {
	s, err := writes.NewSigner(ctx, eth, senders)
	if err != nil {
		return nil, err
	}
	return &load{eth: eth, signer: s}, nil
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
	for i := w; i < l.signer.Accounts(); i += workers {
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
	to := l.signer.Address((i + 1) % l.signer.Accounts())
	tx, err := l.signer.Sign(i, &to, 21_000, big.NewInt(1), nil)
	if err == nil {
		err = l.eth.SendTransaction(ctx, tx)
	}
	if err != nil && ctx.Err() == nil {
		l.failed.Add(1)
		_ = l.signer.Resync(ctx, l.eth, i) // a failed read leaves the nonce Sign moved on
		return
	}
	if err == nil {
		l.sent.Add(1)
	}
}
