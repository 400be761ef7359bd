package e2e

import (
	"math/big"
	"sort"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

type feeHistory struct {
	OldestBlock      *hexutil.Big     `json:"oldestBlock"`
	Reward           [][]*hexutil.Big `json:"reward"`
	BaseFee          []*hexutil.Big   `json:"baseFeePerGas"`
	GasUsedRatio     []float64        `json:"gasUsedRatio"`
	BlobBaseFee      []*hexutil.Big   `json:"baseFeePerBlobGas"`
	BlobGasUsedRatio []float64        `json:"blobGasUsedRatio"`
}

func TestFeeHistory(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	to := common.HexToAddress("0x00000000000000000000000000000000000000fe")
	var txs []*types.Transaction
	for i, tip := range []int64{3, 1, 2} {
		txs = append(txs, n.signTx(t, devKeys[5+i].Private, txOpts{To: &to, Value: big.NewInt(1), Tip: gwei(tip)}))
	}
	n.sendBatch(t, txs)
	var last *types.Receipt
	for _, tx := range txs {
		last = n.WaitReceipt(t, tx.Hash())
	}
	head := last.BlockNumber.Uint64()
	percentiles := []float64{0, 25, 50, 75, 100}

	var fh feeHistory
	mustCall(t, n, &fh, "eth_feeHistory", "0x3", hexutil.EncodeUint64(head), percentiles)
	if fh.OldestBlock.ToInt().Uint64() != head-2 || len(fh.BaseFee) != 4 || len(fh.GasUsedRatio) != 3 || len(fh.Reward) != 3 ||
		len(fh.BlobBaseFee) != 4 || len(fh.BlobGasUsedRatio) != 3 {
		t.Fatalf("shape: %+v", fh)
	}
	for i := 0; i < 3; i++ {
		num := head - 2 + uint64(i)
		h := mustHeader(t, n, new(big.Int).SetUint64(num))
		if fh.BaseFee[i].ToInt().Cmp(h.BaseFee) != 0 || fh.GasUsedRatio[i] != float64(h.GasUsed)/float64(h.GasLimit) ||
			fh.BlobBaseFee[i].ToInt().Int64() != 1 || fh.BlobGasUsedRatio[i] != 0 {
			t.Fatalf("block %d: %v %v %v %v; header base fee %v gas %d/%d", num, fh.BaseFee[i], fh.GasUsedRatio[i], fh.BlobBaseFee[i], fh.BlobGasUsedRatio[i], h.BaseFee, h.GasUsed, h.GasLimit)
		}
		want := expectedRewards(t, n, num, h, percentiles)
		for j := range percentiles {
			if fh.Reward[i][j].ToInt().Cmp(want[j]) != 0 {
				t.Fatalf("block %d reward at %v%% = %v, want %v", num, percentiles[j], fh.Reward[i][j], want[j])
			}
		}
	}
	// The last base fee is the next block's, as eth_gasPrice prices it.
	price, _ := n.Eth.SuggestGasPrice(ctx(t))
	if next := fh.BaseFee[3].ToInt(); new(big.Int).Add(next, gwei(1)).Cmp(price) != 0 {
		t.Fatalf("next base fee %v, gas price %v", next, price)
	}
	// More blocks than exist: from block 0; no percentiles, no rewards.
	fh = feeHistory{}
	mustCall(t, n, &fh, "eth_feeHistory", "0x400", "latest", []float64{})
	if fh.OldestBlock.ToInt().Sign() != 0 || fh.Reward != nil {
		t.Fatalf("long history: oldest %v, rewards %v", fh.OldestBlock, fh.Reward)
	}
	// Bad percentiles.
	for _, bad := range [][]float64{{50, 10}, {101}} {
		if err := n.RPC.Call(&fh, "eth_feeHistory", "0x1", "latest", bad); err == nil {
			t.Fatalf("percentiles %v accepted", bad)
		}
	}
}

// expectedRewards walks the block's txs by tip, weighted by gas used.
func expectedRewards(t *testing.T, n *Node, num uint64, h *types.Header, percentiles []float64) []*big.Int {
	block, err := n.Eth.BlockByNumber(ctx(t), new(big.Int).SetUint64(num))
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		gas uint64
		tip *big.Int
	}
	var entries []entry
	for _, tx := range block.Transactions() {
		r := n.WaitReceipt(t, tx.Hash())
		tip := new(big.Int).Sub(r.EffectiveGasPrice, h.BaseFee)
		entries = append(entries, entry{r.GasUsed, tip})
	}
	out := make([]*big.Int, len(percentiles))
	if len(entries) == 0 {
		for i := range out {
			out[i] = new(big.Int)
		}
		return out
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].tip.Cmp(entries[j].tip) < 0 })
	for i, p := range percentiles {
		threshold := uint64(float64(h.GasUsed) * p / 100)
		var cum uint64
		for k, e := range entries {
			cum += e.gas
			if cum >= threshold || k == len(entries)-1 {
				out[i] = e.tip
				break
			}
		}
	}
	return out
}
