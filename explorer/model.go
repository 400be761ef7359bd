// Package explorer is Ember's block explorer back end: an indexer that
// follows committed blocks (through a Source) into a relational database
// (through a Store), and the data model both share. The HTTP API that serves
// it in Blockscout's v2 shapes lives in explorer/api, the SQL stores in
// explorer/sqlstore.
package explorer

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Block is one indexed block header with the fee totals of its transactions.
type Block struct {
	Number      uint64
	Hash        common.Hash
	ParentHash  common.Hash
	Miner       common.Address // fee recipient (header coinbase)
	Time        uint64         // unix seconds
	GasUsed     uint64
	GasLimit    uint64
	BaseFee     *big.Int // nil before London
	Size        uint64   // RLP size in bytes
	TxCount     int
	StateRoot   common.Hash
	ExtraData   []byte
	Nonce       uint64
	Difficulty  *big.Int
	BurntFees   *big.Int // base fee × gas used: destroyed
	PriorityFee *big.Int // tips paid to the miner
	TxFees      *big.Int // everything the senders paid
	CometHash   []byte   // the CometBFT block hash beside the EVM one; nil when the source does not know it
}

// Tx is one included transaction with the outcome of its receipt.
type Tx struct {
	Hash        common.Hash
	BlockNumber uint64
	BlockHash   common.Hash
	Index       int
	Time        uint64
	From        common.Address
	To          *common.Address // nil for a contract creation
	Created     *common.Address // the contract a creation made (status 1 only)
	Value       *big.Int
	Gas         uint64
	GasUsed     uint64
	GasPrice    *big.Int // effective price per gas
	MaxFee      *big.Int // nil for legacy and access-list txs
	MaxTip      *big.Int // nil for legacy and access-list txs
	BaseFee     *big.Int // the block's, nil before London
	Nonce       uint64
	Type        uint8
	Status      uint8 // receipt status: 1 ok, 0 failed
	Input       []byte
	Fee         *big.Int // gas used × effective price
	BurntFee    *big.Int // gas used × base fee
}

// MethodID is the 4-byte selector of a call, or "" when the input is shorter.
func (t *Tx) MethodID() string {
	if len(t.Input) < 4 {
		return ""
	}
	return common.Bytes2Hex(t.Input[:4])
}

// Log is one event a transaction emitted. Index is block-wide.
type Log struct {
	BlockNumber uint64
	BlockHash   common.Hash
	Index       uint
	TxHash      common.Hash
	TxIndex     uint
	Address     common.Address
	Topics      []common.Hash
	Data        []byte
}

// Address is what the explorer knows about one account.
type Address struct {
	Hash            common.Address
	Balance         *big.Int
	BalanceBlock    uint64 // block the balance last changed in (never changed: first seen)
	FirstSeen       uint64
	LastSeen        uint64
	TxCount         uint64 // transactions sent, received or creating it
	GasUsed         uint64 // gas of the transactions it sent
	BlocksValidated uint64 // blocks whose fee recipient it was
	IsContract      bool
	Creator         *common.Address
	CreationTx      *common.Hash
}

// BalanceChange is an address's coin balance at the end of a block where it
// changed, and by how much.
type BalanceChange struct {
	Address     common.Address
	BlockNumber uint64
	Time        uint64
	Value       *big.Int
	Delta       *big.Int     // may be negative
	TxHash      *common.Hash // set when exactly one transaction of the block touched the address
}

// Stats are the chain-wide counters of /api/v2/stats.
type Stats struct {
	Blocks        uint64 // indexed blocks, genesis included
	Transactions  uint64 // EVM and native (Cosmos) transactions, as Blockscout counts every transaction of the chain
	Addresses     uint64
	GasUsed       uint64
	TxsToday      uint64 // EVM and native, in blocks of the current UTC day
	GasUsedToday  uint64
	AvgBlockMilli float64 // average block time over the recent blocks
	Utilization   float64 // gas used / gas limit over the recent blocks, percent
}
