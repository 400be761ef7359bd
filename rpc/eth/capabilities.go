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

// capability is what the node holds of one resource. Only state is ever
// deleted (full pruning), by the schema's one strategy: a sliding window.
type capability struct {
	Disabled       bool            `json:"disabled"`
	OldestBlock    hexutil.Uint64  `json:"oldestBlock"`
	DeleteStrategy *deleteStrategy `json:"deleteStrategy,omitempty"`
}

// deleteStrategy is a sliding window of the last RetentionBlocks blocks.
type deleteStrategy struct {
	Type            string         `json:"type"` // "window"
	RetentionBlocks hexutil.Uint64 `json:"retentionBlocks"`
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
// (eth_capabilities). Headers, bodies, receipts and the tx and log indexes
// are kept from genesis (block 0 is the oldest of each). State is kept from
// genesis by an archive node; a full node keeps the last keep-recent
// blocks' states, from the oldest height it still holds, and says so with a
// window deleteStrategy (state proofs are read from the same state).
func (api *API) Capabilities() *CapabilitiesResult {
	head := api.b.Head()
	all := capability{OldestBlock: 0}
	oldest, keep := api.b.StateWindow()
	state := capability{OldestBlock: hexutil.Uint64(oldest)}
	if keep > 0 {
		state.DeleteStrategy = &deleteStrategy{Type: "window", RetentionBlocks: hexutil.Uint64(keep)}
	}
	return &CapabilitiesResult{
		Head:  capabilityHead{Hash: head.Hash(), Number: hexutil.Uint64(head.Number.Uint64())},
		State: state, Tx: all, Logs: all, Receipts: all, Blocks: all, StateProofs: state,
	}
}
