package evm

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// ReplayTo re-executes the first n transactions of a stored block on
// statedb, the state of its parent, leaving the state a tracer of
// transaction n must start from. It follows ApplyBlock: same block context
// (coinbase, BLOCKHASH from the chain's headers), no system calls, one
// Finalise per transaction. Every transaction of a stored block was
// included, so a failure here means the store and the rules disagree.
func ReplayTo(ctx context.Context, cfg *params.ChainConfig, block *types.Block, headers HeaderReader, statedb *state.StateDB, n int) (vm.BlockContext, error) {
	header := block.Header()
	blockCtx := BlockContext(cfg, header, headers)
	txs := block.Transactions()
	if n < 0 || n > len(txs) {
		return blockCtx, fmt.Errorf("transaction index %d out of range for block %d with %d transactions", n, header.Number, len(txs))
	}
	signer := Signer(cfg, header.Number, header.Time)
	evm := vm.NewEVM(blockCtx, statedb, cfg, vm.Config{})
	defer evm.Release()
	for i, tx := range txs[:n] {
		if err := ctx.Err(); err != nil {
			return blockCtx, err
		}
		msg, err := core.TransactionToMessage(tx, signer, header.BaseFee)
		if err != nil {
			return blockCtx, fmt.Errorf("replay tx %d of block %d: %w", i, header.Number, err)
		}
		statedb.SetTxContext(tx.Hash(), i, uint32(i+1))
		if _, err := core.ApplyMessage(evm, msg, core.NewGasPool(tx.Gas())); err != nil {
			return blockCtx, fmt.Errorf("replay tx %d of block %d: %w", i, header.Number, err)
		}
		statedb.Finalise(evm.GetRules())
	}
	return blockCtx, nil
}
