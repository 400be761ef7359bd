package eth

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Syncing is false, or while CometBFT block-syncs {startingBlock,
// currentBlock, highestBlock}.
func (api *API) Syncing() any {
	syncing, start, current, highest := api.b.SyncStatus()
	if !syncing {
		return false
	}
	return map[string]hexutil.Uint64{
		"startingBlock": hexutil.Uint64(start),
		"currentBlock":  hexutil.Uint64(current),
		"highestBlock":  hexutil.Uint64(highest),
	}
}

// Accounts lists the node's own accounts: none until a keyring is attached.
func (api *API) Accounts() []common.Address { return []common.Address{} }

// Coinbase is the address this node's validator is paid its fees at.
func (api *API) Coinbase() common.Address { return api.b.Coinbase() }
