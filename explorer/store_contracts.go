package explorer

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
)

// VerifiedContract is a contract whose sources were checked against its
// deployed code (see explorer/verify), as the explorer stores it.
type VerifiedContract struct {
	ID              int64 // keyset position in the list, newest verification highest
	Address         common.Address
	Name            string
	Language        string // solidity, vyper or yul
	CompilerVersion string // v0.8.28+commit.7893614a
	EVMVersion      string // "default" when the metadata names none
	Optimization    bool
	OptimizerRuns   *int64
	LicenseType     string // Blockscout's enum: mit, apache_2_0, none, …
	ABI             string // JSON array
	FilePath        string // the file of the compilation target
	SourceCode      string
	Sources         []SourceFile // every other file of the compilation
	Settings        string       // the metadata's settings as JSON
	Metadata        string       // the metadata JSON, byte for byte
	ConstructorArgs []byte       // creation input after the creation code; nil when unknown
	CreationCode    []byte       // creation input up to the arguments; nil when unknown
	DeployedCode    []byte       // runtime code at verification
	CodeHash        common.Hash  // keccak256 of DeployedCode: finds verified twins
	FullMatch       bool         // metadata hash in the trailer matched (else only the code did)
	VerifiedAt      int64        // unix seconds
}

// SourceFile is one source of a verified contract.
type SourceFile struct {
	Path    string
	Content string
}

// ContractABI is the name and ABI of a verified contract, for decoding.
type ContractABI struct {
	Name string
	ABI  string
}

// ContractCounts are /smart-contracts/counters' figures.
type ContractCounts struct {
	Contracts, NewContracts, Verified, NewVerified uint64
}

// ContractStore keeps verified contracts. They are written by the API (on a
// successful verification), not by the indexer.
type ContractStore interface {
	// SaveVerifiedContract records (or replaces) a verification.
	SaveVerifiedContract(ctx context.Context, c *VerifiedContract) error
	// VerifiedContract is the verification of addr, ErrNotFound if none.
	VerifiedContract(ctx context.Context, addr common.Address) (*VerifiedContract, error)
	// VerifiedTwin is a verified contract whose runtime code hashes to
	// codeHash, ErrNotFound if none.
	VerifiedTwin(ctx context.Context, codeHash common.Hash) (*VerifiedContract, error)
	// VerifiedContracts lists verifications newest first, with ID below
	// beforeID (all when 0), whose name contains q (case-insensitive, any
	// when "") and whose language is language (any when "").
	VerifiedContracts(ctx context.Context, q, language string, beforeID int64, limit int) ([]VerifiedContract, error)
	// ContractABIs returns the names and ABIs of those of addrs that are
	// verified.
	ContractABIs(ctx context.Context, addrs []common.Address) (map[common.Address]ContractABI, error)
	// ContractCounts counts contracts and verifications, "new" ones from
	// sinceUnix on.
	ContractCounts(ctx context.Context, sinceUnix int64) (*ContractCounts, error)
}

// ChainReader reads contract code and storage and runs read-only calls on
// the newest committed state: what verification, proxy resolution and
// token facts need beyond the indexed data. NodeSource implements it
// in-process, rpcsource over eth_getCode/eth_getStorageAt/eth_call.
type ChainReader interface {
	CodeAt(ctx context.Context, addr common.Address) ([]byte, error)
	StorageAt(ctx context.Context, addr common.Address, slot common.Hash) (common.Hash, error)
	// CallContract runs data against to; a revert is an error.
	CallContract(ctx context.Context, to common.Address, data []byte) ([]byte, error)
}

// StorageReader reads storage slots of one state.
type StorageReader interface {
	StorageAt(ctx context.Context, addr common.Address, slot common.Hash) (common.Hash, error)
}

// HeadStater is a ChainReader that can pin its reads to one block: a page
// built from many slots (the staking, distribution and slashing records)
// then reads them all at the height it reports, even while blocks land.
type HeadStater interface {
	HeadState(ctx context.Context) (StorageReader, uint64, error)
}
