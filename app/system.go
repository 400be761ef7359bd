package app

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/staking"
)

// SystemAccounts are the accounts the app itself keeps in the state (the
// native account registry, the staking state and pools), beside those the
// genesis allocation names. InitChain may fund them (the bonded pool holds
// the genesis self-bonds), so a reader of a genesis file who wants every
// funded account of block 0 looks at these too.
func SystemAccounts() []common.Address {
	return []common.Address{accounts.RegistryAddress, staking.StateAddress, staking.BondedPool, staking.UnbondingPool}
}
