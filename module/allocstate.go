package module

import (
	"maps"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// AllocState is a State over a genesis allocation: what InitGenesis hooks
// write goes straight into the accounts of genesis block 0, so modules
// that write to one another's accounts at genesis (staking's hooks into
// distribution) all see one state, as they do in a block.
type AllocState struct {
	alloc types.GenesisAlloc
	snaps []types.GenesisAlloc
}

// NewAllocState is a State over alloc, which it changes in place.
func NewAllocState(alloc types.GenesisAlloc) *AllocState { return &AllocState{alloc: alloc} }

func (s *AllocState) account(a common.Address) types.Account {
	acc := s.alloc[a]
	if acc.Balance == nil {
		acc.Balance = new(big.Int)
	}
	return acc
}

// GetState implements Reader.
func (s *AllocState) GetState(a common.Address, k common.Hash) common.Hash {
	return s.alloc[a].Storage[k]
}

// SetState implements State.
func (s *AllocState) SetState(a common.Address, k, v common.Hash) common.Hash {
	acc := s.account(a)
	prev := acc.Storage[k]
	storage := maps.Clone(acc.Storage) // a snapshot may share the old map
	if storage == nil {
		storage = map[common.Hash]common.Hash{}
	}
	if v == (common.Hash{}) {
		delete(storage, k)
	} else {
		storage[k] = v
	}
	acc.Storage = storage
	s.alloc[a] = acc
	return prev
}

// GetBalance implements Reader.
func (s *AllocState) GetBalance(a common.Address) *uint256.Int {
	v, _ := uint256.FromBig(s.account(a).Balance)
	return v
}

// AddBalance implements State.
func (s *AllocState) AddBalance(a common.Address, v *uint256.Int, _ tracing.BalanceChangeReason) uint256.Int {
	return s.setBalance(a, new(big.Int).Add(s.account(a).Balance, v.ToBig()))
}

// SubBalance implements State.
func (s *AllocState) SubBalance(a common.Address, v *uint256.Int, _ tracing.BalanceChangeReason) uint256.Int {
	return s.setBalance(a, new(big.Int).Sub(s.account(a).Balance, v.ToBig()))
}

func (s *AllocState) setBalance(a common.Address, b *big.Int) uint256.Int {
	prev := *s.GetBalance(a)
	acc := s.account(a)
	acc.Balance = b
	s.alloc[a] = acc
	return prev
}

// GetNonce implements Reader.
func (s *AllocState) GetNonce(a common.Address) uint64 { return s.alloc[a].Nonce }

// SetNonce implements State.
func (s *AllocState) SetNonce(a common.Address, n uint64, _ tracing.NonceChangeReason) {
	acc := s.account(a)
	acc.Nonce = n
	s.alloc[a] = acc
}

// Exist implements State.
func (s *AllocState) Exist(a common.Address) bool { _, ok := s.alloc[a]; return ok }

// Snapshot implements State: it copies the accounts (storage maps are
// never changed in place, see SetState).
func (s *AllocState) Snapshot() int {
	s.snaps = append(s.snaps, maps.Clone(s.alloc))
	return len(s.snaps) - 1
}

// RevertToSnapshot implements State.
func (s *AllocState) RevertToSnapshot(id int) {
	clear(s.alloc)
	maps.Copy(s.alloc, s.snaps[id])
	s.snaps = s.snaps[:id]
}
