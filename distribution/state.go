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
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
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

// store is StateAddress's storage, laid out as described below.
var store = slots.Account(StateAddress)

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

func validatorSlot(op common.Address, field uint64) common.Hash {
	return slots.Offset(slots.Map(slots.AddrWord(op), slots.Word(slotValidators)), field)
}

func historicalSlot(op common.Address, period uint64) common.Hash {
	return slots.Map(slots.Word(period), slots.Map(slots.AddrWord(op), slots.Word(slotHistorical)))
}

func startingSlot(del, op common.Address) common.Hash {
	return slots.Map(slots.AddrWord(op), slots.Map(slots.AddrWord(del), slots.Word(slotStarting)))
}

// slashSlot is word 0 of slash event i of op (an array element, 3 words).
func slashSlot(op common.Address, i uint64) common.Hash {
	base := slots.Map(slots.AddrWord(op), slots.Word(slotSlashes))
	return slots.Offset(crypto.Keccak256Hash(base[:]), 3*i)
}

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
