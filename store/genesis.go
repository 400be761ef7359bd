package store

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
)

// GenesisAccounts lists, in address order, the accounts the genesis state
// allocated. go-ethereum's Genesis.Commit keeps the allocation beside the
// genesis block; the state trie alone cannot say which addresses exist (its
// keys are hashes).
func (s *Store) GenesisAccounts() ([]common.Address, error) {
	hash := rawdb.ReadCanonicalHash(s.db, 0)
	if hash == (common.Hash{}) {
		return nil, fmt.Errorf("no genesis block in the store")
	}
	blob := rawdb.ReadGenesisStateSpec(s.db, hash)
	if blob == nil {
		return nil, fmt.Errorf("genesis allocation of block %x not in the store", hash)
	}
	var alloc types.GenesisAlloc
	if err := json.Unmarshal(blob, &alloc); err != nil {
		return nil, fmt.Errorf("decode genesis allocation: %w", err)
	}
	out := make([]common.Address, 0, len(alloc))
	for a := range alloc {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Cmp(out[j]) < 0 })
	return out, nil
}
