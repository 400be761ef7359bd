package store

import (
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
)

// Genesis export and import (`emberd export`, and InitChain of what it
// wrote): the state of one block is walked with ExportState and rebuilt
// with NewStateImport, leaf for leaf, so that the new chain's block 0 has
// the exported block's state root; InitGenesisRoot then writes that block 0.

// ExportableState is the header of block n when its state can be exported:
// the block is in the store and its state is held (every height in
// archive mode; the last ones in full mode; from the snapshot height in a
// state-synced store), else *StateUnavailableError or an error naming n.
func (s *Store) ExportableState(n uint64) (*types.Header, error) {
	h := s.HeaderByNumber(n)
	if h == nil {
		head := s.Head()
		if head != nil && n > head.Number.Uint64() {
			return nil, fmt.Errorf("block %d is above the head (block %d)", n, head.Number)
		}
		return nil, fmt.Errorf("block %d is not in the store", n)
	}
	if err := s.CheckState(n); err != nil {
		return nil, err
	}
	if !s.HasState(h.Root) {
		return nil, fmt.Errorf("state of block %d (root %x) is not in the store", n, h.Root)
	}
	return h, nil
}

// Preimage is the address or slot whose keccak256 hash is hash, when the
// store keeps preimages (a dev chain's, Options.Preimages); nil otherwise.
func (s *Store) Preimage(hash common.Hash) []byte {
	return rawdb.ReadPreimage(s.db, hash)
}

// WritePreimages records the addresses and slots behind hashed trie keys
// (what Options.Preimages keeps as blocks run), for a state imported with
// NewStateImport: a dev chain lists its state by them.
func (s *Store) WritePreimages(pre map[common.Hash][]byte) error {
	batch := s.db.NewBatch()
	rawdb.WritePreimages(batch, pre)
	return batch.Write()
}

// InitGenesisRoot writes g's block 0 with the state root root, a state
// already rebuilt in this store (NewStateImport, Finish) in place of g's
// allocation, which must be empty: the header is the one go-ethereum makes
// for g but for its root. named lists the accounts whose addresses are
// known, kept as the genesis allocation a reader of block 0 lists
// (GenesisAccounts). Writing the same block again is harmless, as
// InitGenesis.
func (s *Store) InitGenesisRoot(g *core.Genesis, root common.Hash, named types.GenesisAlloc) (*types.Block, error) {
	if len(g.Alloc) > 0 {
		return nil, fmt.Errorf("genesis with an imported state root has %d allocated accounts", len(g.Alloc))
	}
	if g.Config == nil {
		return nil, fmt.Errorf("genesis without chain config")
	}
	if err := g.Config.CheckConfigForkOrder(); err != nil {
		return nil, err
	}
	if !s.HasState(root) {
		return nil, fmt.Errorf("imported state %x not in the store", root)
	}
	empty := g.ToBlock() // an empty allocation: go-ethereum's header, the empty root
	header := types.CopyHeader(empty.Header())
	header.Root = root
	block := types.NewBlockWithHeader(header).WithBody(*empty.Body())
	if named == nil {
		named = types.GenesisAlloc{}
	}
	spec, err := json.Marshal(named)
	if err != nil {
		return nil, err
	}
	batch := s.db.NewBatch()
	rawdb.WriteGenesisStateSpec(batch, block.Hash(), spec)
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, block.Hash(), 0, nil)
	rawdb.WriteCanonicalHash(batch, block.Hash(), 0)
	rawdb.WriteHeadBlockHash(batch, block.Hash())
	rawdb.WriteHeadFastBlockHash(batch, block.Hash())
	rawdb.WriteHeadHeaderHash(batch, block.Hash())
	rawdb.WriteChainConfig(batch, block.Hash(), g.Config)
	if err := batch.Write(); err != nil {
		return nil, fmt.Errorf("write genesis block: %w", err)
	}
	if err := s.kv.SyncKeyValue(); err != nil {
		return nil, err
	}
	s.pruneMu.Lock()
	s.flushed = root
	s.pruneMu.Unlock()
	s.setHead(block.Header())
	return block, nil
}
