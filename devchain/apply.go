package devchain

import (
	"encoding/binary"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"
)

// ClockAddress keeps a dev chain's clock offset in its storage (slot 0: the
// seconds added to CometBFT's block time, an int64 in the low 8 bytes), so
// the AppHash covers it and every node derives the same block times. Like
// the other system accounts it has nonce 1, so EIP-161 never clears it.
var ClockAddress = common.HexToAddress("0x0000000000000000000000000000000000000De7")

var offsetSlot = common.Hash{}

// StateReader reads a state; *state.StateDB satisfies it.
type StateReader interface {
	GetState(common.Address, common.Hash) common.Hash
}

// Offset is the chain's clock offset in seconds.
func Offset(st StateReader) int64 {
	v := st.GetState(ClockAddress, offsetSlot)
	return int64(binary.BigEndian.Uint64(v[24:]))
}

// WriteOffset records a new clock offset.
func WriteOffset(st vm.StateDB, offset int64) {
	if st.GetNonce(ClockAddress) == 0 {
		st.SetNonce(ClockAddress, 1, tracing.NonceChangeUnspecified)
	}
	var v common.Hash
	binary.BigEndian.PutUint64(v[24:], uint64(offset))
	st.SetState(ClockAddress, offsetSlot, v)
}

// BlockTime is the timestamp of a block CometBFT timed at cometSecs, on a
// parent of parentTime, under a clock offset and the clock edits the block
// carries (in order), and the offset after it. evm_increaseTime adds to the
// offset; a set timestamp is the block's time and moves the offset so the
// clock runs on from it, as anvil's does. A block is never older than its
// parent.
func BlockTime(cometSecs int64, parentTime uint64, offset int64, ops []Op) (uint64, int64) {
	var exact *uint64
	for _, op := range ops {
		switch op.Kind {
		case IncreaseTime:
			offset += op.Seconds
		case SetTimestamp:
			t := uint64(*op.Timestamp)
			exact = &t
		}
	}
	var t uint64
	if exact != nil {
		t = *exact
		offset = int64(t) - cometSecs
	} else {
		t = uint64(max(cometSecs+offset, 0))
	}
	return max(t, parentTime), offset
}

// Apply makes one state edit on st (the block's state, behind its hooks,
// so tracers and balance records see it). Clock and base-fee edits are
// header matters and change nothing here.
func Apply(st vm.StateDB, op Op) {
	switch op.Kind {
	case SetBalance:
		prev := st.GetBalance(*op.Address)
		st.SubBalance(*op.Address, prev, tracing.BalanceChangeUnspecified)
		v, _ := uint256.FromBig(op.Balance.ToInt()) // checked: fits in 256 bits
		st.AddBalance(*op.Address, v, tracing.BalanceChangeUnspecified)
	case SetCode:
		st.SetCode(*op.Address, op.Code, tracing.CodeChangeUnspecified)
	case SetNonce:
		st.SetNonce(*op.Address, uint64(*op.Nonce), tracing.NonceChangeUnspecified)
	case SetStorage:
		st.SetState(*op.Address, *op.Slot, *op.Value)
	}
}
