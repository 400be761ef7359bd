package eth

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// blockByNumber resolves a block number or tag to a block, or nil.
func (api *API) blockByNumber(number rpc.BlockNumber) *types.Block {
	h := api.headerByNumber(number)
	if h == nil {
		return nil
	}
	return api.b.BlockByHash(h.Hash())
}

// GetBlockTransactionCountByNumber is the number of txs in a block, or null.
func (api *API) GetBlockTransactionCountByNumber(number rpc.BlockNumber) *hexutil.Uint {
	return txCount(api.blockByNumber(number))
}

// GetBlockTransactionCountByHash is the number of txs in a block, or null.
func (api *API) GetBlockTransactionCountByHash(hash common.Hash) *hexutil.Uint {
	return txCount(api.b.BlockByHash(hash))
}

func txCount(b *types.Block) *hexutil.Uint {
	if b == nil {
		return nil
	}
	n := hexutil.Uint(len(b.Transactions()))
	return &n
}

// GetTransactionByBlockNumberAndIndex returns a tx by position, or null.
func (api *API) GetTransactionByBlockNumberAndIndex(number rpc.BlockNumber, index hexutil.Uint) *RPCTransaction {
	return api.txAt(api.blockByNumber(number), uint64(index))
}

// GetTransactionByBlockHashAndIndex returns a tx by position, or null.
func (api *API) GetTransactionByBlockHashAndIndex(hash common.Hash, index hexutil.Uint) *RPCTransaction {
	return api.txAt(api.b.BlockByHash(hash), uint64(index))
}

func (api *API) txAt(b *types.Block, index uint64) *RPCTransaction {
	if b == nil || index >= uint64(len(b.Transactions())) {
		return nil
	}
	return NewRPCTransaction(b.Transactions()[index], b.Hash(), b.NumberU64(), b.Time(), index, b.BaseFee(), api.b.ChainConfig())
}

// GetHeaderByNumber returns a header, or null when the chain has no such
// block.
func (api *API) GetHeaderByNumber(number rpc.BlockNumber) map[string]any {
	if h := api.headerByNumber(number); h != nil {
		return MarshalHeader(h)
	}
	return nil
}

// GetHeaderByHash returns a header, or null when unknown.
func (api *API) GetHeaderByHash(hash common.Hash) map[string]any {
	if h := api.b.HeaderByHash(hash); h != nil {
		return MarshalHeader(h)
	}
	return nil
}

// GetBlockReceipts returns every receipt of a block, or null when unknown.
func (api *API) GetBlockReceipts(bnh rpc.BlockNumberOrHash) ([]map[string]any, error) {
	h, err := api.headerOf(bnh)
	if err != nil {
		return nil, nil
	}
	block := api.b.BlockByHash(h.Hash())
	if block == nil {
		return nil, nil
	}
	receipts := api.b.Receipts(h)
	txs := block.Transactions()
	if len(receipts) != len(txs) {
		return nil, fmt.Errorf("block %d has %d receipts for %d transactions", h.Number, len(receipts), len(txs))
	}
	signer := types.MakeSigner(api.b.ChainConfig(), h.Number, h.Time)
	out := make([]map[string]any, len(receipts))
	for i, r := range receipts {
		out[i] = marshalReceipt(r, txs[i], signer)
	}
	return out, nil
}

// Blocks under CometBFT have no uncles: the uncle methods answer as geth
// does for a block without any.

// GetUncleCountByBlockNumber is 0 for a known block, null otherwise.
func (api *API) GetUncleCountByBlockNumber(number rpc.BlockNumber) *hexutil.Uint {
	return zeroIf(api.headerByNumber(number) != nil)
}

// GetUncleCountByBlockHash is 0 for a known block, null otherwise.
func (api *API) GetUncleCountByBlockHash(hash common.Hash) *hexutil.Uint {
	return zeroIf(api.b.HeaderByHash(hash) != nil)
}

// GetUncleByBlockNumberAndIndex is always null.
func (api *API) GetUncleByBlockNumberAndIndex(rpc.BlockNumber, hexutil.Uint) map[string]any {
	return nil
}

// GetUncleByBlockHashAndIndex is always null.
func (api *API) GetUncleByBlockHashAndIndex(common.Hash, hexutil.Uint) map[string]any { return nil }

func zeroIf(known bool) *hexutil.Uint {
	if !known {
		return nil
	}
	n := hexutil.Uint(0)
	return &n
}
