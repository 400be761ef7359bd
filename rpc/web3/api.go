// Package web3 implements the web3_ JSON-RPC namespace.
package web3

import (
	"fmt"
	"runtime"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// DevPrefix starts a development chain's client version. Tools that serve
// dev-only features to Hardhat Network and anvil alone decide by the
// client version's start (hardhat-network-helpers 1.x accepts
// "hardhatnetwork", "zksync" or "anvil", case-insensitive): with it, they
// serve an `emberd dev` chain too, whose anvil_, hardhat_ and evm_
// methods they call. The emberd/… that follows names the node.
const DevPrefix = "anvil-compatible/"

// API is the web3 namespace.
type API struct{ version string }

// NewAPI returns the web3 namespace for the given software version; dev
// (an `emberd dev` chain with json-rpc.dev-client-version on) puts
// DevPrefix before the client version.
func NewAPI(version string, dev bool) *API {
	v := fmt.Sprintf("emberd/%s/%s-%s/%s", version, runtime.GOOS, runtime.GOARCH, runtime.Version())
	if dev {
		v = DevPrefix + v
	}
	return &API{version: v}
}

// ClientVersion is "emberd/<version>/<os>-<arch>/<go version>", in geth's
// layout, after DevPrefix on a development chain.
func (api *API) ClientVersion() string { return api.version }

// Sha3 is the Keccak-256 of the given bytes.
func (api *API) Sha3(input hexutil.Bytes) hexutil.Bytes {
	return crypto.Keccak256(input)
}
