// Package backend serves the node's chain to its APIs, as go-ethereum's
// eth/api_backend.go and eth/state_accessor.go do: the JSON-RPC namespaces'
// backend (reads, sends through CheckTx, gas price oracle, sync status,
// miner settings), the tracers' backend and the explorer's tracer (state
// rebuilt by replaying a block), the Cosmos services' backend, the anvil
// namespaces' backend of a development chain, and the keyring adapter.
// It reads the node's parts through Chain and Options; it never imports
// package node.
package backend
