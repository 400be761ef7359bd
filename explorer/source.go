package explorer

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// SourceBlock is one committed block as a Source delivers it.
type SourceBlock struct {
	Block     *types.Block
	Receipts  types.Receipts   // one per transaction, derived fields filled in
	Senders   []common.Address // one per transaction
	Internal  [][]InternalCall // internal calls of each transaction; nil when none or not available
	CometHash []byte           // the CometBFT block's hash; nil when the source does not know it (JSON-RPC sources)
	Native    []NativeTx       // native transactions of the CometBFT block (hash, position, sender, messages, result); nil when none or not available
}

// PendingTx is a transaction waiting in the node's pool.
type PendingTx struct {
	Tx   *types.Transaction
	From common.Address
}

// Source is where the indexer reads committed blocks from: the node's own
// store in-process (NodeSource), or later an Ethereum JSON-RPC endpoint.
type Source interface {
	// Head is the newest committed block; ok is false before genesis.
	Head(ctx context.Context) (number uint64, ok bool, err error)
	// Block returns a committed block with its receipts and senders.
	Block(ctx context.Context, number uint64) (*SourceBlock, error)
	// Balances returns the coin balances of addrs at the end of block
	// number, in order.
	Balances(ctx context.Context, number uint64, addrs []common.Address) ([]*big.Int, error)
	// Notify is signalled (without blocking the chain) when a block may
	// have been committed; the indexer also polls, so a missed signal only
	// delays.
	Notify() <-chan struct{}
	// Pending lists the transactions waiting to be included; nil when the
	// source cannot see a pool.
	Pending() []PendingTx
}

// GenesisSource is a Source that can list the accounts of the genesis state,
// so that funded accounts which never transact still count as holders and in
// the total supply. Sources without it index block 0 like any other block.
type GenesisSource interface {
	GenesisAccounts(ctx context.Context) ([]common.Address, error)
}

// BusySource is a Source that tells when it is making blocks: transactions
// wait in its pool for the next one. An indexer sharing the node's CPU
// leaves it to consensus while the source is busy (Indexer.Yield).
type BusySource interface {
	Busy() bool
}
