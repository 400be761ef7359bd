package eth

import (
	"errors"

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

// Coinbase is the address this node's validator is paid its fees at.
func (api *API) Coinbase() common.Address { return api.b.Coinbase() }

// ProtocolVersion is the eth wire protocol version whose data formats this
// node serves: eth/68 (0x44). Ember does not speak devp2p; CometBFT carries
// its blocks, so this is informational only.
func (api *API) ProtocolVersion() hexutil.Uint { return 68 }

// errNoBlobs answers eth_blobBaseFee.
var errNoBlobs = errors.New("blob transactions are not supported on this chain: there is no blob fee market (the BLOBBASEFEE opcode reads the minimum, 1 wei)")

// BlobBaseFee is an error, not 0: blob (type 3) transactions are refused at
// CheckTx, so a wallet that reads a fee here would build a transaction that
// can never be included. An error makes tools fall back to their no-blob
// path, which is what they take on chains without EIP-4844 too.
func (api *API) BlobBaseFee() (*hexutil.Big, error) { return nil, errNoBlobs }
