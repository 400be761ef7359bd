package eth

import (
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/evm"
)

// Fee history bounds, as geth's defaults.
const (
	maxFeeHistory     = 1024 // blocks
	maxRewardPercents = 100  // percentiles
)

var errInvalidPercentile = errors.New("invalid reward percentile")

// FeeHistoryResult is the eth_feeHistory answer, in geth's shape.
type FeeHistoryResult struct {
	OldestBlock      *hexutil.Big     `json:"oldestBlock"`
	Reward           [][]*hexutil.Big `json:"reward,omitempty"`
	BaseFee          []*hexutil.Big   `json:"baseFeePerGas,omitempty"`
	GasUsedRatio     []float64        `json:"gasUsedRatio"`
	BlobBaseFee      []*hexutil.Big   `json:"baseFeePerBlobGas,omitempty"`
	BlobGasUsedRatio []float64        `json:"blobGasUsedRatio,omitempty"`
}

// FeeHistory returns, for blockCount blocks up to lastBlock, their base fees
// (plus the next block's), gas used ratios and, per block, the effective
// tips at the given percentiles of gas used, as geth computes them. The next
// base fee honours the chain's base-fee floor.
func (api *API) FeeHistory(blockCount math.HexOrDecimal64, lastBlock rpc.BlockNumber, rewardPercentiles []float64) (*FeeHistoryResult, error) {
	if len(rewardPercentiles) > maxRewardPercents {
		return nil, fmt.Errorf("%w: over the query limit %d", errInvalidPercentile, maxRewardPercents)
	}
	for i, p := range rewardPercentiles {
		if p < 0 || p > 100 {
			return nil, fmt.Errorf("%w: %f", errInvalidPercentile, p)
		}
		if i > 0 && p <= rewardPercentiles[i-1] {
			return nil, fmt.Errorf("%w: #%d:%f >= #%d:%f", errInvalidPercentile, i-1, rewardPercentiles[i-1], i, p)
		}
	}
	if blockCount < 1 {
		return &FeeHistoryResult{OldestBlock: (*hexutil.Big)(new(big.Int)), GasUsedRatio: []float64{}}, nil
	}
	last := api.headerByNumber(lastBlock)
	if last == nil {
		head := api.b.Head().Number
		return nil, fmt.Errorf("request beyond head block: requested %d, head %d", lastBlock, head)
	}
	count := min(uint64(blockCount), maxFeeHistory, last.Number.Uint64()+1)
	oldest := last.Number.Uint64() + 1 - count

	res := &FeeHistoryResult{OldestBlock: (*hexutil.Big)(new(big.Int).SetUint64(oldest))}
	cfg := api.b.ChainConfig()
	var h *types.Header
	for n := oldest; n <= last.Number.Uint64(); n++ {
		if h = api.b.HeaderByNumber(n); h == nil {
			return nil, fmt.Errorf("header %d not found", n)
		}
		res.BaseFee = append(res.BaseFee, (*hexutil.Big)(h.BaseFee))
		res.GasUsedRatio = append(res.GasUsedRatio, float64(h.GasUsed)/float64(h.GasLimit))
		res.BlobBaseFee = append(res.BlobBaseFee, (*hexutil.Big)(eip4844.CalcBlobFee(cfg, h)))
		blobRatio := 0.0
		if max := eip4844.MaxBlobGasPerBlock(cfg, h.Time); max != 0 && h.BlobGasUsed != nil {
			blobRatio = float64(*h.BlobGasUsed) / float64(max)
		}
		res.BlobGasUsedRatio = append(res.BlobGasUsedRatio, blobRatio)
		if len(rewardPercentiles) > 0 {
			rewards, err := api.blockRewards(h, rewardPercentiles)
			if err != nil {
				return nil, err
			}
			res.Reward = append(res.Reward, rewards)
		}
	}
	// The block after the newest: its base fee and blob base fee follow
	// from the newest block; after the head, the next block's base fee is
	// NextBaseFee (on a dev chain, anvil_setNextBlockBaseFeePerGas's, which
	// Hardhat's signers read here to fill a fee cap).
	next := api.b.BaseFeeAfter(h)
	if h.Hash() == api.b.Head().Hash() {
		next = api.b.NextBaseFee()
	}
	res.BaseFee = append(res.BaseFee, (*hexutil.Big)(next))
	excess := eip4844.CalcExcessBlobGas(cfg, h, h.Time)
	res.BlobBaseFee = append(res.BlobBaseFee, (*hexutil.Big)(eip4844.CalcBlobFee(cfg, &types.Header{Number: h.Number, Time: h.Time, ExcessBlobGas: &excess})))
	return res, nil
}

// blockRewards are the effective tips at the given percentiles of a block's
// gas used, txs sorted by tip (geth's rule); zeros for an empty block. As
// advice, none is below the node's minimum tip.
func (api *API) blockRewards(h *types.Header, percentiles []float64) ([]*hexutil.Big, error) {
	out := make([]*hexutil.Big, len(percentiles))
	minTip := api.b.MinGasTip()
	block := api.b.BlockByHash(h.Hash())
	if block == nil {
		return nil, fmt.Errorf("block %d not found", h.Number)
	}
	txs := block.Transactions()
	if len(txs) == 0 {
		for i := range out {
			out[i] = (*hexutil.Big)(new(big.Int).Set(minTip))
		}
		return out, nil
	}
	receipts := api.b.Receipts(h)
	if len(receipts) != len(txs) {
		return nil, fmt.Errorf("receipts of block %d missing", h.Number)
	}
	type gasAndTip struct {
		gas uint64
		tip *big.Int
	}
	sorted := make([]gasAndTip, len(txs))
	for i, tx := range txs {
		sorted[i] = gasAndTip{gas: receipts[i].GasUsed, tip: evm.EffectiveTip(tx, h.BaseFee)}
	}
	slices.SortStableFunc(sorted, func(a, b gasAndTip) int { return a.tip.Cmp(b.tip) })
	idx, sum := 0, sorted[0].gas
	for i, p := range percentiles {
		threshold := uint64(float64(h.GasUsed) * p / 100)
		for sum < threshold && idx < len(sorted)-1 {
			idx++
			sum += sorted[idx].gas
		}
		out[i] = (*hexutil.Big)(atLeast(sorted[idx].tip, minTip))
	}
	return out, nil
}
