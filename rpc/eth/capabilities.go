package eth

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// capabilityHead is eth_capabilities' head block.
type capabilityHead struct {
	Hash   common.Hash    `json:"hash"`
	Number hexutil.Uint64 `json:"number"`
}

// capability is what the node holds of one resource. Ember deletes
// nothing, so there is no deleteStrategy (the schema's only one is a
// sliding window).
type capability struct {
	Disabled    bool           `json:"disabled"`
	OldestBlock hexutil.Uint64 `json:"oldestBlock"`
}

// CapabilitiesResult is eth_capabilities' answer.
type CapabilitiesResult struct {
	Head        capabilityHead `json:"head"`
	State       capability     `json:"state"`
	Tx          capability     `json:"tx"`
	Logs        capability     `json:"logs"`
	Receipts    capability     `json:"receipts"`
	Blocks      capability     `json:"blocks"`
	StateProofs capability     `json:"stateproofs"`
}

// Capabilities tells RPC routers what history this node serves
// (eth_capabilities): everything from genesis. The store keeps every
// block's state (an archive trie), headers, bodies, receipts, the tx and
// log indexes, and prunes none of them; a node starts from genesis, so
// block 0 is the oldest of each.
func (api *API) Capabilities() *CapabilitiesResult {
	head := api.b.Head()
	all := capability{OldestBlock: 0}
	return &CapabilitiesResult{
		Head:  capabilityHead{Hash: head.Hash(), Number: hexutil.Uint64(head.Number.Uint64())},
		State: all, Tx: all, Logs: all, Receipts: all, Blocks: all, StateProofs: all,
	}
}
