package eth

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// GasPrice suggests a legacy gas price: the next block's base fee plus the
// suggested tip (go-ethereum's oracle over recent blocks, never below the
// node's minimum tip).
func (api *API) GasPrice(ctx context.Context) (*hexutil.Big, error) {
	tip, err := api.b.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, err
	}
	return (*hexutil.Big)(tip.Add(tip, api.b.NextBaseFee())), nil
}

// MaxPriorityFeePerGas suggests a priority fee for EIP-1559 transactions:
// the tip eth_gasPrice adds to the base fee.
func (api *API) MaxPriorityFeePerGas(ctx context.Context) (*hexutil.Big, error) {
	tip, err := api.b.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, err
	}
	return (*hexutil.Big)(tip), nil
}

// atLeast raises v to min (the node's minimum tip): fee history rewards are
// advice too, and a tip below the minimum would be refused.
func atLeast(v, min *big.Int) *big.Int {
	if v.Cmp(min) < 0 {
		return new(big.Int).Set(min)
	}
	return v
}
