// Package eth implements the eth_ JSON-RPC namespace. Every method reads the
// chain through the narrow Backend interface, implemented by the node, so the
// API can be tested without one.
package eth

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/emberchain/ember/store"
)

// Backend is what the eth namespace needs from the node.
type Backend interface {
	ChainConfig() *params.ChainConfig

	// Head is the latest durable block: "latest", "safe", "finalized" and
	// "pending" all resolve to it, since CometBFT blocks are final at once.
	Head() *types.Header
	HeaderByNumber(number uint64) *types.Header
	HeaderByHash(hash common.Hash) *types.Header
	GetHeader(hash common.Hash, number uint64) *types.Header
	BlockByNumber(number uint64) *types.Block
	BlockByHash(hash common.Hash) *types.Block
	Receipts(header *types.Header) types.Receipts
	Transaction(hash common.Hash) (*types.Transaction, store.TxLocation)
	// StateAt opens the state after block h; a height whose state the
	// node no longer holds answers *store.StateUnavailableError.
	StateAt(h *types.Header) (*state.StateDB, error)
	// BorrowState lends a StateDB of the state after block h for one run
	// that commits nothing and makes no change outside its journal (no
	// state overrides), and the func that gives it back after the run;
	// errors are StateAt's.
	BorrowState(h *types.Header) (*state.StateDB, func(), error)
	// AccountAt is one account of that state (nil when it has none),
	// read without a StateDB.
	AccountAt(h *types.Header, addr common.Address) (*types.StateAccount, error)
	// StateWindow is the first height whose state the node holds and, when
	// it prunes older states, how many recent ones it keeps (0: none
	// deleted).
	StateWindow() (oldest, keepRecent uint64)
	// BlockAvailable answers an error naming the oldest available height
	// when this node does not hold the block at number (state-synced), nil
	// otherwise.
	BlockAvailable(number uint64) error

	// PendingTransaction returns a tx waiting in the pool.
	PendingTransaction(hash common.Hash) *types.Transaction
	// PendingNonce is the next nonce of addr counting pooled txs.
	PendingNonce(addr common.Address, stateNonce uint64) uint64
	// NextBaseFee is the base fee of the next block.
	NextBaseFee() *big.Int
	// BaseFeeAfter is the base fee of the block following parent.
	BaseFeeAfter(parent *types.Header) *big.Int
	// SendTransaction hands tx, encoded as raw, to the mempool and reports
	// CheckTx's verdict.
	SendTransaction(ctx context.Context, tx *types.Transaction, raw []byte) error
	// SyncStatus reports whether CometBFT is catching up, and if so from
	// which height, where it is and how far it knows the chain goes.
	SyncStatus() (syncing bool, start, current, highest uint64)
	// Coinbase is the address this node's validator is paid at.
	Coinbase() common.Address
	// SuggestGasTipCap is the tip to advise: from recent blocks, never
	// below MinGasTip.
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	// MinGasTip is the lowest tip the node admits (minimum-gas-prices).
	MinGasTip() *big.Int
}

// Config bounds what one request may cost.
type Config struct {
	GasCap              uint64        // gas limit cap for calls; 0 = none
	EVMTimeout          time.Duration // time limit of one call; 0 = none
	TxFeeCap            float64       // ether; 0 = none
	AllowUnprotectedTxs bool
}
