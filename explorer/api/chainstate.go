package api

import (
	"context"
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/explorer"
)

// chainState reads the native modules' records (staking, distribution,
// slashing) slot by slot through the explorer's source, pinned to one
// block when the source can (explorer.HeadStater). The modules' read
// functions return no error, so the first one is kept in err.
//
// It is also a throwaway module.State: distribution's PendingRewards
// closes a validator's period in the state it is given, so writes go to
// an overlay the next read sees and nothing else.
type chainState struct {
	ctx    context.Context
	src    explorer.StorageReader
	number uint64 // the block read, 0 when the source cannot pin one
	err    error
	writes map[slotKey]common.Hash
	undo   []map[slotKey]common.Hash
}

type slotKey struct {
	addr common.Address
	slot common.Hash
}

// openChainState opens the head state of the explorer's source; a source
// without state answers 501.
func (h *handlers) openChainState(ctx context.Context) (*chainState, error) {
	if h.b.Chain == nil {
		return nil, &apiError{status: http.StatusNotImplemented, msg: "this explorer's source cannot read the chain's state"}
	}
	s := &chainState{ctx: ctx, src: h.b.Chain, writes: map[slotKey]common.Hash{}}
	if hs, ok := h.b.Chain.(explorer.HeadStater); ok {
		src, n, err := hs.HeadState(ctx)
		if err != nil {
			return nil, err
		}
		s.src, s.number = src, n
	}
	return s, nil
}

func (s *chainState) GetState(addr common.Address, slot common.Hash) common.Hash {
	if v, ok := s.writes[slotKey{addr, slot}]; ok {
		return v
	}
	if s.err != nil {
		return common.Hash{}
	}
	v, err := s.src.StorageAt(s.ctx, addr, slot)
	if err != nil {
		s.err = err
	}
	return v
}

// GetNonce is 1 for every account: the modules test a nonce only to know
// whether their system account was ever created, which a chain that has
// their records did.
func (s *chainState) GetNonce(common.Address) uint64 { return 1 }

// GetBalance is zero: the records the explorer reads are in storage, and
// a query's pending rewards move no coins.
func (s *chainState) GetBalance(common.Address) *uint256.Int { return new(uint256.Int) }

func (s *chainState) SetState(addr common.Address, slot, v common.Hash) common.Hash {
	prev := s.GetState(addr, slot)
	s.writes[slotKey{addr, slot}] = v
	return prev
}

func (s *chainState) AddBalance(common.Address, *uint256.Int, tracing.BalanceChangeReason) uint256.Int {
	return uint256.Int{}
}

func (s *chainState) SubBalance(common.Address, *uint256.Int, tracing.BalanceChangeReason) uint256.Int {
	return uint256.Int{}
}

func (s *chainState) SetNonce(common.Address, uint64, tracing.NonceChangeReason) {}

func (s *chainState) Exist(common.Address) bool { return true }

// Snapshot copies the overlay (a query writes a handful of slots).
func (s *chainState) Snapshot() int {
	c := make(map[slotKey]common.Hash, len(s.writes))
	for k, v := range s.writes {
		c[k] = v
	}
	s.undo = append(s.undo, c)
	return len(s.undo) - 1
}

func (s *chainState) RevertToSnapshot(id int) {
	s.writes = s.undo[id]
	s.undo = s.undo[:id]
}
