package app

import (
	"math/big"
	"testing"
	"time"

	paramsv1beta1 "cosmossdk.io/api/cosmos/params/v1beta1"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/feemarket"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/paramchange"
)

// floorChange stands in for a passed governance proposal: at the end of
// block height it applies a legacy ParameterChangeProposal that sets
// feemarket's MinBaseFee, as gov's end-block will.
type floorChange struct {
	height int64
	fee    string
}

func (floorChange) Name() string               { return "floor-change" }
func (floorChange) Msgs() []*module.MsgHandler { return nil }
func (f floorChange) EndBlock(st module.State, b *module.Block) ([]abci.ValidatorUpdate, error) {
	if b.Env.Height != f.height {
		return nil, nil
	}
	return nil, paramchange.Apply(st, []*paramsv1beta1.ParamChange{{Subspace: "feemarket", Key: "MinBaseFee", Value: `"` + f.fee + `"`}})
}

// TestMinBaseFeeFromState: the genesis floor (1 gwei) is in the state; a
// floor raised to 5 gwei at the end of block 3 sets block 4's base fee,
// and the next block's base fee CheckTx uses, to 5 gwei; a floor dropped
// to 0 at the end of block 5 lets block 6's base fee fall by EIP-1559's
// 12.5% for an empty parent, to 4.375 gwei.
func TestMinBaseFeeFromState(t *testing.T) {
	s := newStakingApp(t, common.Address{0x0a})
	mods := append([]module.Module{}, native.Modules.Modules()...)
	s.modules = module.NewManager(append(mods, floorChange{height: 3, fee: "5000000000"}, floorChange{height: 5, fee: "0"})...)
	if p, ok := feemarket.GetParams(s.checkState); !ok || p.MinBaseFee.Cmp(big.NewInt(1_000_000_000)) != 0 {
		t.Fatalf("genesis floor in state: %v %v", p.MinBaseFee, ok)
	}
	want := []int64{1_000_000_000, 1_000_000_000, 1_000_000_000, 5_000_000_000, 5_000_000_000, 4_375_000_000}
	for i, fee := range want {
		s.block(time.Second)
		head := s.store.Head()
		if head.Number.Int64() != int64(i+1) || head.BaseFee.Cmp(big.NewInt(fee)) != 0 {
			t.Fatalf("block %v base fee %v, want block %d at %d", head.Number, head.BaseFee, i+1, fee)
		}
		if i+1 == 3 && s.nextBaseFee().Cmp(big.NewInt(5_000_000_000)) != 0 { // what CheckTx asks of a tx for block 4
			t.Fatalf("next base fee after block 3: %v, want 5 gwei", s.nextBaseFee())
		}
	}
	if got := s.nextBaseFee(); got.Cmp(big.NewInt(3_828_125_000)) != 0 { // 4.375 gwei × 7/8
		t.Fatalf("next base fee %v, want 3828125000", got)
	}
}
