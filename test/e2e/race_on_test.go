//go:build race

package e2e

// raceBuild is set when the tests run with -race: emberd is then built with
// the race detector too, so the node's own concurrency is checked.
const raceBuild = true
