package api

import (
	"math/big"
	"net/http"
	"sort"
	"strings"
	"time"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/gov"
	"github.com/emberchain/ember/staking"
)

// Governance pages' endpoints (Blockscout has none): the gov module's
// proposals with their tally, votes and deposits, read from the chain's
// state at one block as the validators list is.

// Proposal is one item of /api/v2/proposals. Amounts are decimal strings
// in the base denomination.
type Proposal struct {
	ID          uint64 `json:"id"`
	Title       string `json:"title"`
	Summary     string `json:"summary"`
	Status      string `json:"status"`       // PROPOSAL_STATUS_…, as the SDK's REST
	StatusLabel string `json:"status_label"` // deposit period, voting period, passed, rejected, failed
	Proposer    string `json:"proposer"`     // 0x
	// Messages are the type URLs of what the proposal runs if it passes
	// (a legacy proposal: MsgExecLegacyContent then its content's type).
	Messages        []string   `json:"messages"`
	SubmitTime      string     `json:"submit_time"`
	DepositEndTime  string     `json:"deposit_end_time"`
	VotingStartTime *string    `json:"voting_start_time"`
	VotingEndTime   *string    `json:"voting_end_time"`
	TotalDeposit    string     `json:"total_deposit"`
	Tally           TallyCount `json:"tally"`
	FailedReason    string     `json:"failed_reason"`
}

// TallyCount is a proposal's count of votes, in bonded tokens: running
// while it is in its voting period, final after.
type TallyCount struct {
	Yes        string `json:"yes"`
	No         string `json:"no"`
	Abstain    string `json:"abstain"`
	NoWithVeto string `json:"no_with_veto"`
	Final      bool   `json:"final"`
}

// ProposalList is /api/v2/proposals, newest first.
type ProposalList struct {
	Items       []Proposal `json:"items"`
	BlockNumber uint64     `json:"block_number"`
}

// ProposalDetail is /api/v2/proposals/{id}: the proposal, its votes and
// deposits (both are deleted once it is tallied, as the SDK does), and
// the rules it is tallied by.
type ProposalDetail struct {
	Proposal
	Votes         []ProposalVote    `json:"votes"`
	Deposits      []ProposalDeposit `json:"deposits"`
	BondedTokens  string            `json:"bonded_tokens"` // the bonded validators' tokens now
	MinDeposit    string            `json:"min_deposit"`
	Quorum        string            `json:"quorum"`
	Threshold     string            `json:"threshold"`
	VetoThreshold string            `json:"veto_threshold"`
	BlockNumber   uint64            `json:"block_number"`
}

// ProposalVote is one voter's vote; a single option has weight 1.
type ProposalVote struct {
	Voter       string       `json:"voter"` // 0x
	VoterBech32 string       `json:"voter_bech32"`
	Options     []VoteOption `json:"options"`
}

// VoteOption is one option of a vote and its weight (18 decimals).
type VoteOption struct {
	Option string `json:"option"` // yes, no, abstain, no_with_veto
	Weight string `json:"weight"`
}

// ProposalDeposit is one depositor's deposit.
type ProposalDeposit struct {
	Depositor string `json:"depositor"` // 0x
	Amount    string `json:"amount"`
}

func (h *handlers) govRoutes(mux *http.ServeMux) {
	mux.Handle("GET /api/v2/proposals", h.serve(h.proposals))
	mux.Handle("GET /api/v2/proposals/{id}", h.serve(h.proposal))
}

func (h *handlers) proposals(r *request) (any, error) {
	st, err := h.openChainState(r.Context())
	if err != nil {
		return nil, err
	}
	all := gov.Proposals(st)
	out := ProposalList{Items: make([]Proposal, 0, len(all)), BlockNumber: st.number}
	for i := len(all) - 1; i >= 0; i-- {
		out.Items = append(out.Items, h.proposalItem(st, all[i]))
	}
	return out, st.err
}

func (h *handlers) proposal(r *request) (any, error) {
	id, ok := parseUint(r.PathValue("id"))
	if !ok {
		return nil, invalid("Invalid proposal id")
	}
	st, err := h.openChainState(r.Context())
	if err != nil {
		return nil, err
	}
	p, found := gov.GetProposal(st, id)
	if st.err != nil {
		return nil, st.err
	}
	if !found {
		return nil, &apiError{status: http.StatusNotFound, msg: "Proposal not found"}
	}
	params := gov.GetParams(st)
	out := ProposalDetail{Proposal: h.proposalItem(st, p), Votes: []ProposalVote{}, Deposits: []ProposalDeposit{},
		BondedTokens: bondedTokens(st).String(), MinDeposit: params.MinDeposit.String(),
		Quorum: params.Quorum.String(), Threshold: params.Threshold.String(), VetoThreshold: params.VetoThreshold.String(),
		BlockNumber: st.number}
	for _, v := range gov.Votes(st, id) {
		out.Votes = append(out.Votes, h.voteItem(v))
	}
	for _, d := range gov.Deposits(st, id) {
		out.Deposits = append(out.Deposits, ProposalDeposit{Depositor: d.Depositor.Hex(), Amount: d.Amount.String()})
	}
	return out, st.err
}

func (h *handlers) proposalItem(st *chainState, p *govv1.Proposal) Proposal {
	item := Proposal{ID: p.Id, Title: p.Title, Summary: p.Summary, Status: p.Status.String(), StatusLabel: proposalLabel(p.Status),
		Messages: []string{}, SubmitTime: stamp(p.SubmitTime), DepositEndTime: stamp(p.DepositEndTime),
		VotingStartTime: optStamp(p.VotingStartTime), VotingEndTime: optStamp(p.VotingEndTime),
		TotalDeposit: coinsAmount(p.TotalDeposit).String(), FailedReason: p.FailedReason}
	if a, err := accounts.ParseAddress(h.b.Prefix, p.Proposer); err == nil {
		item.Proposer = a.Hex()
	}
	for _, m := range p.Messages {
		item.Messages = append(item.Messages, m.TypeUrl)
		if m.TypeUrl == gov.TypeMsgExecLegacyContent {
			legacy := new(govv1.MsgExecLegacyContent)
			if m.UnmarshalTo(legacy) == nil && legacy.Content != nil {
				item.Messages = append(item.Messages, legacy.Content.TypeUrl)
			}
		}
	}
	if t, ok := gov.Tally(st, p.Id); ok {
		item.Tally = TallyCount{Yes: t.YesCount, No: t.NoCount, Abstain: t.AbstainCount, NoWithVeto: t.NoWithVetoCount,
			Final: p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD && p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD}
	}
	return item
}

func (h *handlers) voteItem(v gov.Vote) ProposalVote {
	out := ProposalVote{Voter: v.Voter.Hex(), VoterBech32: accounts.Bech32(h.b.Prefix, v.Voter), Options: []VoteOption{}}
	for _, o := range v.Options {
		name := strings.ToLower(strings.TrimPrefix(o.Option.String(), "VOTE_OPTION_"))
		out.Options = append(out.Options, VoteOption{Option: name, Weight: o.Weight})
	}
	sort.SliceStable(out.Options, func(i, j int) bool { return out.Options[i].Option < out.Options[j].Option })
	return out
}

// proposalLabel is the status as the pages name it.
func proposalLabel(s govv1.ProposalStatus) string {
	switch s {
	case govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD:
		return "deposit period"
	case govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD:
		return "voting period"
	case govv1.ProposalStatus_PROPOSAL_STATUS_PASSED:
		return "passed"
	case govv1.ProposalStatus_PROPOSAL_STATUS_REJECTED:
		return "rejected"
	case govv1.ProposalStatus_PROPOSAL_STATUS_FAILED:
		return "failed"
	}
	return "unspecified"
}

// bondedTokens is the bonded validators' tokens, which equal the bonded
// pool's balance (staking keeps them so); the explorer's state reads
// storage, not balances, so it sums the validators.
func bondedTokens(st *chainState) *big.Int {
	sum := new(big.Int)
	for _, v := range staking.All(st) {
		if v.Status == staking.Bonded {
			sum.Add(sum, v.Tokens)
		}
	}
	return sum
}

func coinsAmount(coins []*basev1beta1.Coin) *big.Int {
	sum := new(big.Int)
	for _, c := range coins {
		if v, ok := new(big.Int).SetString(c.Amount, 10); ok {
			sum.Add(sum, v)
		}
	}
	return sum
}

func stamp(t *timestamppb.Timestamp) string {
	if t == nil {
		return ""
	}
	return t.AsTime().UTC().Format(time.RFC3339)
}

func optStamp(t *timestamppb.Timestamp) *string {
	if t == nil || t.AsTime().Unix() <= 0 {
		return nil
	}
	s := stamp(t)
	return &s
}
