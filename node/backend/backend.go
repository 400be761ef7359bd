package backend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/mempool"
	cmtnode "github.com/cometbft/cometbft/node"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	gethpool "github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/gasprice"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/feemarket"
	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
)

// Chain is what the backends read and drive: the node's store, pool, app
// and genesis app state, and its in-process CometBFT.
type Chain struct {
	Store *store.Store
	Pool  *txpool.Pool
	App   *app.App
	State *app.AppState
	// Comet is the running CometBFT node: a dev chain's evm_revert
	// replaces it, so it is read at each use.
	Comet func() *cmtnode.Node
	// Halted is why the node accepts no transaction any more (a write it
	// needs failed and it is stopping: fail-stop), or nil; nil func: never.
	Halted func() error
}

// Options are the node's values and hooks the RPC backend serves beside
// the chain.
type Options struct {
	Coinbase  common.Address // this node's validator's reward address
	StartHead uint64         // the app's head when CometBFT started (eth_syncing's startingBlock)
	// Home is the node's home, whose app.toml miner_setGasPrice rewrites
	// unless MinGasPinned (--minimum-gas-prices was given).
	Home         string
	MinGasPinned bool
	// Sent is called with each transaction a client sent that was
	// accepted (the journal); nil for none. Its error is the client's: a
	// transaction the node could not record is not reported sent.
	Sent func(raw []byte) error
	// AnswerMined (emberd dev): eth_sendRawTransaction and
	// eth_sendTransaction answer once the transaction is mined, as on
	// Hardhat Network and anvil with automine (see SendTransaction).
	AnswerMined bool
	Log         *slog.Logger
}

// Backend implements the RPC namespaces' Backend interfaces over the
// node's store, pool and CometBFT.
type Backend struct {
	c    Chain
	opts Options

	minGasMu sync.Mutex // one writer of app.toml at a time (SetMinGasPrice)

	tipsOnce sync.Once
	tips     *gasprice.Oracle // go-ethereum's gas price oracle over the chain
}

// New is the RPC backend over c.
func New(c Chain, opts Options) *Backend { return &Backend{c: c, opts: opts} }

func (b *Backend) ChainConfig() *params.ChainConfig { return b.c.Store.Config() }
func (b *Backend) Head() *types.Header              { return b.c.Store.Head() }
func (b *Backend) HeaderByNumber(n uint64) *types.Header {
	return b.c.Store.HeaderByNumber(n)
}
func (b *Backend) HeaderByHash(h common.Hash) *types.Header { return b.c.Store.HeaderByHash(h) }
func (b *Backend) GetHeader(h common.Hash, n uint64) *types.Header {
	return b.c.Store.GetHeader(h, n)
}
func (b *Backend) BlockByNumber(n uint64) *types.Block    { return b.c.Store.BlockByNumber(n) }
func (b *Backend) BlockByHash(h common.Hash) *types.Block { return b.c.Store.BlockByHash(h) }
func (b *Backend) Receipts(h *types.Header) types.Receipts {
	return b.c.Store.Receipts(h)
}
func (b *Backend) Transaction(h common.Hash) (*types.Transaction, store.TxLocation) {
	return b.c.Store.Transaction(h)
}

func (b *Backend) AccountAt(h *types.Header, addr common.Address) (*types.StateAccount, error) {
	return b.c.Store.AccountOf(h, addr)
}

func (b *Backend) BlockAvailable(number uint64) error { return b.c.Store.CheckBlock(number) }

// StateAt serves the RPC's reads and calls, which never commit: through the
// store's per-root read cache.
func (b *Backend) StateAt(h *types.Header) (*state.StateDB, error) {
	return b.c.Store.CachedStateOf(h)
}

func (b *Backend) BorrowState(h *types.Header) (*state.StateDB, func(), error) {
	return b.c.Store.BorrowStateOf(h)
}

func (b *Backend) StateWindow() (oldest, keepRecent uint64) {
	if p := b.c.Store.Pruning(); p.Mode == store.PruneFull {
		keepRecent = p.KeepRecent
	}
	return b.c.Store.OldestState(), keepRecent
}

func (b *Backend) PendingTransaction(h common.Hash) *types.Transaction {
	if ptx := b.c.Pool.ByHash(h); ptx != nil {
		return ptx.EVM()
	}
	return nil
}

func (b *Backend) PendingNonce(addr common.Address, stateNonce uint64) uint64 {
	return b.c.Pool.PendingNonce(addr, stateNonce)
}

// NextBaseFee is the next block's base fee: the one a dev chain's
// anvil_setNextBlockBaseFeePerGas queued, else the head's successor's.
func (b *Backend) NextBaseFee() *big.Int {
	if fee := b.c.App.QueuedBaseFee(); fee != nil {
		return fee
	}
	return b.BaseFeeAfter(b.Head())
}

// BaseFeeAfter is the base fee of the block after parent: the child's
// own, once it exists; else EIP-1559 from parent with the floor parent's
// state records (package feemarket), as FinalizeBlock computes it. A
// parent whose state is pruned gets the genesis floor.
func (b *Backend) BaseFeeAfter(parent *types.Header) *big.Int {
	if child := b.c.Store.HeaderByNumber(parent.Number.Uint64() + 1); child != nil && child.ParentHash == parent.Hash() && child.BaseFee != nil {
		return new(big.Int).Set(child.BaseFee)
	}
	floor := b.c.State.MinBaseFee()
	if st, release, err := b.c.Store.BorrowStateOf(parent); err == nil {
		floor = feemarket.MinBaseFee(st, floor)
		release()
	}
	return evm.NextBaseFee(b.ChainConfig(), parent, floor)
}

// seenBefore explains a tx CometBFT's cache has seen, as geth's pool would
// answer it. CometBFT keeps the bytes of a tx in its cache when the pool
// takes it out of the mempool (replaced, evicted), so they cannot come back:
// still pooled is "already known"; mined, or its nonce used, is "nonce too
// low"; displaced by a same-nonce replacement is "replacement transaction
// underpriced"; otherwise it was evicted from the full pool: "transaction
// underpriced".
func (c Chain) seenBefore(raw []byte) error {
	var tx types.Transaction
	if tx.UnmarshalBinary(raw) != nil || c.Pool.ByHash(tx.Hash()) != nil {
		return gethpool.ErrAlreadyKnown
	}
	head := c.Store.Head()
	from, err := types.Sender(evm.Signer(c.Store.Config(), head.Number, head.Time), &tx)
	if err != nil {
		return gethpool.ErrAlreadyKnown
	}
	st, err := c.Store.CachedStateAt(head.Root)
	if err != nil {
		return gethpool.ErrAlreadyKnown
	}
	switch next := st.GetNonce(from); {
	case tx.Nonce() < next:
		return fmt.Errorf("%w: next nonce %v, tx nonce %v", core.ErrNonceTooLow, next, tx.Nonce())
	case c.Pool.ByNonce(from, tx.Nonce()) != nil:
		return gethpool.ErrReplaceUnderpriced
	}
	return gethpool.ErrUnderpriced
}

// SendTransaction runs CheckTx, through CometBFT's mempool (as
// broadcast_tx_sync does) unless the app admits it locally (app/local.go),
// and waits for its verdict. A queued answer
// (nonce gap: the app's pool holds the tx) is a success, as in geth. With
// Options.AnswerMined (emberd dev), a pending transaction is answered once
// its block is committed (waitMined).
func (b *Backend) SendTransaction(ctx context.Context, tx *types.Transaction, raw []byte) error {
	pending, err := b.c.admit(ctx, raw, tx)
	if err != nil {
		return err
	}
	if b.opts.Sent != nil {
		if err := b.opts.Sent(raw); err != nil {
			return err
		}
	}
	if pending && b.opts.AnswerMined {
		b.c.waitMined(ctx, tx.Hash())
	}
	return nil
}

// waitMined waits, on a dev chain with automine on, until a committed
// block holds the transaction hash and the chain is settled after it, as a
// send on Hardhat Network or anvil answers after mining: a client reads
// the receipt as soon as the hash comes back. It returns early, the
// transaction still pending, when the transaction leaves the pool unmined
// or ctx ends: the transaction was admitted, so the send still succeeds.
func (c Chain) waitMined(ctx context.Context, hash common.Hash) {
	done, forget, ok := c.App.WaitIncluded(hash)
	if !ok {
		return
	}
	defer forget()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Admit runs raw through CheckTx into the pools; nil when it was accepted
// (pending or queued) or already was. decoded, if not nil, is raw decoded.
func (c Chain) Admit(ctx context.Context, raw []byte, decoded *types.Transaction) error {
	_, err := c.admit(ctx, raw, decoded)
	return err
}

// admit is Admit, also telling whether CheckTx answered the transaction
// pending (for the next block: not queued, not held while automine is
// off, not known before).
func (c Chain) admit(ctx context.Context, raw []byte, decoded *types.Transaction) (pending bool, err error) {
	if c.Halted != nil {
		if err := c.Halted(); err != nil {
			return false, err
		}
	}
	// Stateless checks and sender recovery here, on the RPC goroutine, in
	// parallel with other senders; CheckTx reuses the result.
	key, err := c.App.Precheck(raw, decoded)
	if err != nil {
		return false, err
	}
	defer c.App.Forget(key)
	if res, done, err := c.App.AdmitLocal(raw, key); err != nil {
		return false, err
	} else if done {
		return res.Code == abci.CodeTypeOK, checkResult(res)
	}
	resCh := make(chan *abci.ResponseCheckTx, 1)
	err = c.Comet().Mempool().CheckTx(raw, func(res *abci.ResponseCheckTx) { resCh <- res }, mempool.TxInfo{})
	switch {
	case errors.Is(err, mempool.ErrTxInCache):
		return false, c.seenBefore(raw)
	case err != nil:
		var full mempool.ErrMempoolIsFull
		if errors.As(err, &full) {
			return false, fmt.Errorf("txpool is full: %v", err)
		}
		return false, err
	}
	select {
	case res := <-resCh:
		return res.Code == abci.CodeTypeOK, checkResult(res)
	case <-ctx.Done():
		return false, fmt.Errorf("transaction check not received: %w", ctx.Err())
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

func (b *Backend) Logs(ctx context.Context, q store.LogQuery) ([]*types.Log, error) {
	return b.c.Store.Logs(ctx, q)
}

// Coinbase is the etherbase set with miner_setEtherbase, else the reward
// address of this node's validator in the genesis.
func (b *Backend) Coinbase() common.Address {
	if addr, ok := b.c.App.Etherbase(); ok {
		return addr
	}
	return b.opts.Coinbase
}

// MinGasTip is the lowest tip the node admits (minimum-gas-prices).
func (b *Backend) MinGasTip() *big.Int { return b.c.App.MinTip() }

// TxPoolContent is every pooled tx by sender, pending and queued.
func (b *Backend) TxPoolContent() (pending, queued map[common.Address][]*types.Transaction) {
	return b.c.Pool.Content()
}

// TxPoolContentFrom is one sender's pooled txs.
func (b *Backend) TxPoolContentFrom(addr common.Address) (pending, queued []*types.Transaction) {
	return b.c.Pool.ContentFrom(addr)
}

// TxPoolStats counts the pending and queued txs.
func (b *Backend) TxPoolStats() (pending, queued int) { return b.c.Pool.Stats() }

// SetEtherbase makes addr the fee recipient of the blocks this node proposes.
func (b *Backend) SetEtherbase(addr common.Address) {
	b.c.App.SetEtherbase(addr)
	b.opts.Log.Info("etherbase set", "address", addr)
}

// SetMinGasPrice makes price the node's minimum tip and writes it to
// app.toml (re-read from disk, so command-line overrides stay out of the
// file). With --minimum-gas-prices given it changes nothing and warns.
func (b *Backend) SetMinGasPrice(price *big.Int) (bool, error) {
	b.minGasMu.Lock()
	defer b.minGasMu.Unlock()
	if b.opts.MinGasPinned {
		b.opts.Log.Warn("miner_setGasPrice ignored: --minimum-gas-prices takes precedence", "requested", price, "minimum", b.c.App.MinTip())
		return false, nil
	}
	cfg, err := config.Load(b.opts.Home)
	if err != nil {
		return false, err
	}
	cfg.MinGasPrices = config.FormatMinGasPrices(price)
	if err := config.Write(b.opts.Home, cfg); err != nil {
		return false, fmt.Errorf("write %s: %w", config.AppPath(b.opts.Home), err)
	}
	b.c.App.SetMinTip(price)
	b.opts.Log.Info("minimum gas price set", "tip", price, "config", config.AppPath(b.opts.Home))
	return true, nil
}

func (b *Backend) PeerCount() int  { return b.c.Comet().Switch().Peers().Size() }
func (b *Backend) Listening() bool { return b.c.Comet().IsListening() }
