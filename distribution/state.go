// Package distribution is the Cosmos SDK's x/distribution (F1 fee
// distribution) on Ember's state trie: at the start of each block it moves
// the fee collector's balance (the previous block's priority fees and this
// block's mint) into the distribution pool and allocates it over the
// previous block's signers by power, with the community tax and the
// proposer reward; each validator's share is split into its commission and
// the rewards of its delegators, which F1 accounts per validator period so
// that a block costs the same however many delegators there are.
//
// Every record lives in the storage of StateAddress (layout below); the
// coins the records account for sit in the balance of Pool.
package distribution

import (
	"encoding/binary"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// System accounts, each with nonce 1 so that EIP-161 never clears it.
var (
	// StateAddress holds the distribution records in its storage.
	StateAddress = common.HexToAddress("0x0000000000000000000000000000000000000B10")
	// Pool holds the coins of the outstanding rewards (commission
	// included) and of the community pool.
	Pool = common.HexToAddress("0x0000000000000000000000000000000000000B11")
	// FeeCollector receives the priority fees of a block and the coins
	// mint creates, until the next begin-block allocates them.
	FeeCollector = common.HexToAddress("0x0000000000000000000000000000000000000B12")
)

// Storage layout of StateAddress, as Solidity lays out
//
//	uint256 communityTax;            // slot 0, Dec raw
//	uint256 baseProposerReward;      // slot 1, Dec raw
//	uint256 bonusProposerReward;     // slot 2, Dec raw
//	uint256 withdrawAddrDisabled;    // slot 3, 1 when MsgSetWithdrawAddress is refused
//	uint256 communityPool;           // slot 4, Dec raw
//	address previousProposer;        // slot 5, CometBFT address
//	mapping(address => Validator) validators;                        // slot 6, by operator
//	mapping(address => mapping(uint256 => Historical)) historical;   // slot 7, operator -> period
//	mapping(address => mapping(address => Starting)) starting;      // slot 8, delegator -> operator
//	mapping(address => address) withdrawAddress;                     // slot 9, by delegator
//	mapping(address => SlashEvent[]) slashes;                        // slot 10, by operator, in order
//	uint256 height;                  // slot 11, the block being executed; 0 between blocks (see height)
//
//	struct Validator {       // word offsets from the mapping slot
//	    uint256 current;     // +0: current rewards, Dec raw
//	    uint256 period;      // +1: current period (0: not initialised)
//	    uint256 commission;  // +2: accumulated commission, Dec raw
//	    uint256 outstanding; // +3: outstanding rewards (commission included), Dec raw
//	    uint256 slashCount;  // +4: length of slashes[operator]
//	}
//	struct Historical { uint256 cumulativeRatio; uint256 referenceCount; } // Dec raw, count
//	struct Starting { uint256 previousPeriodPlusOne; uint256 stake; uint256 height; } // 0 at +0: none
//	struct SlashEvent { uint256 height; uint256 period; uint256 fraction; }       // fraction Dec raw
const (
	slotCommunityTax = iota
	slotBaseProposer
	slotBonusProposer
	slotWithdrawDisabled
	slotCommunityPool
	slotPrevProposer
	slotValidators
	slotHistorical
	slotStarting
	slotWithdrawAddr
	slotSlashes
	slotHeight
)

// Word offsets of a Validator record.
const (
	valCurrent = iota
	valPeriod
	valCommission
	valOutstanding
	valSlashCount
)

func word(n uint64) common.Hash {
	var h common.Hash
	binary.BigEndian.PutUint64(h[24:], n)
	return h
}

func addrWord(a common.Address) common.Hash { return common.BytesToHash(a[:]) }

// mapSlot is Solidity's mapping slot keccak256(key . slot).
func mapSlot(key, slot common.Hash) common.Hash { return crypto.Keccak256Hash(key[:], slot[:]) }

// offset is slot + n.
func offset(slot common.Hash, n uint64) common.Hash {
	v := new(uint256.Int).SetBytes32(slot[:])
	return v.AddUint64(v, n).Bytes32()
}

func validatorSlot(op common.Address, field uint64) common.Hash {
	return offset(mapSlot(addrWord(op), word(slotValidators)), field)
}

func historicalSlot(op common.Address, period uint64) common.Hash {
	return mapSlot(word(period), mapSlot(addrWord(op), word(slotHistorical)))
}

func startingSlot(del, op common.Address) common.Hash {
	return mapSlot(addrWord(op), mapSlot(addrWord(del), word(slotStarting)))
}

// slashSlot is word 0 of slash event i of op (an array element, 3 words).
func slashSlot(op common.Address, i uint64) common.Hash {
	base := mapSlot(addrWord(op), word(slotSlashes))
	return offset(crypto.Keccak256Hash(base[:]), 3*i)
}

func get(st module.Reader, slot common.Hash) common.Hash { return st.GetState(StateAddress, slot) }

func getUint(st module.Reader, slot common.Hash) uint64 {
	v := get(st, slot)
	return new(big.Int).SetBytes(v[:]).Uint64()
}

func getBig(st module.Reader, slot common.Hash) *big.Int {
	v := get(st, slot)
	return new(big.Int).SetBytes(v[:])
}

func getDec(st module.Reader, slot common.Hash) dec.Dec { return dec.FromRaw(getBig(st, slot)) }

func set(st module.State, slot, v common.Hash) { st.SetState(StateAddress, slot, v) }

func setUint(st module.State, slot common.Hash, n uint64) { set(st, slot, word(n)) }

// setDec stores d, which is never negative: the records only hold sums of
// allocations less what was paid out of them.
func setDec(st module.State, slot common.Hash, d dec.Dec) { set(st, slot, common.BigToHash(d.Raw())) }

// Enabled tells whether the chain's genesis has a distribution section,
// which created the state account; without one nothing is allocated and
// priority fees go to the proposer as before.
func Enabled(st module.Reader) bool { return st.GetNonce(StateAddress) != 0 }

// ensureAccounts gives the system accounts nonce 1.
func ensureAccounts(st module.State) {
	for _, a := range []common.Address{StateAddress, Pool, FeeCollector} {
		if st.GetNonce(a) == 0 {
			st.SetNonce(a, 1, tracing.NonceChangeGenesis)
		}
	}
}
