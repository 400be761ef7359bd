package store

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb"
)

// GetHeader returns the header with the given hash and number, or nil. It
// implements the header lookup BLOCKHASH needs.
func (s *Store) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h, ok := s.headers.Get(hash); ok {
		return h
	}
	h := rawdb.ReadHeader(s.db, hash, number)
	if h != nil {
		s.headers.Add(hash, h)
	}
	return h
}

// HeaderByNumber returns the canonical header at number, or nil when the
// chain is not that long yet.
func (s *Store) HeaderByNumber(number uint64) *types.Header {
	hash := s.canonicalHash(number)
	if hash == (common.Hash{}) {
		return nil
	}
	return s.GetHeader(hash, number)
}

// canonicalHash is the hash of the block at number, or zero when the chain is
// not that long yet. Committed blocks are final, so the number → hash cache
// (refs) never goes stale, but for a dev chain's Rewind, which purges it.
func (s *Store) canonicalHash(number uint64) common.Hash {
	if head := s.Head(); head == nil || number > head.Number.Uint64() {
		return common.Hash{}
	}
	if b, ok := s.refs.Get(number); ok {
		return b.hash
	}
	return rawdb.ReadCanonicalHash(s.db, number)
}

// HeaderByHash returns the header with the given hash, or nil.
func (s *Store) HeaderByHash(hash common.Hash) *types.Header {
	if h, ok := s.headers.Get(hash); ok {
		return h
	}
	number, ok := rawdb.ReadHeaderNumber(s.db, hash)
	if !ok {
		return nil
	}
	return s.GetHeader(hash, number)
}

// BlockByNumber returns the canonical block at number, or nil.
func (s *Store) BlockByNumber(number uint64) *types.Block {
	hash := s.canonicalHash(number)
	if hash == (common.Hash{}) {
		return nil
	}
	return s.readBlock(hash, number)
}

// BlockByHash returns the block with the given hash, or nil. The block may be
// shared with other callers (see blockCache): do not modify it.
func (s *Store) BlockByHash(hash common.Hash) *types.Block {
	if b, ok := s.blocks.get(hash); ok {
		return b
	}
	number, ok := rawdb.ReadHeaderNumber(s.db, hash)
	if !ok {
		return nil
	}
	return s.readBlock(hash, number)
}

func (s *Store) readBlock(hash common.Hash, number uint64) *types.Block {
	if b, ok := s.blocks.get(hash); ok {
		return b
	}
	b := rawdb.ReadBlock(s.db, hash, number)
	if b != nil {
		if err := s.setSenders(b); err != nil {
			return nil
		}
		s.blocks.add(hash, b)
	}
	return b
}

// Receipts returns the receipts of a block with every derived field (block
// hash, tx hash, effective gas price, log positions) filled in.
func (s *Store) Receipts(header *types.Header) types.Receipts {
	hash, number := header.Hash(), header.Number.Uint64()
	receipts := rawdb.ReadRawReceipts(s.db, hash, number)
	if receipts == nil {
		return nil
	}
	// The body comes from the block cache, whose transactions keep their
	// hashes and senders (rawdb.ReadReceipts would decode it again).
	block := s.readBlock(hash, number)
	if block == nil {
		return nil
	}
	var blobGasPrice *big.Int
	if header.ExcessBlobGas != nil {
		blobGasPrice = eip4844.CalcBlobFee(s.Config(), header)
	}
	if err := receipts.DeriveFields(s.Config(), hash, number, header.Time, header.BaseFee, blobGasPrice, block.Transactions()); err != nil {
		return nil
	}
	return receipts
}

// TxLocation is where a transaction sits in the chain.
type TxLocation struct {
	BlockHash   common.Hash
	BlockNumber uint64
	Index       uint64
}

// Transaction returns an included transaction and its position, or nil.
func (s *Store) Transaction(hash common.Hash) (*types.Transaction, TxLocation) {
	number := rawdb.ReadTxLookupEntry(s.db, hash)
	if number == nil {
		return nil, TxLocation{}
	}
	// A lookup entry can point past the durable head after a crash between
	// writes; canonicalHash only answers what the head covers.
	blockHash := s.canonicalHash(*number)
	if blockHash == (common.Hash{}) {
		return nil, TxLocation{}
	}
	block := s.readBlock(blockHash, *number)
	if block == nil {
		return nil, TxLocation{}
	}
	for i, tx := range block.Transactions() {
		if tx.Hash() == hash {
			return tx, TxLocation{BlockHash: blockHash, BlockNumber: *number, Index: uint64(i)}
		}
	}
	return nil, TxLocation{}
}

// Ember's own keys, beside go-ethereum's rawdb schema.
var (
	cometHashPrefix   = []byte("ember-cmt-h") // + number (uint64 BE) -> CometBFT block hash
	cometNumberPrefix = []byte("ember-cmt-n") // + CometBFT block hash -> number (uint64 BE)
)

func cometHashKey(number uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte{}, cometHashPrefix...), number)
}

func writeCometHash(w ethdb.KeyValueWriter, number uint64, cometHash []byte) {
	if len(cometHash) == 0 {
		return
	}
	enc := binary.BigEndian.AppendUint64(nil, number)
	_ = w.Put(cometHashKey(number), cometHash)
	_ = w.Put(append(append([]byte{}, cometNumberPrefix...), cometHash...), enc)
}

// CometHash returns the CometBFT block hash of the EVM block at number.
func (s *Store) CometHash(number uint64) []byte {
	v, err := s.db.Get(cometHashKey(number))
	if err != nil {
		return nil
	}
	return v
}

// NumberByCometHash returns the block number of a CometBFT block hash.
func (s *Store) NumberByCometHash(cometHash []byte) (uint64, bool) {
	v, err := s.db.Get(append(append([]byte{}, cometNumberPrefix...), cometHash...))
	if err != nil || len(v) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(v), true
}
