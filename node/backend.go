package node

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/mempool"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/store"
)

// backend implements the RPC namespaces' Backend interfaces over the node's
// store, pool and CometBFT.
type backend struct {
	n         *Node
	syncStart atomic.Uint64 // 1 + the head when a block sync began; 0 = not syncing
}

func (b *backend) ChainConfig() *params.ChainConfig { return b.n.store.Config() }
func (b *backend) Head() *types.Header              { return b.n.store.Head() }
func (b *backend) HeaderByNumber(n uint64) *types.Header {
	return b.n.store.HeaderByNumber(n)
}
func (b *backend) HeaderByHash(h common.Hash) *types.Header { return b.n.store.HeaderByHash(h) }
func (b *backend) GetHeader(h common.Hash, n uint64) *types.Header {
	return b.n.store.GetHeader(h, n)
}
func (b *backend) BlockByNumber(n uint64) *types.Block    { return b.n.store.BlockByNumber(n) }
func (b *backend) BlockByHash(h common.Hash) *types.Block { return b.n.store.BlockByHash(h) }
func (b *backend) Receipts(h *types.Header) types.Receipts {
	return b.n.store.Receipts(h)
}
func (b *backend) Transaction(h common.Hash) (*types.Transaction, store.TxLocation) {
	return b.n.store.Transaction(h)
}

// StateAt serves the RPC's reads and calls, which never commit: through the
// store's per-root read cache.
func (b *backend) StateAt(root common.Hash) (*state.StateDB, error) {
	return b.n.store.CachedStateAt(root)
}

func (b *backend) PendingTransaction(h common.Hash) *types.Transaction {
	if ptx := b.n.pool.ByHash(h); ptx != nil {
		return ptx.Tx
	}
	return nil
}

func (b *backend) PendingNonce(addr common.Address, stateNonce uint64) uint64 {
	return b.n.pool.PendingNonce(addr, stateNonce)
}

func (b *backend) NextBaseFee() *big.Int { return b.BaseFeeAfter(b.Head()) }

func (b *backend) BaseFeeAfter(parent *types.Header) *big.Int {
	return evm.NextBaseFee(b.ChainConfig(), parent, b.n.state.MinBaseFee())
}

// SendTransaction runs CheckTx through CometBFT's mempool (as
// broadcast_tx_sync does) and waits for its verdict.
// seenBefore explains a tx CometBFT's cache has seen: still pending is geth's
// "already known"; already mined is what geth answers then, since its pool
// validates the nonce against the state: "nonce too low".
func (b *backend) seenBefore(raw []byte) error {
	var tx types.Transaction
	if tx.UnmarshalBinary(raw) != nil {
		return txpool.ErrAlreadyKnown
	}
	mined, _ := b.n.store.Transaction(tx.Hash())
	if mined == nil {
		return txpool.ErrAlreadyKnown
	}
	head := b.n.store.Head()
	from, err := types.Sender(evm.Signer(b.ChainConfig(), head.Number, head.Time), &tx)
	if err != nil {
		return txpool.ErrAlreadyKnown
	}
	st, err := b.n.store.CachedStateAt(head.Root)
	if err != nil {
		return txpool.ErrAlreadyKnown
	}
	return fmt.Errorf("%w: next nonce %v, tx nonce %v", core.ErrNonceTooLow, st.GetNonce(from), tx.Nonce())
}

func (b *backend) SendTransaction(ctx context.Context, raw []byte) error {
	resCh := make(chan *abci.ResponseCheckTx, 1)
	err := b.n.cmt.Mempool().CheckTx(raw, func(res *abci.ResponseCheckTx) { resCh <- res }, mempool.TxInfo{})
	switch {
	case errors.Is(err, mempool.ErrTxInCache):
		return b.seenBefore(raw)
	case err != nil:
		var full mempool.ErrMempoolIsFull
		if errors.As(err, &full) {
			return fmt.Errorf("txpool is full: %v", err)
		}
		return err
	}
	select {
	case res := <-resCh:
		if res.Code != abci.CodeTypeOK {
			return errors.New(res.Log)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("transaction check not received: %w", ctx.Err())
	}
}

func (b *backend) Logs(ctx context.Context, q store.LogQuery) ([]*types.Log, error) {
	return b.n.store.Logs(ctx, q)
}

// SyncStatus reports CometBFT's block sync: while it catches up, from the
// app's head when it started to CometBFT's block store height.
func (b *backend) SyncStatus() (bool, uint64, uint64, uint64) {
	if !b.n.cmt.ConsensusReactor().WaitSync() {
		b.syncStart.Store(0)
		return false, 0, 0, 0
	}
	current := b.Head().Number.Uint64()
	b.syncStart.CompareAndSwap(0, current+1)
	return true, b.syncStart.Load() - 1, current, uint64(b.n.cmt.BlockStore().Height())
}

func (b *backend) Coinbase() common.Address { return b.n.coinbase }

func (b *backend) PeerCount() int  { return b.n.cmt.Switch().Peers().Size() }
func (b *backend) Listening() bool { return b.n.cmt.IsListening() }
