package app

import (
	"math/big"

	"github.com/emberchain/ember/native"
)

// nativeItem is how the pool sees a native tx (txpool.Item): nonce =
// sequence, gas = gas limit, fee cap = tip cap = fee / gas limit, cost =
// all it may spend (fee and message amounts).
type nativeItem struct{ tx *native.Tx }

func (n nativeItem) Nonce() uint64       { return n.tx.Sequence }
func (n nativeItem) Gas() uint64         { return n.tx.GasLimit }
func (n nativeItem) GasFeeCap() *big.Int { return n.price() }
func (n nativeItem) GasTipCap() *big.Int { return n.price() }
func (n nativeItem) Cost() *big.Int      { return n.tx.Spend() }

func (n nativeItem) price() *big.Int {
	return new(big.Int).Quo(n.tx.Fee, new(big.Int).SetUint64(n.tx.GasLimit))
}
