// Package netapi implements the net_ JSON-RPC namespace.
package netapi

import "math/big"

// Backend is what net_ needs from the node.
type Backend interface {
	// PeerCount is the number of CometBFT peers connected.
	PeerCount() int
	// Listening reports whether the P2P layer accepts inbound connections.
	Listening() bool
}

// API is the net namespace.
type API struct {
	b       Backend
	chainID *big.Int
}

// NewAPI returns the net namespace for the chain with the given EIP-155 id.
func NewAPI(b Backend, chainID *big.Int) *API { return &API{b: b, chainID: chainID} }

// Version is the EIP-155 chain id as a decimal string (net_version).
func (api *API) Version() string { return api.chainID.String() }

// PeerCount is the number of connected CometBFT peers. It is a plain JSON
// number, as Ethermint-based chains return it (geth returns a hex QUANTITY).
func (api *API) PeerCount() int { return api.b.PeerCount() }

// Listening reports whether the node accepts peer connections.
func (api *API) Listening() bool { return api.b.Listening() }
