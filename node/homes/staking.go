package homes

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/staking"
)

// singleValidatorTokens is the self-bond of the validator of `emberd init`
// and `emberd dev`: 10·10^18, voting power 10.
var singleValidatorTokens = new(big.Int).Mul(big.NewInt(10), big.NewInt(1_000_000_000_000_000_000))

// singleStaking is the genesis staking section of a one-validator home:
// the validator with consensus key pub, operated by opts.Operator (else the
// reward address), self-bonding 10·10^18.
func singleStaking(opts InitOptions, pub []byte, reward common.Address) *staking.GenesisState {
	op := reward
	if opts.Operator != nil {
		op = *opts.Operator
	}
	unbonding := opts.UnbondingTime
	if unbonding <= 0 {
		unbonding = staking.DefaultUnbondingTime
	}
	return &staking.GenesisState{
		UnbondingTime: unbonding.String(),
		Validators: []staking.GenesisValidator{{
			Moniker:         opts.Moniker,
			Operator:        op,
			ConsensusPubKey: pub,
			Tokens:          (*staking.Amount)(new(big.Int).Set(singleValidatorTokens)),
		}},
	}
}
