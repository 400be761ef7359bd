//go:build race

package e2e

import "time"

// raceBuild is set when the tests run with -race: emberd is then built with
// the race detector too, so the node's own concurrency is checked.
const raceBuild = true

// callTimeout bounds one JSON-RPC request, in the node (http-timeout) and
// in the tests' private client: under the race detector scrypt at the file
// keyring's standard cost alone takes tens of seconds.
const callTimeout = 5 * time.Minute
