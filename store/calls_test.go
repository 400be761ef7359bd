package store

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/emberchain/ember/callframe"
)

// commitWithCalls commits an empty block on the head with calls.
func commitWithCalls(t *testing.T, s *Store, calls ...[]callframe.Frame) uint64 {
	parent := s.Head()
	header := &types.Header{ParentHash: parent.Hash(), Number: new(big.Int).Add(parent.Number, common.Big1), Root: parent.Root,
		Difficulty: new(big.Int), GasLimit: parent.GasLimit, Time: parent.Time + 1, BaseFee: big.NewInt(1)}
	block := types.NewBlock(header, &types.Body{}, nil, trie.NewStackTrie(nil))
	if err := s.CommitBlock(block, nil, nil, calls...); err != nil {
		t.Fatal(err)
	}
	return block.NumberU64()
}

// Frames are written with their block and read back exactly; a block whose
// transactions have no frame (plain transfers), or committed without
// calls, writes no key at all.
func TestInternalCallsStored(t *testing.T) {
	s := openTestStore(t)
	frames := [][]callframe.Frame{
		nil,
		{
			{Type: byte(vm.CALL), From: common.Address{1}, To: common.Address{2}, Value: big.NewInt(7), Gas: 100, GasUsed: 50,
				Input: []byte{1, 2, 3, 4}, Output: []byte{9}, TraceAddress: []uint64{0}},
			{Type: byte(vm.STATICCALL), From: common.Address{2}, To: common.Address{3}, Value: new(big.Int), Gas: 40,
				Error: "execution reverted", TraceAddress: []uint64{0, 0}},
		},
	}
	withCalls := commitWithCalls(t, s, frames...)
	transfers := commitWithCalls(t, s, nil, nil, nil)
	none := commitWithCalls(t, s)
	got, err := s.InternalCalls(withCalls)
	if err != nil || len(got) != 2 || len(got[0]) != 0 || len(got[1]) != 2 {
		t.Fatalf("read back: %v %v", got, err)
	}
	if fmt.Sprintf("%+v", got[1]) != fmt.Sprintf("%+v", frames[1]) {
		t.Fatalf("frames differ:\n%+v\n%+v", got[1], frames[1])
	}
	for _, n := range []uint64{transfers, none, 999} {
		if ok, _ := s.db.Has(internalCallsKey(n)); ok {
			t.Fatalf("block %d wrote an internal-calls key", n)
		}
		if got, err := s.InternalCalls(n); got != nil || err != nil {
			t.Fatalf("block %d: %v %v", n, got, err)
		}
	}
}
