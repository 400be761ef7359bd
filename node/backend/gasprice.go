package backend

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/gasprice"
	"github.com/ethereum/go-ethereum/event"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// gasPriceOracle is go-ethereum's full-node oracle settings (eth/ethconfig
// FullNodeGPO): the 60th percentile of the three cheapest effective tips of
// each of the last 20 blocks, an empty block counting as the previous
// suggestion, tips under 2 wei ignored, 500 gwei at most.
var gasPriceOracle = gasprice.Config{
	Blocks:           20,
	Percentile:       60,
	MaxHeaderHistory: 1024,
	MaxBlockHistory:  1024,
	MaxPrice:         gasprice.DefaultMaxPrice,
	IgnorePrice:      gasprice.DefaultIgnorePrice,
}

// startTip is the suggestion before any block carries a transaction.
var startTip = big.NewInt(params.GWei)

// SuggestGasTipCap is the tip geth's gas price oracle suggests from recent
// blocks (what got included), never below the node's minimum tip, so that
// what eth_gasPrice and eth_maxPriorityFeePerGas advise is admitted.
func (b *Backend) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	b.tipsOnce.Do(func() { b.tips = gasprice.NewOracle(oracleBackend{b}, gasPriceOracle, startTip) })
	tip, err := b.tips.SuggestTipCap(ctx)
	if err != nil {
		return nil, err
	}
	if min := b.MinGasTip(); tip.Cmp(min) < 0 {
		tip = min
	}
	return tip, nil
}

// oracleBackend is the chain as go-ethereum's oracle reads it. Blocks are
// final (no reorgs), so it needs no head events; there is no pending block.
type oracleBackend struct{ b *Backend }

var errNoBlock = errors.New("block not found")

func (o oracleBackend) HeaderByNumber(_ context.Context, n rpc.BlockNumber) (*types.Header, error) {
	if h := o.header(n); h != nil {
		return h, nil
	}
	return nil, errNoBlock
}

func (o oracleBackend) header(n rpc.BlockNumber) *types.Header {
	if n < 0 {
		return o.b.Head()
	}
	return o.b.HeaderByNumber(uint64(n))
}

func (o oracleBackend) BlockByNumber(_ context.Context, n rpc.BlockNumber) (*types.Block, error) {
	h := o.header(n)
	if h == nil {
		return nil, errNoBlock
	}
	if block := o.b.BlockByHash(h.Hash()); block != nil {
		return block, nil
	}
	return nil, errNoBlock
}

func (o oracleBackend) GetReceipts(_ context.Context, hash common.Hash) (types.Receipts, error) {
	h := o.b.HeaderByHash(hash)
	if h == nil {
		return nil, errNoBlock
	}
	return o.b.Receipts(h), nil
}

func (o oracleBackend) Pending() (*types.Block, types.Receipts, *state.StateDB) { return nil, nil, nil }
func (o oracleBackend) ChainConfig() *params.ChainConfig                        { return o.b.ChainConfig() }
func (o oracleBackend) SubscribeChainHeadEvent(chan<- core.ChainHeadEvent) event.Subscription {
	return nil
}
