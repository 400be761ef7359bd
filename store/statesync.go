package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"sync/atomic"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/trie"
)

// State sync: the store exports the state of one block (every account
// leaf, storage leaf and contract code of its trie, in trie order) with the
// chain data of the blocks before it that a node needs to serve from there,
// and imports them into an empty store. Package snapshot turns the export
// into CometBFT snapshot chunks.

// restoredKey holds, in a store filled by ImportChain, the first block whose
// state (8 bytes BE) and the first block whose chain data (8 bytes BE) the
// store holds. A store without it has every block since genesis.
var restoredKey = []byte("ember-restored")

// restoredFrom is restoredKey's value, read once at Open.
type restoredFrom struct {
	state, block atomic.Uint64
}

func (s *Store) loadRestored() error {
	v, err := s.db.Get(restoredKey)
	if err != nil {
		return nil // not state-synced
	}
	if len(v) != 16 {
		return fmt.Errorf("corrupt database: %s is %d bytes", restoredKey, len(v))
	}
	s.setRestored(binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:]))
	return nil
}

func (s *Store) setRestored(state, block uint64) {
	s.restored.state.Store(state)
	s.restored.block.Store(block)
}

// FirstState is the first block whose state this store holds: the
// snapshot height in a state-synced store, 0 otherwise.
func (s *Store) FirstState() uint64 { return s.restored.state.Load() }

// FirstBlock is the first block whose header, body and receipts this store
// holds: 0 unless it was state-synced.
func (s *Store) FirstBlock() uint64 { return s.restored.block.Load() }

// BlockUnavailableError is the answer for a block older than a state-synced
// node holds.
type BlockUnavailableError struct {
	Number, Oldest uint64
}

func (e *BlockUnavailableError) Error() string {
	return fmt.Sprintf("block %d is not available on this node (state-synced): the oldest available is block %d", e.Number, e.Oldest)
}

// CheckBlock answers *BlockUnavailableError when block number is older
// than this store holds.
func (s *Store) CheckBlock(number uint64) error {
	if first := s.FirstBlock(); number < first {
		return &BlockUnavailableError{Number: number, Oldest: first}
	}
	return nil
}

// StateVisitor receives a state in trie order: each account leaf, then the
// storage leaves of that account, then its code the first time a code hash
// is seen. Values are the trie's leaf values (RLP), kept as they are so
// that the importer rebuilds the identical trie.
type StateVisitor interface {
	Account(hash common.Hash, value []byte) error
	Storage(slot common.Hash, value []byte) error
	Code(hash common.Hash, code []byte) error
}

// ExportState walks the state with the given root. The trie database keeps
// every root (archive) and is safe to read while blocks are committed, so
// this can run beside block production.
func (s *Store) ExportState(ctx context.Context, root common.Hash, v StateVisitor) error {
	tr, err := trie.NewStateTrie(trie.StateTrieID(root), s.trie)
	if err != nil {
		return fmt.Errorf("open state %x: %w", root, err)
	}
	nodes, err := tr.NodeIterator(nil)
	if err != nil {
		return err
	}
	codes := make(map[common.Hash]bool)
	it := trie.NewIterator(nodes)
	for it.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		hash := common.BytesToHash(it.Key)
		var acct types.StateAccount
		if err := rlp.DecodeBytes(it.Value, &acct); err != nil {
			return fmt.Errorf("account %x: %w", hash, err)
		}
		if err := v.Account(hash, it.Value); err != nil {
			return err
		}
		if acct.Root != types.EmptyRootHash {
			if err := s.exportStorage(root, hash, acct.Root, v); err != nil {
				return err
			}
		}
		codeHash := common.BytesToHash(acct.CodeHash)
		if codeHash != types.EmptyCodeHash && !codes[codeHash] {
			codes[codeHash] = true
			code := rawdb.ReadCode(s.db, codeHash)
			if len(code) == 0 {
				return fmt.Errorf("code %x of account %x missing", codeHash, hash)
			}
			if err := v.Code(codeHash, code); err != nil {
				return err
			}
		}
	}
	if it.Err != nil {
		return fmt.Errorf("iterate state %x: %w", root, it.Err)
	}
	return nil
}

func (s *Store) exportStorage(stateRoot, owner, root common.Hash, v StateVisitor) error {
	tr, err := trie.NewStateTrie(trie.StorageTrieID(stateRoot, owner, root), s.trie)
	if err != nil {
		return fmt.Errorf("open storage of account %x: %w", owner, err)
	}
	nodes, err := tr.NodeIterator(nil)
	if err != nil {
		return err
	}
	it := trie.NewIterator(nodes)
	for it.Next() {
		if err := v.Storage(common.BytesToHash(it.Key), it.Value); err != nil {
			return err
		}
	}
	if it.Err != nil {
		return fmt.Errorf("iterate storage of account %x: %w", owner, it.Err)
	}
	return nil
}

// StateImport rebuilds a state from what ExportState visited, in the same
// order, writing the trie nodes as go-ethereum's hash-based scheme keeps
// them. It checks each storage root and code hash as it goes; Finish gives
// the state root, which the caller compares with the one it trusts.
type StateImport struct {
	s        *Store
	batch    ethdb.Batch
	accounts *trie.StackTrie
	storage  *trie.StackTrie    // of the current account; nil when it has none
	cur      types.StateAccount // the current account
	curHash  common.Hash
	needCode map[common.Hash]bool // code hashes of imported accounts, true once written
	err      error                // first write error of a trie node
}

// NewStateImport starts rebuilding a state. Nodes of an import that never
// finishes are unreferenced garbage: a later import writes over them.
func (s *Store) NewStateImport() *StateImport {
	im := &StateImport{s: s, batch: s.db.NewBatch(), needCode: make(map[common.Hash]bool)}
	im.accounts = trie.NewStackTrie(im.writeNode)
	return im
}

func (im *StateImport) writeNode(_ []byte, hash common.Hash, blob []byte) {
	rawdb.WriteLegacyTrieNode(im.batch, hash, blob)
	if im.batch.ValueSize() >= ethdb.IdealBatchSize {
		im.flush()
	}
}

func (im *StateImport) flush() {
	if err := im.batch.Write(); err != nil && im.err == nil {
		im.err = err
	}
	im.batch.Reset()
}

// Account adds the next account leaf.
func (im *StateImport) Account(hash common.Hash, value []byte) error {
	if err := im.endAccount(); err != nil {
		return err
	}
	var acct types.StateAccount
	if err := rlp.DecodeBytes(value, &acct); err != nil {
		return fmt.Errorf("account %x: %w", hash, err)
	}
	if err := im.accounts.Update(hash[:], value); err != nil {
		return fmt.Errorf("account %x: %w", hash, err)
	}
	im.cur, im.curHash, im.storage = acct, hash, nil
	if acct.Root != types.EmptyRootHash {
		im.storage = trie.NewStackTrie(im.writeNode)
	}
	if codeHash := common.BytesToHash(acct.CodeHash); codeHash != types.EmptyCodeHash {
		if _, ok := im.needCode[codeHash]; !ok {
			im.needCode[codeHash] = false
		}
	}
	return im.err
}

// Storage adds the next storage leaf of the current account.
func (im *StateImport) Storage(slot common.Hash, value []byte) error {
	if im.storage == nil {
		return fmt.Errorf("storage slot %x outside an account with storage", slot)
	}
	if err := im.storage.Update(slot[:], value); err != nil {
		return fmt.Errorf("storage of account %x: %w", im.curHash, err)
	}
	return im.err
}

// Code adds a contract code.
func (im *StateImport) Code(hash common.Hash, code []byte) error {
	if got := crypto.Keccak256Hash(code); got != hash {
		return fmt.Errorf("code hashes to %x, not %x", got, hash)
	}
	rawdb.WriteCode(im.batch, hash, code)
	im.needCode[hash] = true
	return im.err
}

// endAccount checks the storage trie of the current account against the
// root its leaf names.
func (im *StateImport) endAccount() error {
	if im.storage == nil {
		return nil
	}
	if got := im.storage.Hash(); got != im.cur.Root {
		return fmt.Errorf("storage of account %x hashes to %x, its leaf says %x", im.curHash, got, im.cur.Root)
	}
	im.storage = nil
	return nil
}

// Finish writes what remains and returns the rebuilt state root. It fails
// when a contract's code never came.
func (im *StateImport) Finish() (common.Hash, error) {
	if err := im.endAccount(); err != nil {
		return common.Hash{}, err
	}
	for hash, ok := range im.needCode {
		if !ok {
			return common.Hash{}, fmt.Errorf("code %x missing from the snapshot", hash)
		}
	}
	root := im.accounts.Hash()
	im.flush()
	return root, im.err
}

// ChainBlock is one block's chain data as the store keeps it.
type ChainBlock struct {
	Header   rlp.RawValue
	Body     rlp.RawValue
	Receipts rlp.RawValue
	Comet    []byte // CometBFT block hash
}

// ExportChain returns the data of blocks head-n+1 … head (from 0 when the
// chain is shorter), oldest first.
func (s *Store) ExportChain(head, n uint64) ([]ChainBlock, error) {
	from := uint64(0)
	if head+1 > n {
		from = head + 1 - n
	}
	out := make([]ChainBlock, 0, head-from+1)
	for num := from; num <= head; num++ {
		hash := rawdb.ReadCanonicalHash(s.db, num)
		if hash == (common.Hash{}) {
			return nil, fmt.Errorf("block %d not in the store", num)
		}
		b := ChainBlock{
			Header:   rawdb.ReadHeaderRLP(s.db, hash, num),
			Body:     rawdb.ReadBodyRLP(s.db, hash, num),
			Receipts: rawdb.ReadReceiptsRLP(s.db, hash, num),
			Comet:    s.CometHash(num),
		}
		if len(b.Header) == 0 || len(b.Body) == 0 {
			return nil, fmt.Errorf("block %d incomplete in the store", num)
		}
		out = append(out, b)
	}
	return out, nil
}

// ImportChain writes blocks (oldest first, each the parent of the next, the
// last one's state root root, whose state the caller has imported) and
// makes the last one the head. From then on the store serves state from
// that block and chain data from the first; older heights answer
// StateUnavailableError and BlockUnavailableError.
func (s *Store) ImportChain(blocks []ChainBlock, root common.Hash) error {
	if len(blocks) == 0 {
		return errors.New("no blocks to import")
	}
	if !s.HasState(root) {
		return fmt.Errorf("state %x not in the store", root)
	}
	batch := s.db.NewBatch()
	var parent *types.Header
	for _, cb := range blocks {
		block, receipts, err := s.decodeChainBlock(cb)
		if err != nil {
			return err
		}
		if parent != nil && (block.ParentHash() != parent.Hash() || block.NumberU64() != parent.Number.Uint64()+1) {
			return fmt.Errorf("block %d does not follow block %d", block.NumberU64(), parent.Number)
		}
		if err := writeBlockData(batch, block, receipts, cb.Comet, nil, nil); err != nil {
			return err
		}
		parent = block.Header()
	}
	if parent.Root != root {
		return fmt.Errorf("block %d has state root %x, not %x", parent.Number, parent.Root, root)
	}
	head := parent.Number.Uint64()
	first := head + 1 - uint64(len(blocks))
	var marker [16]byte
	binary.BigEndian.PutUint64(marker[:], head)
	binary.BigEndian.PutUint64(marker[8:], first)
	if err := batch.Put(restoredKey, marker[:]); err != nil {
		return err
	}
	rawdb.WriteHeadHeaderHash(batch, parent.Hash())
	rawdb.WriteHeadBlockHash(batch, parent.Hash())
	if err := batch.Write(); err != nil {
		return fmt.Errorf("write restored blocks: %w", err)
	}
	if err := s.kv.SyncKeyValue(); err != nil {
		return err
	}
	s.setRestored(head, first)
	s.setHead(parent)
	return nil
}

// decodeChainBlock decodes one exported block and checks that its body and
// receipts belong to its header.
func (s *Store) decodeChainBlock(cb ChainBlock) (*types.Block, types.Receipts, error) {
	header := new(types.Header)
	if err := rlp.DecodeBytes(cb.Header, header); err != nil {
		return nil, nil, fmt.Errorf("decode header: %w", err)
	}
	body := new(types.Body)
	if err := rlp.DecodeBytes(cb.Body, body); err != nil {
		return nil, nil, fmt.Errorf("decode body of block %d: %w", header.Number, err)
	}
	var stored []*types.ReceiptForStorage
	if len(cb.Receipts) > 0 {
		if err := rlp.DecodeBytes(cb.Receipts, &stored); err != nil {
			return nil, nil, fmt.Errorf("decode receipts of block %d: %w", header.Number, err)
		}
	}
	receipts := make(types.Receipts, len(stored))
	for i, r := range stored {
		receipts[i] = (*types.Receipt)(r)
	}
	block := types.NewBlockWithHeader(header).WithBody(*body)
	if got := types.DeriveSha(block.Transactions(), trie.NewStackTrie(nil)); got != header.TxHash {
		return nil, nil, fmt.Errorf("block %d: transactions hash to %x, header says %x", header.Number, got, header.TxHash)
	}
	if len(receipts) != len(block.Transactions()) {
		return nil, nil, fmt.Errorf("block %d: %d receipts for %d transactions", header.Number, len(receipts), len(block.Transactions()))
	}
	var blobGasPrice *big.Int
	if header.ExcessBlobGas != nil {
		blobGasPrice = eip4844.CalcBlobFee(s.Config(), header)
	}
	if err := receipts.DeriveFields(s.Config(), block.Hash(), block.NumberU64(), header.Time, header.BaseFee, blobGasPrice, block.Transactions()); err != nil {
		return nil, nil, fmt.Errorf("receipts of block %d: %w", header.Number, err)
	}
	if got := types.DeriveSha(receipts, trie.NewStackTrie(nil)); got != header.ReceiptHash {
		return nil, nil, fmt.Errorf("block %d: receipts hash to %x, header says %x", header.Number, got, header.ReceiptHash)
	}
	return block, receipts, nil
}
