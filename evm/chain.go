package evm

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// HeaderReader is the part of the chain execution needs: headers by hash and
// number, for BLOCKHASH.
type HeaderReader interface {
	GetHeader(hash common.Hash, number uint64) *types.Header
}

// engine answers go-ethereum's one question to a consensus engine during
// execution, the block's author, with the header's coinbase (the beacon
// engine's rule for post-merge headers, which all of Ember's are). CometBFT
// is the real consensus engine.
var engine consensus.Engine = beacon.New(ethash.NewFaker())

// chainContext adapts a HeaderReader to core.ChainContext.
type chainContext struct {
	cfg     *params.ChainConfig
	headers HeaderReader
}

func (c chainContext) Config() *params.ChainConfig  { return c.cfg }
func (c chainContext) CurrentHeader() *types.Header { return nil }
func (c chainContext) GetHeader(hash common.Hash, number uint64) *types.Header {
	return c.headers.GetHeader(hash, number)
}
func (c chainContext) GetHeaderByNumber(uint64) *types.Header    { return nil }
func (c chainContext) GetHeaderByHash(common.Hash) *types.Header { return nil }
func (c chainContext) Engine() consensus.Engine                  { return engine }

// ChainContext adapts headers to the core.ChainContext go-ethereum's
// helpers (the gas estimator among them) take.
func ChainContext(cfg *params.ChainConfig, headers HeaderReader) core.ChainContext {
	return chainContext{cfg: cfg, headers: headers}
}

// BlockContext is the EVM's view of the block header: coinbase, number,
// time, base fee, PREVRANDAO (the header's mixHash) and BLOCKHASH served
// from the chain's own headers.
func BlockContext(cfg *params.ChainConfig, header *types.Header, headers HeaderReader) vm.BlockContext {
	coinbase := header.Coinbase
	return core.NewEVMBlockContext(header, chainContext{cfg: cfg, headers: headers}, &coinbase)
}

// Signer is the transaction signer for a block.
func Signer(cfg *params.ChainConfig, number *big.Int, time uint64) types.Signer {
	return types.MakeSigner(cfg, number, time)
}

// Engine is the consensus engine go-ethereum's helpers (tracers, the gas
// estimator) ask for a block's author: the beacon rules, so the header's
// coinbase.
func Engine() consensus.Engine { return engine }
