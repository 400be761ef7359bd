package devchain

import (
	"encoding/binary"

	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"
)

// A dev chain's clock offset (the seconds added to CometBFT's block time)
// rides in each header's extraData: 8 bytes, a big-endian int64, present
// only when not zero. The header is derived from the CometBFT block alone
// (its time and dev transactions), so every node builds the same one; and
// the offset stays out of the state, so moving the clock changes no state
// root and costs no extra block (CometBFT follows a block that changed the
// AppHash with one that carries it).

// Offset is the clock offset a block's header records.
func Offset(h *types.Header) int64 {
	if len(h.Extra) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(h.Extra))
}

// Extra is the extraData recording offset.
func Extra(offset int64) []byte {
	if offset == 0 {
		return nil
	}
	return binary.BigEndian.AppendUint64(nil, uint64(offset))
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
