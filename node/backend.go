package node

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/mempool"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/gasprice"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/store"
)

// backend implements the RPC namespaces' Backend interfaces over the node's
// store, pool and CometBFT.
type backend struct {
	n *Node

	tipsOnce sync.Once
	tips     *gasprice.Oracle // go-ethereum's gas price oracle over the chain
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

func (b *backend) AccountAt(h *types.Header, addr common.Address) (*types.StateAccount, error) {
	return b.n.store.AccountOf(h, addr)
}

func (b *backend) BlockAvailable(number uint64) error { return b.n.store.CheckBlock(number) }

// StateAt serves the RPC's reads and calls, which never commit: through the
// store's per-root read cache.
func (b *backend) StateAt(h *types.Header) (*state.StateDB, error) {
	return b.n.store.CachedStateOf(h)
}

func (b *backend) BorrowState(h *types.Header) (*state.StateDB, func(), error) {
	return b.n.store.BorrowStateOf(h)
}

func (b *backend) StateWindow() (oldest, keepRecent uint64) {
	if p := b.n.store.Pruning(); p.Mode == store.PruneFull {
		keepRecent = p.KeepRecent
	}
	return b.n.store.OldestState(), keepRecent
}

func (b *backend) PendingTransaction(h common.Hash) *types.Transaction {
	if ptx := b.n.pool.ByHash(h); ptx != nil {
		return ptx.EVM()
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

// seenBefore explains a tx CometBFT's cache has seen, as geth's pool would
// answer it. CometBFT keeps the bytes of a tx in its cache when the pool
// takes it out of the mempool (replaced, evicted), so they cannot come back:
// still pooled is "already known"; mined, or its nonce used, is "nonce too
// low"; displaced by a same-nonce replacement is "replacement transaction
// underpriced"; otherwise it was evicted from the full pool: "transaction
// underpriced".
func (n *Node) seenBefore(raw []byte) error {
	var tx types.Transaction
	if tx.UnmarshalBinary(raw) != nil || n.pool.ByHash(tx.Hash()) != nil {
		return txpool.ErrAlreadyKnown
	}
	head := n.store.Head()
	from, err := types.Sender(evm.Signer(n.store.Config(), head.Number, head.Time), &tx)
	if err != nil {
		return txpool.ErrAlreadyKnown
	}
	st, err := n.store.CachedStateAt(head.Root)
	if err != nil {
		return txpool.ErrAlreadyKnown
	}
	switch next := st.GetNonce(from); {
	case tx.Nonce() < next:
		return fmt.Errorf("%w: next nonce %v, tx nonce %v", core.ErrNonceTooLow, next, tx.Nonce())
	case n.pool.ByNonce(from, tx.Nonce()) != nil:
		return txpool.ErrReplaceUnderpriced
	}
	return txpool.ErrUnderpriced
}

// SendTransaction runs CheckTx, through CometBFT's mempool (as
// broadcast_tx_sync does) unless the app admits it locally (app/local.go),
// and waits for its verdict. A queued answer
// (nonce gap: the app's pool holds the tx) is a success, as in geth.
func (b *backend) SendTransaction(ctx context.Context, tx *types.Transaction, raw []byte) error {
	if err := b.n.admit(ctx, raw, tx); err != nil {
		return err
	}
	b.n.journalTx(raw)
	return nil
}

// admit runs raw through CheckTx into the pools; nil when it was accepted
// (pending or queued) or already was. decoded, if not nil, is raw decoded.
func (n *Node) admit(ctx context.Context, raw []byte, decoded *types.Transaction) error {
	// Stateless checks and sender recovery here, on the RPC goroutine, in
	// parallel with other senders; CheckTx reuses the result.
	key, err := n.app.Precheck(raw, decoded)
	if err != nil {
		return err
	}
	defer n.app.Forget(key)
	if res, done, err := n.app.AdmitLocal(raw, key); err != nil {
		return err
	} else if done {
		return checkResult(res)
	}
	resCh := make(chan *abci.ResponseCheckTx, 1)
	err = n.comet().Mempool().CheckTx(raw, func(res *abci.ResponseCheckTx) { resCh <- res }, mempool.TxInfo{})
	switch {
	case errors.Is(err, mempool.ErrTxInCache):
		return n.seenBefore(raw)
	case err != nil:
		var full mempool.ErrMempoolIsFull
		if errors.As(err, &full) {
			return fmt.Errorf("txpool is full: %v", err)
		}
		return err
	}
	select {
	case res := <-resCh:
		return checkResult(res)
	case <-ctx.Done():
		return fmt.Errorf("transaction check not received: %w", ctx.Err())
	}
}

// checkResult is CheckTx's verdict as eth_sendRawTransaction's: queued and
// held transactions are accepted.
func checkResult(res *abci.ResponseCheckTx) error {
	if res.Code != abci.CodeTypeOK && res.Code != app.CodeQueued && res.Code != app.CodeHeld {
		return errors.New(res.Log)
	}
	return nil
}

func (b *backend) Logs(ctx context.Context, q store.LogQuery) ([]*types.Log, error) {
	return b.n.store.Logs(ctx, q)
}

// SyncStatus reports CometBFT's block sync (see Node.syncStatus).
func (b *backend) SyncStatus() (bool, uint64, uint64, uint64) { return b.n.syncStatus() }

// Coinbase is the etherbase set with miner_setEtherbase, else the reward
// address of this node's validator in the genesis.
func (b *backend) Coinbase() common.Address {
	if addr, ok := b.n.app.Etherbase(); ok {
		return addr
	}
	return b.n.coinbase
}

// MinGasTip is the lowest tip the node admits (minimum-gas-prices).
func (b *backend) MinGasTip() *big.Int { return b.n.app.MinTip() }

// TxPoolContent is every pooled tx by sender, pending and queued.
func (b *backend) TxPoolContent() (pending, queued map[common.Address][]*types.Transaction) {
	return b.n.pool.Content()
}

// TxPoolContentFrom is one sender's pooled txs.
func (b *backend) TxPoolContentFrom(addr common.Address) (pending, queued []*types.Transaction) {
	return b.n.pool.ContentFrom(addr)
}

// TxPoolStats counts the pending and queued txs.
func (b *backend) TxPoolStats() (pending, queued int) { return b.n.pool.Stats() }

// SetEtherbase makes addr the fee recipient of the blocks this node proposes.
func (b *backend) SetEtherbase(addr common.Address) {
	b.n.app.SetEtherbase(addr)
	b.n.log.Info("etherbase set", "address", addr)
}

// SetMinGasPrice sets the minimum tip and writes it to app.toml.
func (b *backend) SetMinGasPrice(price *big.Int) (bool, error) { return b.n.setMinGasPrice(price) }

func (b *backend) PeerCount() int  { return b.n.comet().Switch().Peers().Size() }
func (b *backend) Listening() bool { return b.n.comet().IsListening() }
