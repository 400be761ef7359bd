package main

import (
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
)

// devOperator is the operator of a dev chain's validator: the first
// prefunded account (dev0), so `emberd tx staking edit-validator --from dev0`
// works on a dev chain.
func devOperator(keys []*accounts.Key) *common.Address {
	if len(keys) == 0 {
		return nil
	}
	return &keys[0].Address
}
