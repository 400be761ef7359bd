package cosmosapi

import (
	"context"
	"testing"
	"time"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/gov"
	"github.com/emberchain/ember/module"
)

// govState: proposal 1 (v1beta1 text) voting with deposits of two
// accounts and two votes, proposal 2 (v1, a gov MsgUpdateParams) in its
// deposit period.
func govState(t *testing.T) *state.StateDB {
	t.Helper()
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	a, b := common.Address{0xa}, common.Address{0xb}
	for _, x := range []common.Address{a, b} {
		st.AddBalance(x, uint256.NewInt(1e9), 0)
	}
	m := &gov.Module{}
	r := module.NewRouter()
	for _, h := range m.Msgs() {
		r.Register(h)
	}
	m.Router = func() *module.Router { return r }
	env := &module.Env{Prefix: "ember", Denom: "aember", Height: 5, Time: time.Unix(1_700_000_000, 0).UTC()}
	pack := func(p proto.Message) *anypb.Any {
		v, _ := proto.Marshal(p)
		return &anypb.Any{TypeUrl: "/" + string(proto.MessageName(p)), Value: v}
	}
	coins := func(n string) []*basev1beta1.Coin { return []*basev1beta1.Coin{{Denom: "aember", Amount: n}} }
	acc := func(x common.Address) string { return accounts.Bech32("ember", x) }
	for _, msg := range []proto.Message{
		&govv1beta1.MsgSubmitProposal{Content: pack(&govv1beta1.TextProposal{Title: "t", Description: "d"}), InitialDeposit: coins("4000000"), Proposer: acc(a)},
		&govv1.MsgDeposit{ProposalId: 1, Depositor: acc(b), Amount: coins("6000000")},
		&govv1.MsgVote{ProposalId: 1, Voter: acc(a), Option: govv1.VoteOption_VOTE_OPTION_YES},
		&govv1beta1.MsgVoteWeighted{ProposalId: 1, Voter: acc(b), Options: []*govv1beta1.WeightedVoteOption{
			{Option: govv1beta1.VoteOption_VOTE_OPTION_NO, Weight: "250000000000000000"}, {Option: govv1beta1.VoteOption_VOTE_OPTION_ABSTAIN, Weight: "750000000000000000"}}},
		&govv1.MsgSubmitProposal{Messages: []*anypb.Any{pack(&govv1.MsgUpdateParams{Authority: acc(module.GovAuthority), Params: gov.DefaultParams().Proto("ember", "aember")})},
			InitialDeposit: coins("1"), Proposer: acc(b), Title: "p", Summary: "s"},
	} {
		dm, err := r.Decode(pack(msg), module.Codec{Prefix: "ember", Denom: "aember"})
		if err != nil {
			t.Fatal(err)
		}
		if err := dm.Exec(st, &module.MsgContext{Env: env, Events: module.NewEvents("ember", "aember"), Index: "0"}); err != nil {
			t.Fatalf("%s: %v", proto.MessageName(msg), err)
		}
	}
	return st
}

// TestGovQueries: both services over abci_query: filters, pagination,
// the v1beta1 shapes, the SDK's refusals.
func TestGovQueries(t *testing.T) {
	r := NewRouter(func() int64 { return 7 })
	Register(r, stateBackend{st: govState(t)})
	call := func(path string, req, out proto.Message) *abci.ResponseQuery {
		t.Helper()
		data, _ := proto.Marshal(req)
		res, ok := r.ABCIQuery(context.Background(), &abci.RequestQuery{Path: path, Data: data})
		if !ok {
			t.Fatalf("%s not registered", path)
		}
		if res.Code == 0 {
			if err := proto.Unmarshal(res.Value, out); err != nil {
				t.Fatal(err)
			}
		}
		return res
	}
	const v1, v1beta1 = "/cosmos.gov.v1.Query/", "/cosmos.gov.v1beta1.Query/"
	var props govv1.QueryProposalsResponse
	call(v1+"Proposals", &govv1.QueryProposalsRequest{}, &props)
	if len(props.Proposals) != 2 || props.Pagination.Total != 2 || props.Proposals[0].Status != govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD ||
		props.Proposals[1].Status != govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD {
		t.Fatalf("proposals %v", props.Proposals)
	}
	call(v1+"Proposals", &govv1.QueryProposalsRequest{ProposalStatus: govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD}, &props)
	if len(props.Proposals) != 1 || props.Proposals[0].Id != 2 {
		t.Fatalf("deposit-period proposals %v", props.Proposals)
	}
	call(v1+"Proposals", &govv1.QueryProposalsRequest{Voter: accounts.Bech32("ember", common.Address{0xb})}, &props)
	if len(props.Proposals) != 1 || props.Proposals[0].Id != 1 {
		t.Fatalf("proposals voted by b %v", props.Proposals)
	}
	call(v1+"Proposals", &govv1.QueryProposalsRequest{Pagination: &queryv1beta1.PageRequest{Limit: 1}}, &props)
	if len(props.Proposals) != 1 || props.Proposals[0].Id != 1 || len(props.Pagination.NextKey) == 0 {
		t.Fatalf("first page %v %v", props.Proposals, props.Pagination)
	}
	var legacy govv1beta1.QueryProposalResponse
	call(v1beta1+"Proposal", &govv1beta1.QueryProposalRequest{ProposalId: 1}, &legacy)
	if legacy.Proposal.Content.TypeUrl != "/cosmos.gov.v1beta1.TextProposal" || legacy.Proposal.TotalDeposit[0].Amount != "10000000" {
		t.Fatalf("v1beta1 proposal %v", legacy.Proposal)
	}
	var votes govv1beta1.QueryVotesResponse
	call(v1beta1+"Votes", &govv1beta1.QueryVotesRequest{ProposalId: 1}, &votes)
	if len(votes.Votes) != 2 || votes.Votes[0].Option != govv1beta1.VoteOption_VOTE_OPTION_YES || votes.Votes[1].Options[0].Weight != "250000000000000000" {
		t.Fatalf("v1beta1 votes %v", votes.Votes)
	}
	var vote govv1.QueryVoteResponse
	call(v1+"Vote", &govv1.QueryVoteRequest{ProposalId: 1, Voter: accounts.Bech32("ember", common.Address{0xb})}, &vote)
	if len(vote.Vote.Options) != 2 || vote.Vote.Options[1].Weight != "0.750000000000000000" {
		t.Fatalf("v1 vote %v", vote.Vote)
	}
	var deps govv1.QueryDepositsResponse
	call(v1+"Deposits", &govv1.QueryDepositsRequest{ProposalId: 1}, &deps)
	if len(deps.Deposits) != 2 || deps.Deposits[0].Amount[0].Amount != "4000000" || deps.Deposits[1].Amount[0].Amount != "6000000" {
		t.Fatalf("deposits %v", deps.Deposits)
	}
	var tally govv1.QueryTallyResultResponse
	call(v1+"TallyResult", &govv1.QueryTallyResultRequest{ProposalId: 2}, &tally)
	if tally.Tally.YesCount != "0" || tally.Tally.NoWithVetoCount != "0" {
		t.Fatalf("deposit-period tally %v", tally.Tally)
	}
	var params govv1.QueryParamsResponse
	call(v1+"Params", &govv1.QueryParamsRequest{ParamsType: "voting"}, &params)
	if params.VotingParams.VotingPeriod.AsDuration() != 48*time.Hour || params.Params.Quorum != "0.334000000000000000" {
		t.Fatalf("params %v", &params)
	}
	for _, c := range []struct {
		path string
		req  proto.Message
		code uint32
		log  string
	}{
		{v1 + "Proposal", &govv1.QueryProposalRequest{ProposalId: 9}, 38, "rpc error: code = NotFound desc = proposal 9 doesn't exist: key not found"},
		{v1 + "Proposal", &govv1.QueryProposalRequest{}, 18, "rpc error: code = InvalidArgument desc = proposal id can not be 0: invalid request"},
		{v1 + "Deposit", &govv1.QueryDepositRequest{ProposalId: 2, Depositor: accounts.Bech32("ember", common.Address{0xa})}, 18,
			"rpc error: code = InvalidArgument desc = depositer: " + accounts.Bech32("ember", common.Address{0xa}) + " not found for proposal: 2: invalid request"},
		{v1 + "Params", &govv1.QueryParamsRequest{ParamsType: "x"}, 18, "rpc error: code = InvalidArgument desc = unknown params type: x: invalid request"},
		{v1beta1 + "Params", &govv1beta1.QueryParamsRequest{}, 18, "rpc error: code = InvalidArgument desc =  is not a valid parameter type: invalid request"},
	} {
		if res := call(c.path, c.req, nil); res.Code != c.code || res.Log != c.log {
			t.Errorf("%s %v: %d %q; want %d %q", c.path, c.req, res.Code, res.Log, c.code, c.log)
		}
	}
}
