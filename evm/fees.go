package evm

import (
	"math/big"

	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// NextBaseFee is the EIP-1559 base fee of the block after parent, never below
// minBaseFee. The floor keeps a quiet chain (empty blocks decay the base fee
// by 12.5% each) from drifting to a zero price.
func NextBaseFee(cfg *params.ChainConfig, parent *types.Header, minBaseFee *big.Int) *big.Int {
	fee := eip1559.CalcBaseFee(cfg, parent)
	if minBaseFee != nil && fee.Cmp(minBaseFee) < 0 {
		return new(big.Int).Set(minBaseFee)
	}
	return fee
}

// EffectiveTip is what the block's coinbase earns per gas from tx at baseFee:
// min(tipCap, feeCap - baseFee). It is negative when the fee cap is below the
// base fee, i.e. when the tx cannot be included.
func EffectiveTip(tx FeeCaps, baseFee *big.Int) *big.Int {
	tip := new(big.Int).Sub(tx.GasFeeCap(), baseFee)
	if tip.Cmp(tx.GasTipCap()) > 0 {
		tip.Set(tx.GasTipCap())
	}
	return tip
}

// FeeCaps are a transaction's fee fields; *types.Transaction has them.
type FeeCaps interface {
	GasFeeCap() *big.Int
	GasTipCap() *big.Int
}

// EffectiveGasPrice is the price per gas tx pays at baseFee:
// min(tipCap + baseFee, feeCap).
func EffectiveGasPrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return tx.GasPrice()
	}
	price := new(big.Int).Add(tx.GasTipCap(), baseFee)
	if tx.GasFeeCapIntCmp(price) < 0 {
		return tx.GasFeeCap()
	}
	return price
}
