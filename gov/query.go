package gov

import (
	"bytes"
	"math/big"
	"sort"

	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Deposit is one depositor's deposit on a proposal.
type Deposit struct {
	ProposalID uint64
	Depositor  common.Address
	Amount     *big.Int
}

// Vote is one voter's vote on a proposal.
type Vote struct {
	ProposalID uint64
	Voter      common.Address
	Options    []*govv1.WeightedVoteOption // weights as 18-decimal strings
	Metadata   string
}

// Proposals are the stored proposals, by id.
func Proposals(st module.Reader) []*govv1.Proposal {
	var out []*govv1.Proposal
	for _, id := range ids(st, slots.Word(slotIDs)) {
		if p, ok := GetProposal(st, id); ok {
			out = append(out, p)
		}
	}
	return out
}

// pending are the proposals in their deposit or voting period, by id.
func pending(st module.Reader) []*govv1.Proposal {
	var out []*govv1.Proposal
	for _, id := range ids(st, slots.Word(slotPending)) {
		if p, ok := GetProposal(st, id); ok {
			out = append(out, p)
		}
	}
	return out
}

// Deposits are the deposits on proposal id, by depositor address (a
// proposal's deposits are gone once refunded or burned).
func Deposits(st module.Reader, id uint64) []Deposit {
	var out []Deposit
	for _, d := range addresses(st, id, slotDepositors) {
		out = append(out, Deposit{ProposalID: id, Depositor: d, Amount: DepositOf(st, id, d)})
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Depositor[:], out[j].Depositor[:]) < 0 })
	return out
}

// GetDeposit is depositor's deposit on proposal id, if any.
func GetDeposit(st module.Reader, id uint64, depositor common.Address) (Deposit, bool) {
	a := DepositOf(st, id, depositor)
	return Deposit{ProposalID: id, Depositor: depositor, Amount: a}, a.Sign() > 0
}

// GetVote is voter's vote on proposal id, if any (votes are gone once
// the proposal is tallied).
func GetVote(st module.Reader, id uint64, voter common.Address) (Vote, bool) {
	b := voteBytes(st, id, voter)
	if b == nil {
		return Vote{}, false
	}
	v := new(govv1.Vote)
	if err := proto.Unmarshal(b, v); err != nil {
		return Vote{}, false
	}
	return Vote{ProposalID: id, Voter: voter, Options: v.Options, Metadata: v.Metadata}, true
}

// Votes are the votes on proposal id, by voter address.
func Votes(st module.Reader, id uint64) []Vote {
	var out []Vote
	for _, a := range addresses(st, id, slotVoters) {
		if v, ok := GetVote(st, id, a); ok {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Voter[:], out[j].Voter[:]) < 0 })
	return out
}

// Tally is the tally of proposal id as the SDK's TallyResult query gives
// it: zeros in the deposit period, the running count in the voting period
// (read from package staking's state), the final count afterwards.
func Tally(st module.Reader, id uint64) (*govv1.TallyResult, bool) {
	return tallyWith(st, stakingState{}, id)
}

func tallyWith(st module.Reader, sk Staking, id uint64) (*govv1.TallyResult, bool) {
	p, ok := GetProposal(st, id)
	if !ok {
		return nil, false
	}
	switch p.Status {
	case govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD:
		return emptyTally(), true
	case govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD:
		return tally(st, sk, GetParams(st), id).result, true
	}
	if p.FinalTallyResult == nil {
		return emptyTally(), true
	}
	return p.FinalTallyResult, true
}

// NextProposalID is the id the next proposal will get.
func NextProposalID(st module.Reader) uint64 { return nextID(st) }
