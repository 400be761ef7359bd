package backend

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/mempool"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/devchain"
	"github.com/emberchain/ember/txpool"
)

// Dev is the node side of the anvil namespaces on a development chain.
type Dev struct {
	*Backend
	revert func(context.Context, uint64) error
}

// NewDev is the anvil namespaces' backend: b's, and revert for evm_revert
// (which restarts CometBFT: the node's).
func NewDev(b *Backend, revert func(ctx context.Context, height uint64) error) Dev {
	return Dev{Backend: b, revert: revert}
}

// GasPrice is what eth_gasPrice answers.
func (b Dev) GasPrice(ctx context.Context) (*big.Int, error) {
	tip, err := b.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, err
	}
	return tip.Add(tip, b.NextBaseFee()), nil
}

// MineDev sends one dev transaction per block through CometBFT's mempool
// (one is included per block, in order) and waits for all to be committed.
func (b Dev) MineDev(ctx context.Context, blocks [][]devchain.Op) error {
	return b.c.mineDev(ctx, blocks)
}

func (c Chain) mineDev(ctx context.Context, blocks [][]devchain.Op) error {
	a := c.App
	dones := make([]<-chan struct{}, 0, len(blocks))
	ids := make([]uint64, 0, len(blocks))
	defer func() {
		for _, id := range ids {
			a.ForgetDevTx(id)
		}
	}()
	for _, ops := range blocks {
		raw, id, done := a.NewDevTx(devchain.Tx{Ops: ops})
		ids, dones = append(ids, id), append(dones, done)
		if err := c.checkDev(ctx, raw); err != nil {
			return err
		}
	}
	for _, done := range dones {
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("block not committed: %w", ctx.Err())
		}
	}
	return nil
}

// Settle waits until the chain is settled (App.Settled): a block that
// changed the state is followed by its proof block.
func (b Dev) Settle(ctx context.Context) error {
	select {
	case <-b.c.App.Settled():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("proof block not committed: %w", ctx.Err())
	}
}

// SendDev puts a dev transaction carrying an impersonated transaction
// into the mempool (CheckTx refuses it as it would refuse the transaction
// signed) and waits for its block; a transaction the block did not execute
// (its nonce or balance changed meanwhile) is an error.
func (b Dev) SendDev(ctx context.Context, send *devchain.Send) error {
	a := b.c.App
	raw, id, done := a.NewDevTx(devchain.Tx{Send: send})
	defer a.ForgetDevTx(id)
	if err := b.c.checkDev(ctx, raw); err != nil {
		return err
	}
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("block not committed: %w", ctx.Err())
	}
	if tx, _ := b.c.Store.Transaction(send.Transaction().Hash()); tx == nil {
		return fmt.Errorf("impersonated transaction %s was not executed (nonce or balance changed before its block)", send.Transaction().Hash().Hex())
	}
	return nil
}

// checkDev puts a dev transaction into the mempool.
func (c Chain) checkDev(ctx context.Context, raw []byte) error {
	resCh := make(chan *abci.ResponseCheckTx, 1)
	if err := c.Comet().Mempool().CheckTx(raw, func(res *abci.ResponseCheckTx) { resCh <- res }, mempool.TxInfo{}); err != nil {
		return err
	}
	select {
	case res := <-resCh:
		if res.Code != abci.CodeTypeOK {
			return errors.New(res.Log)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (b Dev) QueueDev(ops ...devchain.Op) { b.c.App.QueueDevOps(ops...) }

// ClockOffset is the offset at the head plus what the queue adds.
func (b Dev) ClockOffset() int64 {
	return devchain.Offset(b.c.Store.Head()) + b.c.App.QueuedTimeShift()
}

// DropTransaction removes a pooled EVM transaction from the pool and from
// CometBFT's mempool.
func (b Dev) DropTransaction(hash common.Hash) bool {
	ptx := b.c.Pool.ByHash(hash)
	if ptx == nil {
		return false
	}
	b.drop([]*txpool.Tx{ptx})
	return true
}

// DropAllTransactions removes every pooled EVM transaction.
func (b Dev) DropAllTransactions() {
	pending, queued := b.c.Pool.Content()
	var txs []*txpool.Tx
	for _, byAddr := range []map[common.Address][]*types.Transaction{pending, queued} {
		for _, list := range byAddr {
			for _, tx := range list {
				if ptx := b.c.Pool.ByHash(tx.Hash()); ptx != nil {
					txs = append(txs, ptx)
				}
			}
		}
	}
	b.drop(txs)
}

func (b Dev) drop(txs []*txpool.Tx) {
	mp := b.c.Comet().Mempool()
	mp.Lock() // as CometBFT's own removals run
	defer mp.Unlock()
	for _, ptx := range txs {
		b.c.Pool.Remove(ptx.Key)
		_ = mp.RemoveTxByKey(cmttypes.TxKey(ptx.Key)) // a queued tx is not in the mempool: fine
	}
	b.c.App.ReleaseUnpooled() // their senders, if waiting, answer now
}

// Revert is evm_revert's node side.
func (b Dev) Revert(ctx context.Context, h uint64) error { return b.revert(ctx, h) }

func (b Dev) SetAutomine(on bool) bool { return b.c.App.SetAutomine(on) }
func (b Dev) Automine() bool           { return b.c.App.Automine() }

func (b Dev) DumpState() (*devchain.State, error) { return b.c.DumpState() }
func (b Dev) LoadState(ctx context.Context, s *devchain.State) error {
	return b.c.LoadState(ctx, s)
}
