// Package staking keeps the validator set, delegations, unbonding
// delegations and redelegations in the EVM state trie, in the storage of a
// fixed system account, so the state root (the CometBFT AppHash) covers
// them and every node agrees. Tokens of bonded validators sit in the
// balance of the bonded-pool account; tokens of unbonding and unbonded
// validators and of unbonding entries sit in the not-bonded pool: the
// total supply is conserved (but for slashing, which burns) and
// eth_getBalance shows where the tokens are.
//
// The rules are the Cosmos SDK's x/staking: a delegation holds shares of
// its validator (a slash lowers the tokens behind every share), the bonded
// set is the top MaxValidators non-jailed validators by power, a validator
// leaving it unbonds for the unbonding time, and every change to a
// delegation is told to the other modules through Hooks.
//
// Module (module.go) is the staking module the app runs (see package
// module): its messages (msgs.go), maturity at the start of each block
// (queue.go), the bonded set at its end (bonded.go), its app_state section
// (appstate.go) and its queries (query.go). Keeper (keeper.go) is what
// slashing calls: Slash, Jail, Unjail (slash.go).
package staking

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// System accounts. None has code; each has nonce 1 so EIP-161 never clears
// it when empty.
var (
	// StateAddress holds the staking state in its storage (layout below).
	StateAddress = common.HexToAddress("0x0000000000000000000000000000000000000B00")
	// BondedPool holds the tokens of bonded validators.
	BondedPool = common.HexToAddress("0x0000000000000000000000000000000000000B0D")
	// NotBondedPool holds the tokens of unbonding and unbonded validators
	// and the balances of unbonding entries.
	NotBondedPool = common.HexToAddress("0x0000000000000000000000000000000000000B0E")
	// UnbondingPool is NotBondedPool's former name.
	UnbondingPool = NotBondedPool
)

// store is StateAddress's storage, laid out as described below.
var store = slots.Account(StateAddress)

// PowerReduction is the number of base-denomination tokens per unit of
// voting power (10^18: one whole token).
var PowerReduction = big.NewInt(1_000_000_000_000_000_000)

// MaxPower bounds a validator's power well below CometBFT's total voting
// power cap (MaxInt64/8).
const MaxPower = int64(1) << 50

// Storage layout of StateAddress, as Solidity lays out
//
//	uint256 validatorCount;                                   // slot 0
//	address[] validatorList;                                  // slot 1, creation order (length: slot 0)
//	mapping(address => Validator) validators;                 // slot 2, by operator
//	mapping(address => address) byConsAddress;                // slot 3: CometBFT address -> operator
//	mapping(address => mapping(address => uint256)) shares;   // slot 4: delegator -> operator -> Dec raw
//	Params params;                                            // slot 5 (6 words)
//	mapping(address => Set) validatorDelegators;              // slot 6: operator -> delegators
//	mapping(address => Set) delegatorValidators;              // slot 7: delegator -> operators
//	mapping(address => mapping(address => UBDEntry[])) ubds;  // slot 8: delegator -> operator -> entries
//	mapping(address => Set) ubdDelegators;                    // slot 9: operator -> delegators with entries
//	mapping(address => Set) ubdValidators;                    // slot 10: delegator -> operators with entries
//	mapping(address => mapping(address => mapping(address => REDEntry[]))) reds; // slot 11: del -> src -> dst
//	mapping(address => Set) redDelegators;                    // slot 12: src -> delegators with entries from it
//	mapping(address => Set) redSources;                       // slot 13: delegator -> srcs with entries
//	mapping(address => mapping(address => Set)) redDsts;      // slot 14: delegator -> src -> dsts
//	mapping(address => mapping(address => uint256)) incoming; // slot 15: delegator -> dst -> (src, dst) records
//	uint256 queueHead;                                        // slot 16: earliest pending time (unix ns; 0: empty)
//	uint256 queueTail;                                        // slot 17: latest pending time
//	mapping(uint256 => Bucket) queue;                         // slot 18: time -> bucket
//	uint256 lastUnbondingID;                                  // slot 19
//
//	struct Validator {       // word offsets from the mapping slot
//	    uint256 info;        // +0: (index + 1) in the low 64 bits; byte 0: 1 = no operator;
//	                         //     byte 1: BondStatus (1 unbonded, 2 unbonding, 3 bonded); byte 2: 1 = jailed
//	    bytes32 consPubKey;  // +1: ed25519 key
//	    uint256 tokens;      // +2
//	    uint256 shares;      // +3: delegator shares, Dec raw
//	    address reward;      // +4: fee recipient of the blocks it proposes
//	    uint256 power;       // +5: the power CometBFT was last told
//	    uint256 unbondingHeight;   // +6
//	    uint256 unbondingTime;     // +7: unix ns
//	    uint256 rate, maxRate, maxChangeRate; // +8, +9, +10: Dec raw
//	    uint256 commissionUpdate;  // +11: unix ns
//	    uint256 minSelfDelegation; // +12
//	    uint256 creationHeight;    // +13
//	    string moniker, identity, website, securityContact, details; // +14 .. +18
//	}
//	struct Params { uint256 unbondingTime /* s */; uint256 maxValidators; uint256 maxEntries;
//	                uint256 historicalEntries; uint256 minCommissionRate /* Dec raw */; string bondDenom; }
//	struct Set { uint256 length; mapping(bytes32 => uint256) position; } // elements at keccak(slot), position = index + 1
//	struct UBDEntry { creationHeight; completionTime /* ns */; initialBalance; balance; unbondingID; } // 5 words
//	struct REDEntry { creationHeight; completionTime /* ns */; initialBalance; sharesDst /* Dec raw */; } // 4 words
//	struct Bucket { uint256 next; Item[] items; } // items: {kind(byte 0) | delegator; validator (src); dst}
//
// A dynamic array's length is at its slot, its elements from keccak(slot),
// as Solidity lays them out.
const (
	slotCount       = 0
	slotList        = 1
	slotVals        = 2
	slotByCons      = 3
	slotShares      = 4
	slotParams      = 5
	slotValDels     = 6
	slotDelVals     = 7
	slotUBDs        = 8
	slotUBDDels     = 9
	slotUBDVals     = 10
	slotReds        = 11
	slotRedDels     = 12
	slotRedSrcs     = 13
	slotRedDsts     = 14
	slotIncoming    = 15
	slotQueueHead   = 16
	slotQueueTail   = 17
	slotQueue       = 18
	slotUnbondingID = 19
)

// mapSlot2 is the slot of m[a][b] of the mapping at slot.
func mapSlot2(a, b common.Address, slot uint64) common.Hash {
	return slots.Map(slots.AddrWord(b), slots.Map(slots.AddrWord(a), slots.Word(slot)))
}

// readString reads a Solidity string at slot.
func readString(st module.Reader, slot common.Hash) string {
	head := store.Get(st, slot)
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
		w := store.Get(st, slots.Offset(data, i))
		out = append(out, w[:min(32, int(n)-len(out))]...)
	}
	return string(out)
}

// writeString writes a Solidity string at slot (clearing nothing of a
// longer previous value's tail, which readString never reads).
func writeString(st module.State, slot common.Hash, s string) {
	b := []byte(s)
	if len(b) < 32 {
		var head common.Hash
		copy(head[:], b)
		head[31] = byte(len(b) * 2)
		store.Set(st, slot, head)
		return
	}
	store.Set(st, slot, slots.Word(uint64(len(b))*2+1))
	data := crypto.Keccak256Hash(slot[:])
	for i := 0; i*32 < len(b); i++ {
		var w common.Hash
		copy(w[:], b[i*32:])
		store.Set(st, slots.Offset(data, uint64(i)), w)
	}
}

// addrSet is an enumerable set of addresses at a slot (struct Set above):
// adding and removing cost a few words whatever its size, and its order
// (insertion order, the last element moved into a removed one's place)
// depends only on the operations, so every node lists it alike.
type addrSet struct{ base common.Hash }

func setOf(slot uint64, owner common.Address) addrSet {
	return addrSet{slots.Map(slots.AddrWord(owner), slots.Word(slot))}
}

func setOf2(slot uint64, a, b common.Address) addrSet { return addrSet{mapSlot2(a, b, slot)} }

func (s addrSet) posSlot(a common.Address) common.Hash {
	return slots.Map(slots.AddrWord(a), slots.Offset(s.base, 1))
}

func (s addrSet) Len(st module.Reader) uint64 { return store.Uint(st, s.base) }

func (s addrSet) Has(st module.Reader, a common.Address) bool {
	return store.Uint(st, s.posSlot(a)) != 0
}

func (s addrSet) List(st module.Reader) []common.Address {
	n := s.Len(st)
	out := make([]common.Address, 0, n)
	for i := uint64(0); i < n; i++ {
		out = append(out, slots.WordAddr(store.Get(st, slots.Elem(s.base, i, 1))))
	}
	return out
}

func (s addrSet) Add(st module.State, a common.Address) {
	if s.Has(st, a) {
		return
	}
	n := s.Len(st)
	store.Set(st, slots.Elem(s.base, n, 1), slots.AddrWord(a))
	store.SetUint(st, s.posSlot(a), n+1)
	store.SetUint(st, s.base, n+1)
}

func (s addrSet) Remove(st module.State, a common.Address) {
	pos := store.Uint(st, s.posSlot(a))
	if pos == 0 {
		return
	}
	n := s.Len(st)
	if pos != n { // move the last element into the hole
		last := store.Get(st, slots.Elem(s.base, n-1, 1))
		store.Set(st, slots.Elem(s.base, pos-1, 1), last)
		store.SetUint(st, s.posSlot(slots.WordAddr(last)), pos)
	}
	store.Set(st, slots.Elem(s.base, n-1, 1), common.Hash{})
	store.Set(st, s.posSlot(a), common.Hash{})
	store.SetUint(st, s.base, n-1)
}

// ensureSystemAccounts gives the system accounts nonce 1 so they survive
// being empty.
func ensureSystemAccounts(st module.State) {
	for _, a := range []common.Address{StateAddress, BondedPool, NotBondedPool} {
		if st.GetNonce(a) == 0 {
			st.SetNonce(a, 1, tracing.NonceChangeGenesis)
		}
	}
}

// transfer moves amount between accounts, failing when from lacks it.
func transfer(st module.State, from, to common.Address, amount *big.Int) error {
	a, overflow := uint256.FromBig(amount)
	if overflow || amount.Sign() < 0 {
		return codedErr(CodeBadDelegation, "invalid delegation amount").WithDetail("amount %v out of range", amount)
	}
	if st.GetBalance(from).Cmp(a) < 0 {
		return module.SDKError(module.CodeInsufficientFunds, "spendable balance %s is smaller than %s", st.GetBalance(from).Dec(), a.Dec())
	}
	st.SubBalance(from, a, tracing.BalanceChangeTransfer)
	st.AddBalance(to, a, tracing.BalanceChangeTransfer)
	return nil
}
