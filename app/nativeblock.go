package app

import (
	"errors"
	"math/big"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
)

// nativeBlock runs the native side of a block on the executor's state, in
// the order package module documents: the modules' begin-block work first,
// each native transaction in its place among the EVM ones, the modules'
// end-block work last.
type nativeBlock struct {
	x       *evm.Executor
	modules *module.Manager
	env     *module.Env
	info    *module.BlockInfo
	events  *module.Events // block events (begin- and end-block work)
	burnt   *big.Int       // base fee of the native transactions' gas
}

// newNativeBlock is the native side of header's block; startBlock sets its
// executor once the pre-block work has run.
func (a *App) newNativeBlock(header *types.Header, info *module.BlockInfo) *nativeBlock {
	return &nativeBlock{
		modules: a.modules,
		info:    info,
		env: &module.Env{
			ChainID: a.chainIDString(), Prefix: a.genesis.Bech32Prefix, Denom: a.genesis.Denom,
			BaseFee: header.BaseFee, GasLimit: header.GasLimit, Height: header.Number.Int64(),
			Time: time.Unix(int64(header.Time), 0).UTC(), Coinbase: header.Coinbase,
		},
		events: module.NewEvents(a.genesis.Bech32Prefix, a.genesis.Denom),
		burnt:  new(big.Int),
	}
}

func (b *nativeBlock) block() *module.Block {
	return &module.Block{Env: b.env, Info: b.info, Events: b.events}
}

// begin runs the modules' begin-block work, through the block's hooks.
func (b *nativeBlock) begin() error {
	if err := b.modules.BeginBlock(b.x.State(), b.block()); err != nil {
		return err
	}
	b.x.Settle()
	return nil
}

// run executes a native transaction in its place in the block.
func (b *nativeBlock) run(tx *native.Tx) *abci.ExecTxResult {
	res, err := native.Execute(b.x.State(), tx, b.env)
	if err == nil { // charged: native.Execute burnt the base fee of its gas
		b.burnt.Add(b.burnt, new(big.Int).Mul(b.env.BaseFee, new(big.Int).SetUint64(tx.GasUsed())))
	}
	if err != nil {
		e := module.AsError(err)
		res = &abci.ExecTxResult{Code: e.Code, Codespace: e.Codespace, Log: e.Error(), GasWanted: int64(tx.GasLimit)}
	}
	b.x.Settle()
	return res
}

// end runs the modules' end-block work on the block's final state (after
// the executor finished) and returns the validator updates.
func (b *nativeBlock) end(st *state.StateDB) ([]abci.ValidatorUpdate, error) {
	return b.modules.EndBlock(st, b.block())
}

// decodeResult is the result of bytes that did not decode.
func decodeResult(err error) *abci.ExecTxResult {
	var e *module.Error
	if errors.As(err, &e) {
		return &abci.ExecTxResult{Code: e.Code, Codespace: e.Codespace, Log: e.Error()}
	}
	return &abci.ExecTxResult{Code: CodeDecode, Codespace: Codespace, Log: err.Error()}
}
