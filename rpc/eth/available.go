package eth

import (
	"github.com/ethereum/go-ethereum/rpc"
)

// A node that joined by state sync holds the state from its snapshot's
// block on and the chain data of the 256 blocks before it; a pruned node
// (full mode) holds only the recent states. Older heights answer the
// store's errors (*store.StateUnavailableError, *store.BlockUnavailableError:
// "… is not available on this node: the oldest available is block N"),
// code -32000 as geth answers a missing trie node, rather than null or an
// empty account.

// missingBlock explains why number has no header: older than this node
// holds (an error), or not made yet (nil: the methods answer null).
func (api *API) missingBlock(number rpc.BlockNumber) error {
	switch {
	case number == rpc.EarliestBlockNumber:
		return api.b.BlockAvailable(0)
	case number >= 0:
		return api.b.BlockAvailable(uint64(number))
	}
	return nil
}
