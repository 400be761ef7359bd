package backend

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/native"
)

// Tracer is what go-ethereum's tracers API (eth/tracers) needs from a
// chain, over the node's store: blocks, canonical transactions, and the
// state before any transaction, rebuilt by replaying the block's earlier
// transactions with Ember's execution rules.
type Tracer struct {
	c      Chain
	gasCap uint64
}

// NewTracer is the tracers' backend over c; gasCap bounds the gas of a
// traced call.
func NewTracer(c Chain, gasCap uint64) *Tracer { return &Tracer{c: c, gasCap: gasCap} }

var _ tracers.Backend = (*Tracer)(nil)

func (b *Tracer) header(number rpc.BlockNumber) *types.Header {
	switch number {
	case rpc.LatestBlockNumber, rpc.PendingBlockNumber, rpc.SafeBlockNumber, rpc.FinalizedBlockNumber:
		return b.c.Store.Head()
	case rpc.EarliestBlockNumber:
		number = 0
	}
	if number < 0 {
		return nil
	}
	return b.c.Store.HeaderByNumber(uint64(number))
}

func (b *Tracer) HeaderByHash(_ context.Context, hash common.Hash) (*types.Header, error) {
	return b.c.Store.HeaderByHash(hash), nil
}

func (b *Tracer) HeaderByNumber(_ context.Context, number rpc.BlockNumber) (*types.Header, error) {
	return b.header(number), nil
}

func (b *Tracer) CurrentHeader() *types.Header { return b.c.Store.Head() }

func (b *Tracer) BlockByHash(_ context.Context, hash common.Hash) (*types.Block, error) {
	return b.c.Store.BlockByHash(hash), nil
}

func (b *Tracer) BlockByNumber(_ context.Context, number rpc.BlockNumber) (*types.Block, error) {
	h := b.header(number)
	if h == nil {
		return nil, nil
	}
	return b.c.Store.BlockByHash(h.Hash()), nil
}

func (b *Tracer) GetCanonicalTransaction(hash common.Hash) (bool, *types.Transaction, common.Hash, uint64, uint64) {
	tx, loc := b.c.Store.Transaction(hash)
	if tx == nil {
		return false, nil, common.Hash{}, 0, 0
	}
	return true, tx, loc.BlockHash, loc.BlockNumber, loc.Index
}

// TxIndexDone: the lookup index is written in the same batch as each block.
func (b *Tracer) TxIndexDone() bool { return true }

func (b *Tracer) RPCGasCap() uint64                { return b.gasCap }
func (b *Tracer) ChainConfig() *params.ChainConfig { return b.c.Store.Config() }
func (b *Tracer) Engine() consensus.Engine         { return evm.Engine() }

// ChainDb is only used by the bad-block methods, which Ember does not serve
// (it keeps no bad blocks).
func (b *Tracer) ChainDb() ethdb.Database { return nil }

// StateAtBlock opens the state after block. Every state the store holds
// is whole on disk (archive, or the window a full node keeps), so nothing
// is re-executed and there is nothing to release; below the window it
// answers *store.StateUnavailableError as it is.
func (b *Tracer) StateAtBlock(_ context.Context, block *types.Block, _ *state.StateDB, _ bool, _ bool) (*state.StateDB, tracers.StateReleaseFunc, error) {
	st, err := b.c.Store.StateOf(block.Header())
	if err != nil {
		return nil, nil, err
	}
	return st, func() {}, nil
}

// StateAtTransaction opens the parent's state and replays the block up to
// transaction txIndex as FinalizeBlock ran it, native transactions and
// unbonding maturity included (see replay).
func (b *Tracer) StateAtTransaction(ctx context.Context, block *types.Block, txIndex int) (*types.Transaction, vm.BlockContext, *state.StateDB, tracers.StateReleaseFunc, error) {
	if txIndex < 0 || txIndex >= len(block.Transactions()) {
		return nil, vm.BlockContext{}, nil, nil, fmt.Errorf("transaction index %d out of range for block %d", txIndex, block.NumberU64())
	}
	r, st, err := b.replay(ctx, block, true)
	if err != nil {
		return nil, vm.BlockContext{}, nil, nil, err
	}
	if err := r.To(txIndex); err != nil {
		r.Release()
		return nil, vm.BlockContext{}, nil, nil, err
	}
	return block.Transactions()[txIndex], r.BlockContext(), st, r.Release, nil
}

// replay begins re-executing block on its parent's state, with the bytes
// of its CometBFT block, which hold its native transactions too (without
// them when !withTxs: the block's beginning only).
func (b *Tracer) replay(ctx context.Context, block *types.Block, withTxs bool) (*app.Replay, *state.StateDB, error) {
	if block.NumberU64() == 0 {
		return nil, nil, errors.New("no transaction in genesis")
	}
	parent := b.c.Store.GetHeader(block.ParentHash(), block.NumberU64()-1)
	if parent == nil {
		return nil, nil, fmt.Errorf("parent of block %d not found", block.NumberU64())
	}
	st, err := b.c.Store.StateOf(parent)
	if err != nil {
		return nil, nil, err
	}
	var raws [][]byte
	if withTxs {
		if raws, err = b.cometTxs(block); err != nil {
			return nil, nil, err
		}
	}
	r, err := b.c.App.NewReplay(ctx, block, raws, st)
	if err != nil {
		return nil, nil, err
	}
	return r, st, nil
}

// ReplaysOther tells whether block changes the state other than through its
// EVM transactions (native transactions, unbonding maturity), so tracing it
// must replay it transaction by transaction (see debug.API) rather than
// re-run only its EVM transactions on the parent's state.
func (b *Tracer) ReplaysOther(ctx context.Context, block *types.Block) (bool, error) {
	if block.NumberU64() == 0 {
		return false, nil
	}
	if err := b.c.Store.CheckState(block.NumberU64() - 1); err != nil { // a trace replays on the parent's state
		return false, err
	}
	raws, err := b.cometTxs(block)
	if err != nil {
		return false, err
	}
	for _, raw := range raws {
		if native.IsNative(raw) {
			return true, nil
		}
	}
	r, _, err := b.replay(ctx, block, false) // unbonding maturity only
	if err != nil {
		return false, err
	}
	defer r.Release()
	return r.Other(), nil
}

// cometTxs are the bytes of block's CometBFT block: its EVM transactions,
// native ones and any the app rejected.
func (b *Tracer) cometTxs(block *types.Block) ([][]byte, error) {
	cmtBlock := b.c.Comet().BlockStore().LoadBlock(block.Number().Int64())
	if cmtBlock == nil {
		return nil, fmt.Errorf("CometBFT block %d not found", block.NumberU64())
	}
	return cmtBlock.Data.Txs.ToSliceOfBytes(), nil
}
