// Package miner implements the miner_ JSON-RPC namespace (private: served
// only to callers with the node's JWT). Ember has no miner: CometBFT
// proposes blocks, so the controls of a proof-of-work miner answer as
// Ethermint's do, and the two that mean something for a validator act:
// setEtherbase (who receives this node's block rewards) and setGasPrice
// (the lowest tip this node admits). miner_start is not a method here (an
// unknown method's -32601): blocks come from CometBFT consensus, there is
// no miner to start.
package miner

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/params"
)

// Backend is what the namespace needs from the node.
type Backend interface {
	// SetEtherbase makes addr the fee recipient of the blocks this node
	// proposes from its next proposal on.
	SetEtherbase(addr common.Address)
	// SetMinGasPrice makes price the minimum tip and writes it to the
	// config file; false (and no change) when the command line fixed it.
	SetMinGasPrice(price *big.Int) (bool, error)
}

// API is the miner namespace.
type API struct{ b Backend }

// NewAPI returns the miner namespace over b.
func NewAPI(b Backend) *API { return &API{b: b} }

// errSetExtra answers miner_setExtra: the EVM header's extra data is empty
// on every node, so that all validators build the same header.
var errSetExtra = errors.New("unsupported rpc function: miner_setExtra")

// Stop does nothing: there is no miner to stop.
func (api *API) Stop() {}

// GetHashrate is 0: no proof of work.
func (api *API) GetHashrate() uint64 { return 0 }

// SetGasLimit is false: the block gas limit is a genesis parameter.
func (api *API) SetGasLimit(gasLimit hexutil.Uint64) bool { return false }

// SetExtra is an error; extra data over 32 bytes gets geth's own error.
func (api *API) SetExtra(extra string) (bool, error) {
	if uint64(len(extra)) > params.MaximumExtraDataSize {
		return false, fmt.Errorf("extra exceeds max length. %d > %v", len(extra), params.MaximumExtraDataSize)
	}
	return false, errSetExtra
}

// SetEtherbase sets the address that receives this validator's rewards
// (the priority fees of the blocks it proposes), from its next proposal.
func (api *API) SetEtherbase(etherbase common.Address) bool {
	api.b.SetEtherbase(etherbase)
	return true
}

// SetGasPrice sets the node's minimum tip per gas and writes it to
// app.toml (minimum-gas-prices); false when --minimum-gas-prices fixed it.
func (api *API) SetGasPrice(gasPrice hexutil.Big) (bool, error) {
	return api.b.SetMinGasPrice((*big.Int)(&gasPrice))
}
