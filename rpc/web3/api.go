// Package web3 implements the web3_ JSON-RPC namespace.
package web3

import (
	"fmt"
	"runtime"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// API is the web3 namespace.
type API struct{ version string }

// NewAPI returns the web3 namespace for the given software version.
func NewAPI(version string) *API { return &API{version: version} }

// ClientVersion is "emberd/<version>/<os>-<arch>/<go version>", in geth's
// layout.
func (api *API) ClientVersion() string {
	return fmt.Sprintf("emberd/%s/%s-%s/%s", api.version, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// Sha3 is the Keccak-256 of the given bytes.
func (api *API) Sha3(input hexutil.Bytes) hexutil.Bytes {
	return crypto.Keccak256(input)
}
