// Package contracts holds the compiled Solidity contracts Ember's tests and
// benchmarks deploy: OpenZeppelin's ERC-20 and ERC-721, built from src/ by the
// pinned solc-js (see build.mjs). The artifacts are embedded so Go code needs
// neither Node.js nor a compiler.
package contracts

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

//go:embed artifacts/*.json
var artifacts embed.FS

// Contract is one compiled contract.
type Contract struct {
	Name             string
	ABI              abi.ABI
	Bytecode         []byte // creation code, constructor arguments not included
	DeployedBytecode []byte
	// Metadata is solc's metadata JSON, byte for byte (its IPFS hash is in
	// the runtime code's CBOR trailer); Sources holds every file it lists.
	Metadata string
	Sources  map[string]string
}

type artifact struct {
	ContractName     string            `json:"contractName"`
	ABI              json.RawMessage   `json:"abi"`
	Bytecode         hexutil.Bytes     `json:"bytecode"`
	DeployedBytecode hexutil.Bytes     `json:"deployedBytecode"`
	Metadata         string            `json:"metadata"`
	Sources          map[string]string `json:"sources"`
}

// Load returns the contract called name (EmberToken, EmberNFT).
func Load(name string) (*Contract, error) {
	raw, err := artifacts.ReadFile("artifacts/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("contract %s: no artifact", name)
	}
	var a artifact
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("contract %s: %w", name, err)
	}
	parsed, err := abi.JSON(strings.NewReader(string(a.ABI)))
	if err != nil {
		return nil, fmt.Errorf("contract %s: abi: %w", name, err)
	}
	return &Contract{Name: a.ContractName, ABI: parsed, Bytecode: a.Bytecode, DeployedBytecode: a.DeployedBytecode,
		Metadata: a.Metadata, Sources: a.Sources}, nil
}

// MustLoad is Load for the artifacts compiled into the binary, which always parse.
func MustLoad(name string) *Contract {
	c, err := Load(name)
	if err != nil {
		panic(err)
	}
	return c
}

// DeployData is the creation code followed by the ABI-encoded constructor arguments.
func (c *Contract) DeployData(args ...any) ([]byte, error) {
	enc, err := c.ABI.Pack("", args...)
	if err != nil {
		return nil, err
	}
	return append(append([]byte{}, c.Bytecode...), enc...), nil
}
