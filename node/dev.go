package node

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
	"github.com/emberchain/ember/rpc"
	"github.com/emberchain/ember/rpc/anvil"
	"github.com/emberchain/ember/rpc/eth"
	"github.com/emberchain/ember/txpool"
)

// devNamespaces returns the anvil_, hardhat_ and evm_ services of a
// development chain (genesis app_state.dev), none on other chains, where
// the methods answer -32601. On a development chain, ethAPI's
// eth_sendTransaction sends from impersonated accounts through them.
func (n *Node) devNamespaces(b *backend, ethAPI *eth.API) []rpc.Namespace {
	if !n.app.Dev() {
		return nil
	}
	n.devAPI = anvil.New(devBackend{b})
	eth.SetImpersonator(ethAPI, n.devAPI)
	an, ev := n.devAPI.Namespaces()
	return []rpc.Namespace{{Name: "anvil", Service: an}, {Name: "hardhat", Service: an}, {Name: "evm", Service: ev}}
}

// devBackend is the node side of the anvil namespaces.
type devBackend struct{ *backend }

// GasPrice is what eth_gasPrice answers.
func (b devBackend) GasPrice(ctx context.Context) (*big.Int, error) {
	tip, err := b.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, err
	}
	return tip.Add(tip, b.NextBaseFee()), nil
}

// MineDev sends one dev transaction per block through CometBFT's mempool
// (one is included per block, in order) and waits for all to be committed.
func (b devBackend) MineDev(ctx context.Context, blocks [][]devchain.Op) error {
	a := b.n.app
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
		if err := b.checkDev(ctx, raw); err != nil {
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
func (b devBackend) Settle(ctx context.Context) error {
	select {
	case <-b.n.app.Settled():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("proof block not committed: %w", ctx.Err())
	}
}

// SendDev puts a dev transaction carrying an impersonated transaction
// into the mempool (CheckTx refuses it as it would refuse the transaction
// signed) and waits for its block; a transaction the block did not execute
// (its nonce or balance changed meanwhile) is an error.
func (b devBackend) SendDev(ctx context.Context, send *devchain.Send) error {
	a := b.n.app
	raw, id, done := a.NewDevTx(devchain.Tx{Send: send})
	defer a.ForgetDevTx(id)
	if err := b.checkDev(ctx, raw); err != nil {
		return err
	}
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("block not committed: %w", ctx.Err())
	}
	if tx, _ := b.n.store.Transaction(send.Transaction().Hash()); tx == nil {
		return fmt.Errorf("impersonated transaction %s was not executed (nonce or balance changed before its block)", send.Transaction().Hash().Hex())
	}
	return nil
}

// checkDev puts a dev transaction into the mempool.
func (b devBackend) checkDev(ctx context.Context, raw []byte) error {
	resCh := make(chan *abci.ResponseCheckTx, 1)
	if err := b.n.comet().Mempool().CheckTx(raw, func(res *abci.ResponseCheckTx) { resCh <- res }, mempool.TxInfo{}); err != nil {
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

func (b devBackend) QueueDev(ops ...devchain.Op) { b.n.app.QueueDevOps(ops...) }

// ClockOffset is the offset at the head plus what the queue adds.
func (b devBackend) ClockOffset() int64 {
	return devchain.Offset(b.n.store.Head()) + b.n.app.QueuedTimeShift()
}

// DropTransaction removes a pooled EVM transaction from the pool and from
// CometBFT's mempool.
func (b devBackend) DropTransaction(hash common.Hash) bool {
	ptx := b.n.pool.ByHash(hash)
	if ptx == nil {
		return false
	}
	b.drop([]*txpool.Tx{ptx})
	return true
}

// DropAllTransactions removes every pooled EVM transaction.
func (b devBackend) DropAllTransactions() {
	pending, queued := b.n.pool.Content()
	var txs []*txpool.Tx
	for _, byAddr := range []map[common.Address][]*types.Transaction{pending, queued} {
		for _, list := range byAddr {
			for _, tx := range list {
				if ptx := b.n.pool.ByHash(tx.Hash()); ptx != nil {
					txs = append(txs, ptx)
				}
			}
		}
	}
	b.drop(txs)
}

func (b devBackend) drop(txs []*txpool.Tx) {
	mp := b.n.comet().Mempool()
	mp.Lock() // as CometBFT's own removals run
	defer mp.Unlock()
	for _, ptx := range txs {
		b.n.pool.Remove(ptx.Key)
		_ = mp.RemoveTxByKey(cmttypes.TxKey(ptx.Key)) // a queued tx is not in the mempool: fine
	}
}

// Revert is evm_revert's node side (revert.go).
func (b devBackend) Revert(ctx context.Context, h uint64) error { return b.n.Revert(ctx, h) }

func (b devBackend) SetAutomine(on bool) bool { return b.n.app.SetAutomine(on) }
func (b devBackend) Automine() bool           { return b.n.app.Automine() }

func (b devBackend) DumpState() (*devchain.State, error) { return b.n.DumpState() }
func (b devBackend) LoadState(ctx context.Context, s *devchain.State) error {
	return b.n.LoadState(ctx, s)
}
