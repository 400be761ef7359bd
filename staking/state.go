// Package staking keeps the validator set, delegations and unbonding
// entries in the EVM state trie, in the storage of a fixed system account,
// so the state root (the CometBFT AppHash) covers them and every node
// agrees. Bonded tokens sit in the balance of the bonded-pool account and
// tokens waiting out the unbonding time in the unbonding-pool account: the
// total supply is conserved and eth_getBalance shows where the tokens are.
//
// Voting power is bonded tokens / 10^18 (integer). There is no slashing and
// no reward distribution, so a delegation is counted in tokens (one share is
// one token).
//
// Module (module.go) is the staking module the app runs (see package
// module): its messages (msgs.go), unbonding maturity and validator
// updates, its app_state section (appstate.go) and its query (query.go).
package staking

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"
)

// System accounts. None has code; each has nonce 1 so EIP-161 never clears
// it when empty.
var (
	// StateAddress holds the staking state in its storage (layout below).
	StateAddress = common.HexToAddress("0x0000000000000000000000000000000000000B00")
	// BondedPool holds the bonded tokens.
	BondedPool = common.HexToAddress("0x0000000000000000000000000000000000000B0D")
	// UnbondingPool holds undelegated tokens until their unbonding time
	// has passed.
	UnbondingPool = common.HexToAddress("0x0000000000000000000000000000000000000B0E")
)

// PowerReduction is the number of base-denomination tokens per unit of
// voting power (10^18: one whole token).
var PowerReduction = big.NewInt(1_000_000_000_000_000_000)

// MaxPower bounds a validator's power well below CometBFT's total voting
// power cap (MaxInt64/8).
const MaxPower = int64(1) << 50

// Storage layout of StateAddress, as Solidity lays out
//
//	uint256 validatorCount;                      // slot 0
//	address[] validatorList;                     // slot 1 (length unused: slot 0 counts)
//	mapping(address => Validator) validators;    // slot 2, by operator
//	mapping(address => address) byConsAddress;   // slot 3: CometBFT address -> operator
//	mapping(address => mapping(address => uint256)) delegations; // slot 4: delegator -> operator -> tokens
//	uint256 queueHead;                           // slot 5: first unbonding entry not yet paid
//	uint256 queueTail;                           // slot 6: next unbonding entry index
//	UnbondingEntry[] queue;                      // slot 7: 4 words each
//	uint256 unbondingTime;                       // slot 8: seconds
//
//	struct Validator {      // word offsets from the mapping slot
//	    uint256 info;       // +0: (index + 1) in the low 64 bits; top byte 1 = no operator
//	    bytes32 consPubKey; // +1: ed25519 key
//	    uint256 tokens;     // +2
//	    address reward;     // +3: fee recipient of the blocks it proposes
//	    uint256 power;      // +4: the power CometBFT was last told
//	    string moniker;     // +5
//	}
//	struct UnbondingEntry { address delegator; address operator; uint256 amount; uint256 completionTime; }
const (
	slotCount     = 0
	slotList      = 1
	slotVals      = 2
	slotByCons    = 3
	slotDelegs    = 4
	slotQueueHead = 5
	slotQueueTail = 6
	slotQueue     = 7
	slotUnbonding = 8
)

// Reader reads storage; *state.StateDB satisfies it.
type Reader interface {
	GetState(common.Address, common.Hash) common.Hash
}

// State is what staking changes; *state.StateDB and the hooked state of a
// block's EVM satisfy it.
type State interface {
	Reader
	SetState(common.Address, common.Hash, common.Hash) common.Hash
	GetBalance(common.Address) *uint256.Int
	AddBalance(common.Address, *uint256.Int, tracing.BalanceChangeReason) uint256.Int
	SubBalance(common.Address, *uint256.Int, tracing.BalanceChangeReason) uint256.Int
	GetNonce(common.Address) uint64
	SetNonce(common.Address, uint64, tracing.NonceChangeReason)
}

func word(n uint64) common.Hash {
	var h common.Hash
	binary.BigEndian.PutUint64(h[24:], n)
	return h
}

func addrWord(a common.Address) common.Hash {
	var h common.Hash
	copy(h[12:], a[:])
	return h
}

func wordUint(h common.Hash) uint64 { return binary.BigEndian.Uint64(h[24:]) }

// mapSlot is Solidity's mapping slot keccak256(key . slot).
func mapSlot(key, slot common.Hash) common.Hash {
	return crypto.Keccak256Hash(key[:], slot[:])
}

// offset is slot + n.
func offset(slot common.Hash, n uint64) common.Hash {
	v := new(uint256.Int).SetBytes32(slot[:])
	v.AddUint64(v, n)
	return v.Bytes32()
}

// arraySlot is element i (of size words) of a dynamic array at slot.
func arraySlot(slot uint64, i, size uint64) common.Hash {
	base := word(slot)
	return offset(crypto.Keccak256Hash(base[:]), i*size)
}

func validatorSlot(op common.Address) common.Hash {
	return mapSlot(addrWord(op), word(slotVals))
}

func delegationSlot(del, op common.Address) common.Hash {
	return mapSlot(addrWord(op), mapSlot(addrWord(del), word(slotDelegs)))
}

func get(st Reader, slot common.Hash) common.Hash { return st.GetState(StateAddress, slot) }

func getBig(st Reader, slot common.Hash) *big.Int {
	v := get(st, slot)
	return new(big.Int).SetBytes(v[:])
}

func set(st State, slot, v common.Hash) { st.SetState(StateAddress, slot, v) }

func setBig(st State, slot common.Hash, v *big.Int) { set(st, slot, common.BigToHash(v)) }

// readString reads a Solidity string at slot.
func readString(st Reader, slot common.Hash) string {
	head := get(st, slot)
	if head[31]&1 == 0 { // short: data in the high bytes, length*2 in the last
		n := int(head[31] / 2)
		return string(head[:n])
	}
	n := new(big.Int).SetBytes(head[:]).Uint64() / 2
	if n > 1<<16 {
		return ""
	}
	data := crypto.Keccak256Hash(slot[:])
	out := make([]byte, 0, n)
	for i := uint64(0); uint64(len(out)) < n; i++ {
		w := get(st, offset(data, i))
		out = append(out, w[:min(32, int(n)-len(out))]...)
	}
	return string(out)
}

// writeString writes a Solidity string at slot (clearing nothing of a
// longer previous value's tail, which readString never reads).
func writeString(st State, slot common.Hash, s string) {
	b := []byte(s)
	if len(b) < 32 {
		var head common.Hash
		copy(head[:], b)
		head[31] = byte(len(b) * 2)
		set(st, slot, head)
		return
	}
	set(st, slot, word(uint64(len(b))*2+1))
	data := crypto.Keccak256Hash(slot[:])
	for i := 0; i*32 < len(b); i++ {
		var w common.Hash
		copy(w[:], b[i*32:])
		set(st, offset(data, uint64(i)), w)
	}
}

// ensureSystemAccounts gives the system accounts nonce 1 so they survive
// being empty.
func ensureSystemAccounts(st State) {
	for _, a := range []common.Address{StateAddress, BondedPool, UnbondingPool} {
		if st.GetNonce(a) == 0 {
			st.SetNonce(a, 1, tracing.NonceChangeGenesis)
		}
	}
}
