package distribution

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Staking is what distribution reads of staking (the SDK's "expected
// keeper"): each field has the signature of the staking package's function
// of the same name, so the app wires staking.OperatorByCons and so on.
type Staking struct {
	// OperatorByCons is the operator of the validator with CometBFT
	// address cons.
	OperatorByCons func(st module.Reader, cons common.Address) (op common.Address, ok bool)
	// ValidatorTokens are a validator's tokens and total delegator shares.
	ValidatorTokens func(st module.Reader, op common.Address) (tokens *big.Int, shares dec.Dec, ok bool)
	// CommissionRate is a validator's current commission rate.
	CommissionRate func(st module.Reader, op common.Address) dec.Dec
	// DelegationShares are del's shares of op, if it has a delegation.
	DelegationShares func(st module.Reader, del, op common.Address) (dec.Dec, bool)
	// DelegatorValidators are the validators del delegates to, in a
	// deterministic order.
	DelegatorValidators func(st module.Reader, del common.Address) []common.Address
}

// tokensFromShares is shares × tokens / totalShares, rounded (the SDK's
// Validator.TokensFromShares), 0 when there are no shares.
func tokensFromShares(tokens *big.Int, totalShares, shares dec.Dec) dec.Dec {
	if totalShares.IsZero() {
		return dec.Zero()
	}
	return shares.MulInt(tokens).Quo(totalShares)
}

// tokensFromSharesTruncated is the SDK's TokensFromSharesTruncated.
func tokensFromSharesTruncated(tokens *big.Int, totalShares, shares dec.Dec) dec.Dec {
	if totalShares.IsZero() {
		return dec.Zero()
	}
	return shares.MulInt(tokens).QuoTruncate(totalShares)
}
