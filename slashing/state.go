// Package slashing punishes validators, as the Cosmos SDK's x/slashing and
// x/evidence do for CometBFT's reports: double signing (the evidence a
// block carries) is slashed, jailed for ever and tombstoned; downtime (too
// many blocks missed in a sliding window of the last commits) is slashed
// and jailed for a while, after which the operator may unjail with
// MsgUnjail. Staking does the slashing and jailing itself (Keeper); this
// package decides when, and keeps its parameters, each validator's signing
// info and its missed-blocks bitmap in the state trie, in the storage of a
// system account (StateAddress), so the AppHash covers them.
//
// Module (module.go) is the module the app runs: begin-block work
// (evidence.go, liveness.go), MsgUnjail (unjail.go), its app_state section
// (params.go). Queries read the state through Params, GetSigningInfo and
// SigningInfos (cosmosapi serves them).
package slashing

import (
	"encoding/binary"
	"math/big"
	"math/bits"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// StateAddress holds the slashing state in its storage. It has no code and
// nonce 1, so EIP-161 never clears it.
var StateAddress = common.HexToAddress("0x0000000000000000000000000000000000000B30")

// Storage layout of StateAddress, as Solidity lays out
//
//	uint64 signedBlocksWindow;                   // slot 0 (0: never set, Params are the defaults)
//	uint256 minSignedPerWindow;                  // slot 1: Dec raw
//	uint64 downtimeJailDuration;                 // slot 2: nanoseconds
//	uint256 slashFractionDoubleSign;             // slot 3: Dec raw
//	uint256 slashFractionDowntime;               // slot 4: Dec raw
//	uint256 infoCount;                           // slot 5
//	address[] infoList;                          // slot 6: CometBFT addresses in creation order (length in slot 5)
//	mapping(address => SigningInfo) infos;       // slot 7, by CometBFT address
//	mapping(address => uint256[]) missed;        // slot 8: bit i of the window is bit i%256 of word i/256
//
//	struct SigningInfo {  // two words
//	    // +0: bytes 0-7 list index + 1 (0: no info), 8-15 start height,
//	    //     16-23 index offset, 24-31 missed blocks counter
//	    // +1: bytes 0-7 jailed-until unix seconds, 8-11 its nanoseconds,
//	    //     12-19 the last height whose votes named the validator,
//	    //     31 tombstoned (1)
//	}
//
// Integers are big-endian; int64 values are stored as their uint64 bits.
const (
	slotWindow     = 0
	slotMinSigned  = 1
	slotJailTime   = 2
	slotDoubleSign = 3
	slotDowntime   = 4
	slotInfoCount  = 5
	slotInfoList   = 6
	slotInfos      = 7
	slotMissed     = 8
	bitsPerWord    = 256
	tombstonedByte = 31
)

// SigningInfo is a validator's liveness record (the SDK's
// ValidatorSigningInfo).
type SigningInfo struct {
	Address     common.Address // CometBFT address
	StartHeight int64          // first height counted (see liveness.go)
	// IndexOffset counts the blocks the validator was expected to sign
	// since the window last restarted; IndexOffset % window is the bit of
	// the next one.
	IndexOffset int64
	JailedUntil time.Time // the earliest unjail (UTC)
	Tombstoned  bool      // double-signed: jailed for ever
	// MissedBlocksCounter is the number of bits set in the bitmap.
	MissedBlocksCounter int64

	lastSeen int64  // the last height whose votes named it
	listPos  uint64 // index in infoList + 1
}

// store is StateAddress's storage, laid out as described above.
var store = slots.Account(StateAddress)

// mapSlot is the slot of m[key] for the mapping at slot.
func mapSlot(key common.Address, slot uint64) common.Hash {
	return slots.Map(slots.AddrWord(key), slots.Word(slot))
}

func listSlot(i uint64) common.Hash { return slots.Elem(slots.Word(slotInfoList), i, 1) }

// ensureAccount gives StateAddress nonce 1 before the module writes to it.
func ensureAccount(st module.State) {
	if st.GetNonce(StateAddress) == 0 {
		st.SetNonce(StateAddress, 1, tracing.NonceChangeGenesis)
	}
}

// GetSigningInfo is the signing info of the validator with CometBFT
// address cons.
func GetSigningInfo(st module.Reader, cons common.Address) (SigningInfo, bool) {
	base := mapSlot(cons, slotInfos)
	w0, w1 := store.Get(st, base), store.Get(st, slots.Offset(base, 1))
	pos := binary.BigEndian.Uint64(w0[0:8])
	if pos == 0 {
		return SigningInfo{}, false
	}
	return SigningInfo{
		Address:             cons,
		listPos:             pos,
		StartHeight:         int64(binary.BigEndian.Uint64(w0[8:16])),
		IndexOffset:         int64(binary.BigEndian.Uint64(w0[16:24])),
		MissedBlocksCounter: int64(binary.BigEndian.Uint64(w0[24:32])),
		JailedUntil:         time.Unix(int64(binary.BigEndian.Uint64(w1[0:8])), int64(binary.BigEndian.Uint32(w1[8:12]))).UTC(),
		lastSeen:            int64(binary.BigEndian.Uint64(w1[12:20])),
		Tombstoned:          w1[tombstonedByte] == 1,
	}, true
}

// IsTombstoned tells whether the validator with CometBFT address cons
// double-signed: staking refuses new delegations to it.
func IsTombstoned(st module.Reader, cons common.Address) bool {
	info, ok := GetSigningInfo(st, cons)
	return ok && info.Tombstoned
}

// setSigningInfo writes info, adding it to the list when it is new.
func setSigningInfo(st module.State, info *SigningInfo) {
	if info.listPos == 0 {
		n := store.Uint(st, slots.Word(slotInfoCount))
		store.Set(st, listSlot(n), slots.AddrWord(info.Address))
		store.SetUint(st, slots.Word(slotInfoCount), n+1)
		info.listPos = n + 1
	}
	var w0, w1 common.Hash
	binary.BigEndian.PutUint64(w0[0:8], info.listPos)
	binary.BigEndian.PutUint64(w0[8:16], uint64(info.StartHeight))
	binary.BigEndian.PutUint64(w0[16:24], uint64(info.IndexOffset))
	binary.BigEndian.PutUint64(w0[24:32], uint64(info.MissedBlocksCounter))
	binary.BigEndian.PutUint64(w1[0:8], uint64(info.JailedUntil.Unix()))
	binary.BigEndian.PutUint32(w1[8:12], uint32(info.JailedUntil.Nanosecond()))
	binary.BigEndian.PutUint64(w1[12:20], uint64(info.lastSeen))
	if info.Tombstoned {
		w1[tombstonedByte] = 1
	}
	base := mapSlot(info.Address, slotInfos)
	store.Set(st, base, w0)
	store.Set(st, slots.Offset(base, 1), w1)
}

// newSigningInfo is the record of a validator first met at height: not
// jailed (jailed_until is the Unix epoch, as the SDK's default).
func newSigningInfo(cons common.Address, height int64) SigningInfo {
	return SigningInfo{Address: cons, StartHeight: height, JailedUntil: time.Unix(0, 0).UTC()}
}

// SigningInfoCount is the number of validators with signing info.
func SigningInfoCount(st module.Reader) uint64 { return store.Uint(st, slots.Word(slotInfoCount)) }

// SigningInfos are the signing infos from list position start (creation
// order), at most limit of them.
func SigningInfos(st module.Reader, start, limit uint64) []SigningInfo {
	n := SigningInfoCount(st)
	var out []SigningInfo
	for i := start; i < n && uint64(len(out)) < limit; i++ {
		cons := common.BytesToAddress(store.Get(st, listSlot(i)).Bytes())
		if info, ok := GetSigningInfo(st, cons); ok {
			out = append(out, info)
		}
	}
	return out
}

// missedWord is the slot of the bitmap word that holds bit index.
func missedWord(cons common.Address, index int64) (common.Hash, uint) {
	return slots.Offset(mapSlot(cons, slotMissed), uint64(index)/bitsPerWord), uint(uint64(index) % bitsPerWord)
}

// Missed tells whether bit index of the validator's window is set (the
// block at that position was missed).
func Missed(st module.Reader, cons common.Address, index int64) bool {
	slot, bit := missedWord(cons, index)
	w := store.Get(st, slot)
	return new(big.Int).SetBytes(w[:]).Bit(int(bit)) == 1
}

func setMissed(st module.State, cons common.Address, index int64, missed bool) {
	slot, bit := missedWord(cons, index)
	w := store.Get(st, slot)
	v := new(big.Int).SetBytes(w[:])
	var b uint
	if missed {
		b = 1
	}
	store.Set(st, slot, common.BigToHash(v.SetBit(v, int(bit), b)))
}

// clearMissed zeroes the validator's bitmap: it stops once it has cleared
// as many bits as the counter says are set, so a validator with few misses
// costs few reads even over a long window.
func clearMissed(st module.State, cons common.Address, window, count int64) {
	base := mapSlot(cons, slotMissed)
	for i := uint64(0); count > 0 && i*bitsPerWord < uint64(window); i++ {
		slot := slots.Offset(base, i)
		w := store.Get(st, slot)
		if w == (common.Hash{}) {
			continue
		}
		count -= int64(popCount(w))
		store.Set(st, slot, common.Hash{})
	}
}

// popCount is the number of bits set in w.
func popCount(w common.Hash) int {
	n := 0
	for i := 0; i < len(w); i += 8 {
		n += bits.OnesCount64(binary.BigEndian.Uint64(w[i : i+8]))
	}
	return n
}
