// Package gov is the governance module, the Cosmos SDK's x/gov v1: anyone
// submits a proposal (messages run with the gov account as their signer,
// or a legacy content) with a deposit; once the deposits reach
// min_deposit the bonded stake votes for voting_period; at its end the
// votes are tallied as the SDK tallies them (tally.go), the deposits
// refunded or burned, and a passed proposal's messages executed, all or
// none (abci.go).
//
// Its state lives in the storage of module.GovAuthority (0x…0B50), whose
// balance holds the deposits, so the AppHash covers both. Module
// (module.go) is what the app runs; the read API (query.go) is what
// cosmosapi, the CLI and the explorer read.
package gov

import (
	"math/big"
	"sort"

	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Storage layout of module.GovAuthority, as Solidity lays out
//
//	Params params;                                      // slots 0-13 (params.go; slot 0 zero: the defaults)
//	uint64 nextProposalID;                              // slot 16 (0: 1)
//	uint64[] proposalIDs;                               // slot 17: every stored proposal
//	uint64[] pendingIDs;                                // slot 18: those in their deposit or voting period
//	mapping(uint64 => Record) proposals;                // slot 19
//	mapping(uint64 => address[]) depositors;            // slot 20
//	mapping(uint64 => mapping(address => uint256)) deposits; // slot 21
//	mapping(uint64 => address[]) voters;                // slot 22
//	mapping(uint64 => mapping(address => bytes)) votes; // slot 23: a cosmos.gov.v1.Vote without voter
//
//	struct Record {
//	    uint256 listPos;    // +0: index in proposalIDs + 1 (0: none)
//	    uint256 pendingPos; // +1: index in pendingIDs + 1 (0: not pending)
//	    bytes   proposal;   // +2: the cosmos.gov.v1.Proposal, deterministic protobuf
//	}
//
// A bytes value is its length at its slot and its data from
// keccak256(slot), 32 bytes a word, the last one zero-padded.
const (
	slotNextID     = 16
	slotIDs        = 17
	slotPending    = 18
	slotProposals  = 19
	slotDepositors = 20
	slotDeposits   = 21
	slotVoters     = 22
	slotVotes      = 23
)

var store = slots.Account(module.GovAuthority)

// ensureAccount gives the gov account nonce 1 before the module writes
// to it, so EIP-161 never clears it.
func ensureAccount(st module.State) {
	if st.GetNonce(module.GovAuthority) == 0 {
		st.SetNonce(module.GovAuthority, 1, tracing.NonceChangeGenesis)
	}
}

func idWord(id uint64) common.Hash { return slots.Word(id) }

func recordSlot(id uint64) common.Hash { return slots.Map(idWord(id), slots.Word(slotProposals)) }

func innerSlot(id uint64, a common.Address, slot uint64) common.Hash {
	return slots.Map(slots.AddrWord(a), slots.Map(idWord(id), slots.Word(slot)))
}

func listSlot(id uint64, slot uint64) common.Hash { return slots.Map(idWord(id), slots.Word(slot)) }

// getBytes reads the bytes value at slot.
func getBytes(st module.Reader, slot common.Hash) []byte {
	n := store.Uint(st, slot)
	out := make([]byte, 0, n+31)
	for i := uint64(0); i*32 < n; i++ {
		w := store.Get(st, slots.Elem(slot, i, 1))
		out = append(out, w[:]...)
	}
	return out[:n]
}

// setBytes writes b at slot, zeroing the words the old value used beyond b.
func setBytes(st module.State, slot common.Hash, b []byte) {
	old := store.Uint(st, slot)
	store.SetUint(st, slot, uint64(len(b)))
	words := (uint64(len(b)) + 31) / 32
	for i := uint64(0); i < words; i++ {
		var w common.Hash
		copy(w[:], b[i*32:])
		store.Set(st, slots.Elem(slot, i, 1), w)
	}
	for i := words; i < (old+31)/32; i++ {
		store.Set(st, slots.Elem(slot, i, 1), common.Hash{})
	}
}

// array helpers: a uint256[] or address[] at slot (length at slot).
func arrayLen(st module.Reader, slot common.Hash) uint64 { return store.Uint(st, slot) }

func arrayGet(st module.Reader, slot common.Hash, i uint64) common.Hash {
	return store.Get(st, slots.Elem(slot, i, 1))
}

func arrayPush(st module.State, slot common.Hash, v common.Hash) uint64 {
	n := arrayLen(st, slot)
	store.Set(st, slots.Elem(slot, n, 1), v)
	store.SetUint(st, slot, n+1)
	return n
}

// arrayClear empties the array at slot.
func arrayClear(st module.State, slot common.Hash) {
	for i := uint64(0); i < arrayLen(st, slot); i++ {
		store.Set(st, slots.Elem(slot, i, 1), common.Hash{})
	}
	store.SetUint(st, slot, 0)
}

// nextID is the id the next proposal gets.
func nextID(st module.Reader) uint64 {
	if n := store.Uint(st, slots.Word(slotNextID)); n != 0 {
		return n
	}
	return 1
}

// GetProposal is the proposal id, if stored.
func GetProposal(st module.Reader, id uint64) (*govv1.Proposal, bool) {
	base := recordSlot(id)
	if store.Uint(st, base) == 0 {
		return nil, false
	}
	p := new(govv1.Proposal)
	if err := proto.Unmarshal(getBytes(st, slots.Offset(base, 2)), p); err != nil {
		return nil, false
	}
	return p, true
}

var deterministic = proto.MarshalOptions{Deterministic: true}

// setProposal stores p, adding it to the lists when new and keeping it
// in pendingIDs while it is in its deposit or voting period.
func setProposal(st module.State, p *govv1.Proposal) error {
	b, err := deterministic.Marshal(p)
	if err != nil {
		return err
	}
	ensureAccount(st)
	base := recordSlot(p.Id)
	if store.Uint(st, base) == 0 {
		store.SetUint(st, base, arrayPush(st, slots.Word(slotIDs), idWord(p.Id))+1)
	}
	pending := p.Status == govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD || p.Status == govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD
	switch pos := store.Uint(st, slots.Offset(base, 1)); {
	case pending && pos == 0:
		store.SetUint(st, slots.Offset(base, 1), arrayPush(st, slots.Word(slotPending), idWord(p.Id))+1)
	case !pending && pos != 0:
		removeAt(st, slots.Word(slotPending), pos-1, 1)
		store.SetUint(st, slots.Offset(base, 1), 0)
	}
	setBytes(st, slots.Offset(base, 2), b)
	return nil
}

// removeAt swap-removes element i of the id array at slot, fixing the
// moved id's position (at field posField of its record).
func removeAt(st module.State, slot common.Hash, i uint64, posField uint64) {
	last := arrayLen(st, slot) - 1
	if i != last {
		moved := arrayGet(st, slot, last)
		store.Set(st, slots.Elem(slot, i, 1), moved)
		store.SetUint(st, slots.Offset(recordSlot(slots.WordUint(moved)), posField), i+1)
	}
	store.Set(st, slots.Elem(slot, last, 1), common.Hash{})
	store.SetUint(st, slot, last)
}

// deleteProposal removes proposal id and its record (its deposits and
// votes are gone already).
func deleteProposal(st module.State, id uint64) {
	base := recordSlot(id)
	if pos := store.Uint(st, slots.Offset(base, 1)); pos != 0 {
		removeAt(st, slots.Word(slotPending), pos-1, 1)
	}
	if pos := store.Uint(st, base); pos != 0 {
		removeAt(st, slots.Word(slotIDs), pos-1, 0)
	}
	setBytes(st, slots.Offset(base, 2), nil)
	store.SetUint(st, base, 0)
	store.SetUint(st, slots.Offset(base, 1), 0)
}

// ids reads the id array at slot, sorted.
func ids(st module.Reader, slot common.Hash) []uint64 {
	n := arrayLen(st, slot)
	out := make([]uint64, n)
	for i := range out {
		out[i] = slots.WordUint(arrayGet(st, slot, uint64(i)))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// addresses reads the address array of proposal id at slot.
func addresses(st module.Reader, id uint64, slot uint64) []common.Address {
	s := listSlot(id, slot)
	out := make([]common.Address, arrayLen(st, s))
	for i := range out {
		out[i] = slots.WordAddr(arrayGet(st, s, uint64(i)))
	}
	return out
}

// DepositOf is what depositor deposited on proposal id (zero: nothing).
func DepositOf(st module.Reader, id uint64, depositor common.Address) *big.Int {
	return store.Big(st, innerSlot(id, depositor, slotDeposits))
}

// addDepositRecord adds amount to depositor's deposit on id.
func addDepositRecord(st module.State, id uint64, depositor common.Address, amount *big.Int) {
	s := innerSlot(id, depositor, slotDeposits)
	old := store.Big(st, s)
	if old.Sign() == 0 {
		arrayPush(st, listSlot(id, slotDepositors), slots.AddrWord(depositor))
	}
	store.SetBig(st, s, old.Add(old, amount))
}

// deleteDeposits drops every deposit record of id.
func deleteDeposits(st module.State, id uint64) {
	for _, d := range addresses(st, id, slotDepositors) {
		store.Set(st, innerSlot(id, d, slotDeposits), common.Hash{})
	}
	arrayClear(st, listSlot(id, slotDepositors))
}

// voteBytes is the stored vote of voter on id (nil: none).
func voteBytes(st module.Reader, id uint64, voter common.Address) []byte {
	s := innerSlot(id, voter, slotVotes)
	if store.Uint(st, s) == 0 {
		return nil
	}
	return getBytes(st, s)
}

// setVote stores (or replaces) voter's vote on id.
func setVote(st module.State, id uint64, voter common.Address, v *govv1.Vote) error {
	b, err := deterministic.Marshal(&govv1.Vote{Options: v.Options, Metadata: v.Metadata})
	if err != nil {
		return err
	}
	// an empty encoding would read as no vote; a vote always has options
	s := innerSlot(id, voter, slotVotes)
	if store.Uint(st, s) == 0 {
		arrayPush(st, listSlot(id, slotVoters), slots.AddrWord(voter))
	}
	setBytes(st, s, b)
	return nil
}

// deleteVotes drops every vote on id.
func deleteVotes(st module.State, id uint64) {
	for _, v := range addresses(st, id, slotVoters) {
		setBytes(st, innerSlot(id, v, slotVotes), nil)
	}
	arrayClear(st, listSlot(id, slotVoters))
}
