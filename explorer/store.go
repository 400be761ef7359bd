package explorer

import (
	"context"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// ErrNotFound is what a Store returns for an object it does not hold.
var ErrNotFound = errors.New("not found")

// IndexedBlock is everything one block adds to the explorer database. The
// indexer builds it from a Source; Store.WriteBlocks applies it.
type IndexedBlock struct {
	Block       Block
	Txs         []Tx
	Logs        []Log
	Touched     []Touched // every address the block touched, once each
	Contract    []Creation
	InternalTxs []InternalTx // internal transactions
	Native      []NativeTx   // native (Cosmos) transactions

	// Tokens: the block's token transfers, and what calls told of its tokens.
	TokenTransfers []TokenTransfer
	Tokens         []TokenMeta
}

// Touched is an address a block touched and its coin balance before and
// after the block (read from the chain's state, so deltas are exact however
// the balance moved).
type Touched struct {
	Address common.Address
	Before  *big.Int
	After   *big.Int
	TxHash  *common.Hash // the one transaction that touched it, if only one did
}

// Creation is a contract a transaction of the block created.
type Creation struct {
	Address common.Address
	Creator common.Address
	TxHash  common.Hash
}

// TxCursor is a keyset position in a list ordered by (block, index)
// descending: the next page starts strictly after it. The zero value (Set
// false) starts at the newest item.
type TxCursor struct {
	Set         bool
	BlockNumber uint64
	Index       int
}

// LogCursor is a keyset position in a list of logs ordered by (block, log
// index) descending: the next page starts strictly after it.
type LogCursor struct {
	Set         bool
	BlockNumber uint64
	Index       uint
}

// HolderCursor is a keyset position in the list of addresses ordered by
// (balance, hash) descending: the next page starts strictly after it.
type HolderCursor struct {
	Set     bool
	Balance *big.Int
	Hash    common.Address
}

// AddressFilter narrows an address's transactions to one side.
type AddressFilter int

const (
	AnySide  AddressFilter = iota // sent, received or created
	FromSide                      // sent by the address
	ToSide                        // received by the address (or created it)
)

// Store is the explorer database. Writes come from one indexer; reads are
// concurrent. Lists are keyset-paged: each returns at most limit items after
// the cursor, newest first.
type Store interface {
	InternalTxStore
	TokenStore
	ContractStore // verified contracts (store_contracts.go)
	NativeStore   // native transactions (native.go)
	// IndexedHeight is the last block WriteBlocks recorded; ok is false
	// before the first.
	IndexedHeight(ctx context.Context) (height uint64, ok bool, err error)
	// WriteBlocks records consecutive blocks in one database transaction
	// together with the new indexed height. Blocks at or below the indexed
	// height are skipped, so replaying a block never counts it twice; a gap
	// is an error.
	WriteBlocks(ctx context.Context, blocks []*IndexedBlock) error

	Block(ctx context.Context, number uint64) (*Block, error)
	BlockByHash(ctx context.Context, hash common.Hash) (*Block, error)
	// BlockByCometHash finds a block by its CometBFT block hash.
	BlockByCometHash(ctx context.Context, hash common.Hash) (*Block, error)
	// Blocks lists blocks below before (all when before is nil).
	Blocks(ctx context.Context, before *uint64, limit int) ([]Block, error)

	Tx(ctx context.Context, hash common.Hash) (*Tx, error)
	Txs(ctx context.Context, after TxCursor, limit int) ([]Tx, error)
	// BlockTxs lists a block's transactions in ascending index order from
	// index from on, as Blockscout does.
	BlockTxs(ctx context.Context, number uint64, from int, limit int) ([]Tx, error)
	AddressTxs(ctx context.Context, addr common.Address, side AddressFilter, after TxCursor, limit int) ([]Tx, error)

	// TxLogs lists a transaction's logs in ascending index order from index
	// from on.
	TxLogs(ctx context.Context, hash common.Hash, from uint, limit int) ([]Log, error)

	Address(ctx context.Context, addr common.Address) (*Address, error)
	// HasLogs reports whether a contract at addr emitted any log.
	HasLogs(ctx context.Context, addr common.Address) (bool, error)
	// Contracts reports which of addrs are known contracts.
	Contracts(ctx context.Context, addrs []common.Address) (map[common.Address]bool, error)
	// BalanceHistory lists an address's balance changes below block before
	// (all when nil), newest first.
	BalanceHistory(ctx context.Context, addr common.Address, before *uint64, limit int) ([]BalanceChange, error)

	// AddressLogs lists the logs a contract emitted, newest first.
	AddressLogs(ctx context.Context, addr common.Address, after LogCursor, limit int) ([]Log, error)
	// MinerBlocks lists the blocks whose fee recipient is miner below block
	// before (all when nil), newest first.
	MinerBlocks(ctx context.Context, miner common.Address, before *uint64, limit int) ([]Block, error)
	// TopAddresses lists addresses by balance, richest first (ties by hash
	// descending).
	TopAddresses(ctx context.Context, after HolderCursor, limit int) ([]Address, error)
	// TotalBalance sums the balances of every indexed address, exactly.
	TotalBalance(ctx context.Context) (*big.Int, error)
	// DailyBalances lists, for each UTC day from sinceUnix on where an
	// address's balance changed, its last change of that day, oldest first.
	DailyBalances(ctx context.Context, addr common.Address, sinceUnix int64) ([]BalanceChange, error)
	// DailyTxCounts counts the transactions (EVM and native) of the blocks of each UTC day
	// from day sinceDay on, by day number (unix time / 86400); days without
	// blocks are absent.
	DailyTxCounts(ctx context.Context, sinceDay int64) (map[int64]uint64, error)

	// Stats counts the chain; now is the time "today" is measured from.
	Stats(ctx context.Context, nowUnix int64) (*Stats, error)
	// RecentTips lists the priority fee per gas (effective price − base
	// fee) of up to limit of the newest transactions of the last blocks
	// blocks, newest first, with the newest block's base fee and time (nil
	// and 0 before any block).
	RecentTips(ctx context.Context, blocks, limit int) (tips []*big.Int, baseFee *big.Int, blockTime uint64, err error)

	Close() error
}
