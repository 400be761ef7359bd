package eth

import (
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
