package app

import (
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/module"
)

// evmBurnt is what a block's EVM transactions burnt: the base fee of the
// gas each used, and the blob fee of its blob gas.
func evmBurnt(baseFee *big.Int, receipts types.Receipts) *big.Int {
	total := new(big.Int)
	for _, r := range receipts {
		total.Add(total, new(big.Int).Mul(baseFee, new(big.Int).SetUint64(r.GasUsed)))
		if r.BlobGasUsed > 0 && r.BlobGasPrice != nil {
			total.Add(total, new(big.Int).Mul(r.BlobGasPrice, new(big.Int).SetUint64(r.BlobGasUsed)))
		}
	}
	return total
}

// recordBurn takes what the block burnt from the recorded supply, at the
// end of the block (a replay, which stops before the end, never needs it).
// A chain whose genesis state predates the supply record has none (0) and
// keeps none, rather than halting.
func recordBurn(st module.State, burnt *big.Int) error {
	if burnt.Sign() == 0 || bank.Supply(st).Sign() == 0 {
		return nil
	}
	return bank.RecordBurn(st, burnt)
}

// genesisSupply records the supply of the genesis state: every balance,
// after every module wrote its accounts (staking's pools included).
func genesisSupply(alloc types.GenesisAlloc) {
	total := new(big.Int)
	for _, acc := range alloc {
		if acc.Balance != nil {
			total.Add(total, acc.Balance)
		}
	}
	bank.InitSupply(module.NewAllocState(alloc), total)
}
