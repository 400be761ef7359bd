package explorer

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Token standards, spelled as Blockscout spells them.
const (
	ERC20   = "ERC-20"
	ERC721  = "ERC-721"
	ERC1155 = "ERC-1155"
)

// TokenTypes are the standards the explorer indexes.
var TokenTypes = []string{ERC20, ERC721, ERC1155}

// TokenTransfer is one movement of a token a log recorded. A TransferBatch
// log moves several ids at once: it becomes one transfer per id, all with
// the log's index, told apart by BatchIndex.
type TokenTransfer struct {
	BlockNumber uint64
	BlockHash   common.Hash
	LogIndex    uint
	BatchIndex  int // position in a TransferBatch; 0 for every other log
	Batch       bool
	TxHash      common.Hash
	TxIndex     uint
	Time        uint64
	Token       common.Address
	Type        string // ERC20, ERC721 or ERC1155: the shape of the log
	From, To    common.Address
	TokenID     *big.Int // nil for ERC-20
	Amount      *big.Int // ERC-20 and ERC-1155 amount; 1 for ERC-721
}

// Token is an indexed token contract.
type Token struct {
	Address        common.Address
	Type           string
	Name, Symbol   *string
	Decimals       *big.Int // nil when the contract has no decimals()
	TotalSupply    *big.Int // nil when the contract has no totalSupply()
	HoldersCount   uint64
	TransfersCount uint64
}

// TokenMeta is what a block learnt about a token by calling it at the
// block's height: its name, symbol, decimals and type the first time the
// indexer meets it (Info), its total supply whenever a mint or burn moved
// it (Supply).
type TokenMeta struct {
	Address      common.Address
	Type         string
	Info         bool // Name, Symbol, Decimals and Type were read
	Name, Symbol *string
	Decimals     *big.Int
	Supply       bool // TotalSupply was read (nil: the call failed)
	TotalSupply  *big.Int
}

// TokenBalance is a holder's balance of a token (of one id for ERC-1155;
// the number of tokens held for ERC-721).
type TokenBalance struct {
	Holder  common.Address
	Token   common.Address
	Type    string
	TokenID *big.Int // nil unless ERC-1155
	Value   *big.Int
}

// TokenInstance is one NFT: an ERC-721 token with its owner, or an
// ERC-1155 id. Metadata is the JSON the token URI served, nil until fetched
// or when the fetch failed (MetadataError says why).
type TokenInstance struct {
	Token         common.Address
	Type          string
	TokenID       *big.Int
	Owner         *common.Address // ERC-721 only; the zero address once burnt
	TokenURI      *string
	Metadata      []byte
	MetadataError *string
	Fetched       bool
}

// TransferCursor is a keyset position in a list of token transfers ordered
// by (block, log index, batch index), descending unless the list says
// otherwise.
type TransferCursor struct {
	Set         bool
	BlockNumber uint64
	LogIndex    uint
	BatchIndex  int
}

// TransferFilter narrows a list of token transfers; the zero value lists
// all of them.
type TransferFilter struct {
	Token   *common.Address
	TokenID *big.Int
	TxHash  *common.Hash // ascending log order, as Blockscout lists a transaction's
	Address *common.Address
	Side    AddressFilter // with Address
	Types   []string      // token standards; empty: all
}

// TokenCursor is a keyset position in the token list ordered by (holders,
// address) descending.
type TokenCursor struct {
	Set     bool
	Holders uint64
	Address common.Address
}

// HolderPosition is a keyset position in a holder list ordered by (value,
// address, id) descending, or in an address's balances ordered by (value,
// token, id) descending (Address is then the token).
type HolderPosition struct {
	Set     bool
	Value   *big.Int
	Address common.Address
	TokenID *big.Int
}

// NFTCursor is a keyset position in an address's NFTs ordered by (token,
// id) descending, or in its collections (token only).
type NFTCursor struct {
	Set     bool
	Token   common.Address
	TokenID *big.Int
}

// InstanceCursor is a keyset position in a token's instances ordered by id
// descending.
type InstanceCursor struct {
	Set     bool
	TokenID *big.Int
}

// TokenStore is the token part of the explorer database.
type TokenStore interface {
	Token(ctx context.Context, addr common.Address) (*Token, error)
	// TokensOf returns the indexed tokens among addrs.
	TokensOf(ctx context.Context, addrs []common.Address) (map[common.Address]*Token, error)
	// Tokens lists tokens by holder count, most held first; q, if not
	// empty, must be a substring of the name or symbol (case-insensitive).
	Tokens(ctx context.Context, q string, types []string, after TokenCursor, limit int) ([]Token, error)
	TokenTransfers(ctx context.Context, f TransferFilter, after TransferCursor, limit int) ([]TokenTransfer, error)
	// CountTokenTransfers counts the transfers f selects (Token, TokenID and
	// Address only).
	CountTokenTransfers(ctx context.Context, f TransferFilter) (uint64, error)
	// TxTokenTransfers lists the transfers of each of txs, in log order, at
	// most limit each.
	TxTokenTransfers(ctx context.Context, txs []common.Hash, limit int) (map[common.Hash][]TokenTransfer, error)
	// TokenHolders lists the positive balances of a token (of one id when
	// id is set), largest first.
	TokenHolders(ctx context.Context, token common.Address, id *big.Int, after HolderPosition, limit int) ([]TokenBalance, error)
	// AddressTokenBalances lists an address's positive balances, largest
	// first (HolderPosition.Address is the token).
	AddressTokenBalances(ctx context.Context, addr common.Address, types []string, after HolderPosition, limit int) ([]TokenBalance, error)
	// AddressNFTs lists the NFTs an address holds: ERC-721 tokens it owns,
	// ERC-1155 ids it has a balance of.
	AddressNFTs(ctx context.Context, addr common.Address, types []string, token *common.Address, after NFTCursor, limit int) ([]TokenBalance, error)
	// AddressNFTTokens lists the NFT contracts an address holds some of.
	AddressNFTTokens(ctx context.Context, addr common.Address, types []string, after NFTCursor, limit int) ([]common.Address, error)
	// HasTokens reports whether addr holds any token; HasTokenTransfers
	// whether any transfer moved a token from or to it.
	HasTokens(ctx context.Context, addr common.Address) (bool, error)
	HasTokenTransfers(ctx context.Context, addr common.Address) (bool, error)

	Instance(ctx context.Context, token common.Address, id *big.Int) (*TokenInstance, error)
	InstancesOf(ctx context.Context, token common.Address, ids []*big.Int) (map[string]*TokenInstance, error)
	// Instances lists a token's instances by id, highest first; holder, if
	// set, keeps those it holds.
	Instances(ctx context.Context, token common.Address, holder *common.Address, after InstanceCursor, limit int) ([]TokenInstance, error)
	// UnfetchedInstances lists instances whose metadata is to be fetched.
	UnfetchedInstances(ctx context.Context, limit int) ([]TokenInstance, error)
	// SetInstanceMetadata records a fetch: the URI, and the JSON or the
	// reason it failed.
	SetInstanceMetadata(ctx context.Context, token common.Address, id *big.Int, uri *string, metadata []byte, reason *string) error
	// RefetchInstance queues an instance's metadata to be fetched again.
	RefetchInstance(ctx context.Context, token common.Address, id *big.Int) error
}

// Caller runs read-only contract calls (eth_call) against the state at the
// end of a block.
type Caller interface {
	Call(ctx context.Context, number uint64, to common.Address, data []byte) ([]byte, error)
}
