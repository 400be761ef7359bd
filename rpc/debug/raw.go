package debug

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/store"
)

// RawBackend is what the raw getters read.
type RawBackend interface {
	Head() *types.Header
	HeaderByNumber(number uint64) *types.Header
	HeaderByHash(hash common.Hash) *types.Header
	BlockByHash(hash common.Hash) *types.Block
	Receipts(header *types.Header) types.Receipts
	Transaction(hash common.Hash) (*types.Transaction, store.TxLocation)
	PendingTransaction(hash common.Hash) *types.Transaction
}

// header resolves a block number, tag or hash; unknown blocks are an error
// naming what was asked for.
func (api *API) header(bnh rpc.BlockNumberOrHash) (*types.Header, error) {
	if hash, ok := bnh.Hash(); ok {
		if h := api.raw.HeaderByHash(hash); h != nil {
			return h, nil
		}
		return nil, fmt.Errorf("block %s not found", hash.Hex())
	}
	number, _ := bnh.Number()
	var h *types.Header
	switch number {
	case rpc.LatestBlockNumber, rpc.PendingBlockNumber, rpc.SafeBlockNumber, rpc.FinalizedBlockNumber:
		h = api.raw.Head()
	case rpc.EarliestBlockNumber:
		h = api.raw.HeaderByNumber(0)
	default:
		if number >= 0 {
			h = api.raw.HeaderByNumber(uint64(number))
		}
	}
	if h == nil {
		return nil, fmt.Errorf("block #%d not found", number.Int64())
	}
	return h, nil
}

// GetRawHeader is the RLP of a block's header (debug_getRawHeader).
func (api *API) GetRawHeader(bnh rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	h, err := api.header(bnh)
	if err != nil {
		return nil, err
	}
	return rlp.EncodeToBytes(h)
}

// GetRawBlock is the RLP of a whole block (debug_getRawBlock).
func (api *API) GetRawBlock(bnh rpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	h, err := api.header(bnh)
	if err != nil {
		return nil, err
	}
	b := api.raw.BlockByHash(h.Hash())
	if b == nil {
		return nil, fmt.Errorf("block %s not found", h.Hash().Hex())
	}
	return rlp.EncodeToBytes(b)
}

// GetRawReceipts is each receipt of a block in its consensus (EIP-2718)
// encoding (debug_getRawReceipts).
func (api *API) GetRawReceipts(bnh rpc.BlockNumberOrHash) ([]hexutil.Bytes, error) {
	h, err := api.header(bnh)
	if err != nil {
		return nil, err
	}
	receipts := api.raw.Receipts(h)
	out := make([]hexutil.Bytes, len(receipts))
	for i, r := range receipts {
		if out[i], err = r.MarshalBinary(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// GetRawTransaction is the EIP-2718 encoding of a mined or pooled
// transaction, or null when unknown (geth answers "0x", which reads as an
// empty transaction) (debug_getRawTransaction).
func (api *API) GetRawTransaction(hash common.Hash) (*hexutil.Bytes, error) {
	tx, _ := api.raw.Transaction(hash)
	if tx == nil {
		tx = api.raw.PendingTransaction(hash)
	}
	if tx == nil {
		return nil, nil
	}
	enc, err := tx.MarshalBinary()
	return (*hexutil.Bytes)(&enc), err
}
