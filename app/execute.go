package app

import (
	"context"
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/devchain"
	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	pool "github.com/emberchain/ember/txpool"
)

// blockTx is one transaction of a CometBFT block, decoded: an EVM
// transaction or a native one, or the error that kept its bytes from
// decoding (the coinbase marker included).
type blockTx struct {
	evm    *types.Transaction
	native *native.Tx
	dev    *devchain.Tx // dev chains only (dev.go)
	err    error
}

// decodeBlockTx decodes raw, reusing the pool's decoded copy (its sender
// recovered at admission) when fromPool and the pool holds it.
func (a *App) decodeBlockTx(raw []byte, fromPool bool) blockTx {
	if fromPool {
		if ptx := a.pool.Get(pool.KeyOf(raw)); ptx != nil {
			if n, ok := ptx.Item.(nativeItem); ok {
				return blockTx{native: n.tx}
			}
			return blockTx{evm: ptx.EVM()}
		}
	}
	if devchain.IsDev(raw) {
		return a.dev.decode(raw)
	}
	if native.IsNative(raw) {
		tx, err := native.Decode(raw, a.genesis.Bech32Prefix, a.genesis.Denom)
		return blockTx{native: tx, err: err}
	}
	tx, err := DecodeTx(raw)
	return blockTx{evm: tx, err: err}
}

// blockRun executes one CometBFT block: the app dispatches each
// transaction to the EVM executor or to native execution, on one state,
// in block order. FinalizeBlock runs a block whole; Replay runs a committed
// block again up to one of its transactions.
type blockRun struct {
	x   *evm.Executor
	nat *nativeBlock
	cfg *params.ChainConfig // the block's fork schedule (blockConfig)
}

// startBlock begins the block of header on statedb (its parent's state):
// the modules' pre-block work first (an upgrade plan due at this height),
// then the block's EVM on the chain config the state now records (a plan
// may have moved it to a new fork), then the begin-block work (staking
// pays back matured unbonding entries).
func (a *App) startBlock(ctx context.Context, header *types.Header, info *module.BlockInfo, statedb *state.StateDB, hooks *tracing.Hooks) (*blockRun, error) {
	nat := a.newNativeBlock(header, info)
	prior := evm.Activations(statedb)
	if err := a.modules.PreBlock(statedb, nat.block()); err != nil {
		return nil, err
	}
	cfg, err := a.blockConfig(header, nat.env, statedb, prior) // forks.go
	if err != nil {
		return nil, err
	}
	x := evm.NewExecutor(ctx, cfg, header, a.store, statedb, hooks)
	nat.x = x
	r := &blockRun{x: x, nat: nat, cfg: cfg}
	if err := r.nat.begin(); err != nil {
		x.Finish()
		return nil, err
	}
	return r, nil
}

// exec runs t in its place and returns its ABCI result; raw is its bytes,
// for the events.
func (r *blockRun) exec(t blockTx, raw []byte) *abci.ExecTxResult {
	switch {
	case t.err != nil:
		return decodeResult(t.err)
	case t.native != nil:
		return r.nat.run(t.native)
	case t.dev != nil:
		return r.execDev(t.dev)
	}
	out := r.x.ApplyTx(t.evm)
	return txResult(t.evm, &out, raw)
}

// Replay re-executes a committed block on its parent's state exactly as
// FinalizeBlock did (unbonding maturity, native transactions, rejected
// transactions, in block order) to give a tracer the state before one of
// its EVM transactions.
type Replay struct {
	run   *blockRun
	block *types.Block
	txs   []blockTx
	next  int // position in txs
	done  bool
}

// NewReplay begins replaying block, whose CometBFT block held raws, on
// statedb, the state of its parent, with the block info FinalizeBlock
// recorded (proposer, votes, evidence), so begin-block allocates and
// slashes as it did.
func (a *App) NewReplay(ctx context.Context, block *types.Block, raws [][]byte, statedb *state.StateDB) (*Replay, error) {
	info, err := a.storedBlockInfo(block.NumberU64())
	if err != nil {
		return nil, err
	}
	run, err := a.startBlock(ctx, block.Header(), info, statedb, nil)
	if err != nil {
		return nil, fmt.Errorf("replay block %d: %w", block.NumberU64(), err)
	}
	txs := make([]blockTx, len(raws))
	for i, raw := range raws {
		txs[i] = a.decodeBlockTx(raw, false)
	}
	return &Replay{run: run, block: block, txs: txs}, nil
}

// BlockContext is the EVM block context of the replayed block.
func (r *Replay) BlockContext() vm.BlockContext { return r.run.x.BlockContext() }

// Other tells whether the block changes the state other than through its
// EVM transactions: it holds native transactions or matured unbonding
// entries, which a tracer that only re-runs the EVM block would miss.
func (r *Replay) Other() bool {
	if len(r.run.nat.events.List()) > 0 {
		return true
	}
	for _, t := range r.txs {
		if t.native != nil || t.dev != nil {
			return true
		}
	}
	return false
}

// To runs the block's transactions until its EVM transaction n (the
// index in the EVM block) is the next one.
func (r *Replay) To(n int) error {
	txs := r.block.Transactions()
	if n < 0 || n > len(txs) {
		return fmt.Errorf("transaction index %d out of range for block %d with %d transactions", n, r.block.NumberU64(), len(txs))
	}
	for r.next < len(r.txs) {
		if err := r.run.x.Context().Err(); err != nil {
			return err
		}
		t := r.txs[r.next]
		if n < len(txs) && t.evm != nil && t.evm.Hash() == txs[n].Hash() {
			break
		}
		r.run.exec(t, nil)
		r.next++
	}
	if got := r.run.x.Included(); got != n {
		return fmt.Errorf("replay of block %d included %d transactions before transaction %d: the store and the rules disagree", r.block.NumberU64(), got, n)
	}
	return nil
}

// Next runs the block's next EVM transaction (after To) with hooks of its
// own.
func (r *Replay) Next(hooks *tracing.Hooks) (evm.TxOutcome, error) {
	if r.next >= len(r.txs) || r.txs[r.next].evm == nil {
		return evm.TxOutcome{}, fmt.Errorf("replay of block %d: no EVM transaction next", r.block.NumberU64())
	}
	out := r.run.x.ApplyTxWith(r.txs[r.next].evm, hooks)
	r.next++
	if out.Rejected != nil {
		return out, fmt.Errorf("replay of block %d: included transaction rejected: %w", r.block.NumberU64(), out.Rejected)
	}
	return out, nil
}

// Release frees the replay's EVM.
func (r *Replay) Release() {
	if !r.done {
		r.done = true
		r.run.x.Finish()
	}
}
