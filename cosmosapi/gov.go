package cosmosapi

import (
	"context"
	"encoding/binary"
	"math/big"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/gov"
	"github.com/emberchain/ember/module"
)

// govServer serves cosmos.gov.v1.Query; govLegacyServer the v1beta1 one
// over the same reads.
type govServer struct {
	govv1.UnimplementedQueryServer
	b Backend
}

type govLegacyServer struct {
	govv1beta1.UnimplementedQueryServer
	b Backend
}

// idKey is a proposal id as a page key: ids order as their keys do.
func idKey(id uint64) common.Address {
	var a common.Address
	binary.BigEndian.PutUint64(a[12:], id)
	return a
}

func checkID(id uint64) error {
	if id == 0 {
		return invalid("proposal id can not be 0")
	}
	return nil
}

// proposalsFiltered are the proposals the SDK's Proposals query selects:
// by status (when a valid one is given), voter and depositor.
func proposalsFiltered(st module.Reader, b Backend, status govv1.ProposalStatus, voter, depositor string) ([]*govv1.Proposal, error) {
	var va, da *common.Address
	for _, f := range []struct {
		s  string
		to **common.Address
	}{{voter, &va}, {depositor, &da}} {
		if f.s == "" {
			continue
		}
		a, err := parseAccount(b, f.s)
		if err != nil {
			return nil, err
		}
		*f.to = &a
	}
	var out []*govv1.Proposal
	for _, p := range gov.Proposals(st) {
		if status != govv1.ProposalStatus_PROPOSAL_STATUS_UNSPECIFIED && status <= govv1.ProposalStatus_PROPOSAL_STATUS_FAILED && p.Status != status {
			continue
		}
		if va != nil {
			if _, ok := gov.GetVote(st, p.Id, *va); !ok {
				continue
			}
		}
		if da != nil {
			if _, ok := gov.GetDeposit(st, p.Id, *da); !ok {
				continue
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func (s *govServer) Constitution(context.Context, *govv1.QueryConstitutionRequest) (*govv1.QueryConstitutionResponse, error) {
	return &govv1.QueryConstitutionResponse{}, nil
}

func (s *govServer) Proposal(ctx context.Context, req *govv1.QueryProposalRequest) (*govv1.QueryProposalResponse, error) {
	p, err := getProposal(ctx, s.b, req.GetProposalId())
	if err != nil {
		return nil, err
	}
	return &govv1.QueryProposalResponse{Proposal: p}, nil
}

func getProposal(ctx context.Context, b Backend, id uint64) (*govv1.Proposal, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	st, err := openState(ctx, b)
	if err != nil {
		return nil, err
	}
	p, ok := gov.GetProposal(st, id)
	if !ok {
		return nil, status.Errorf(codes.NotFound, "proposal %d doesn't exist", id)
	}
	return p, nil
}

func (s *govServer) Proposals(ctx context.Context, req *govv1.QueryProposalsRequest) (*govv1.QueryProposalsResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	ps, err := proposalsFiltered(st, s.b, req.GetProposalStatus(), req.GetVoter(), req.GetDepositor())
	if err != nil {
		return nil, err
	}
	items := make([]keyed[*govv1.Proposal], len(ps))
	for i, p := range ps {
		items[i] = keyed[*govv1.Proposal]{key: idKey(p.Id), item: p}
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &govv1.QueryProposalsResponse{Proposals: out, Pagination: page}, nil
}

func (s *govServer) vote(v gov.Vote) *govv1.Vote {
	return &govv1.Vote{ProposalId: v.ProposalID, Voter: accounts.Bech32(s.b.Prefix(), v.Voter), Options: v.Options, Metadata: v.Metadata}
}

// findVote reads voter's vote on id, with the SDK's refusals.
func findVote(ctx context.Context, b Backend, id uint64, voter string) (gov.Vote, error) {
	if err := checkID(id); err != nil {
		return gov.Vote{}, err
	}
	if voter == "" {
		return gov.Vote{}, invalid("empty voter address")
	}
	a, err := parseAccount(b, voter)
	if err != nil {
		return gov.Vote{}, err
	}
	st, err := openState(ctx, b)
	if err != nil {
		return gov.Vote{}, err
	}
	v, ok := gov.GetVote(st, id, a)
	if !ok {
		return gov.Vote{}, invalid("voter: %v not found for proposal: %v", voter, id)
	}
	return v, nil
}

func (s *govServer) Vote(ctx context.Context, req *govv1.QueryVoteRequest) (*govv1.QueryVoteResponse, error) {
	v, err := findVote(ctx, s.b, req.GetProposalId(), req.GetVoter())
	if err != nil {
		return nil, err
	}
	return &govv1.QueryVoteResponse{Vote: s.vote(v)}, nil
}

// votesOf are the votes on id keyed by voter.
func votesOf(ctx context.Context, b Backend, id uint64) ([]gov.Vote, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	st, err := openState(ctx, b)
	if err != nil {
		return nil, err
	}
	return gov.Votes(st, id), nil
}

func (s *govServer) Votes(ctx context.Context, req *govv1.QueryVotesRequest) (*govv1.QueryVotesResponse, error) {
	vs, err := votesOf(ctx, s.b, req.GetProposalId())
	if err != nil {
		return nil, err
	}
	items := make([]keyed[*govv1.Vote], len(vs))
	for i, v := range vs {
		items[i] = keyed[*govv1.Vote]{key: v.Voter, item: s.vote(v)}
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &govv1.QueryVotesResponse{Votes: out, Pagination: page}, nil
}

// govParams reads the parameters at the requested height.
func govParams(ctx context.Context, b Backend) (gov.Params, error) {
	st, err := openState(ctx, b)
	if err != nil {
		return gov.Params{}, err
	}
	return gov.GetParams(st), nil
}

func (s *govServer) Params(ctx context.Context, req *govv1.QueryParamsRequest) (*govv1.QueryParamsResponse, error) {
	p, err := govParams(ctx, s.b)
	if err != nil {
		return nil, err
	}
	pp := p.Proto(s.b.Prefix(), s.b.Denom())
	res := &govv1.QueryParamsResponse{Params: pp}
	switch req.GetParamsType() {
	case "deposit":
		res.DepositParams = &govv1.DepositParams{MinDeposit: pp.MinDeposit, MaxDepositPeriod: pp.MaxDepositPeriod}
	case "voting":
		res.VotingParams = &govv1.VotingParams{VotingPeriod: pp.VotingPeriod}
	case "tallying":
		res.TallyParams = &govv1.TallyParams{Quorum: pp.Quorum, Threshold: pp.Threshold, VetoThreshold: pp.VetoThreshold}
	case "":
	default:
		return nil, invalid("unknown params type: %s", req.GetParamsType())
	}
	return res, nil
}

func (s *govServer) deposit(d gov.Deposit) *govv1.Deposit {
	return &govv1.Deposit{ProposalId: d.ProposalID, Depositor: accounts.Bech32(s.b.Prefix(), d.Depositor), Amount: coinsOf(d.Amount, s.b.Denom())}
}

// findDeposit reads depositor's deposit on id, with the SDK's refusals.
func findDeposit(ctx context.Context, b Backend, id uint64, depositor string) (gov.Deposit, error) {
	if err := checkID(id); err != nil {
		return gov.Deposit{}, err
	}
	if depositor == "" {
		return gov.Deposit{}, invalid("empty depositor address")
	}
	a, err := parseAccount(b, depositor)
	if err != nil {
		return gov.Deposit{}, err
	}
	st, err := openState(ctx, b)
	if err != nil {
		return gov.Deposit{}, err
	}
	d, ok := gov.GetDeposit(st, id, a)
	if !ok {
		return gov.Deposit{}, invalid("depositer: %v not found for proposal: %v", depositor, id)
	}
	return d, nil
}

func (s *govServer) Deposit(ctx context.Context, req *govv1.QueryDepositRequest) (*govv1.QueryDepositResponse, error) {
	d, err := findDeposit(ctx, s.b, req.GetProposalId(), req.GetDepositor())
	if err != nil {
		return nil, err
	}
	return &govv1.QueryDepositResponse{Deposit: s.deposit(d)}, nil
}

func depositsOf(ctx context.Context, b Backend, id uint64) ([]gov.Deposit, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	st, err := openState(ctx, b)
	if err != nil {
		return nil, err
	}
	return gov.Deposits(st, id), nil
}

func (s *govServer) Deposits(ctx context.Context, req *govv1.QueryDepositsRequest) (*govv1.QueryDepositsResponse, error) {
	ds, err := depositsOf(ctx, s.b, req.GetProposalId())
	if err != nil {
		return nil, err
	}
	items := make([]keyed[*govv1.Deposit], len(ds))
	for i, d := range ds {
		items[i] = keyed[*govv1.Deposit]{key: d.Depositor, item: s.deposit(d)}
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &govv1.QueryDepositsResponse{Deposits: out, Pagination: page}, nil
}

// tallyOf is the SDK's TallyResult query.
func tallyOf(ctx context.Context, b Backend, id uint64) (*govv1.TallyResult, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	st, err := openState(ctx, b)
	if err != nil {
		return nil, err
	}
	t, ok := gov.Tally(st, id)
	if !ok {
		return nil, status.Errorf(codes.NotFound, "proposal %d doesn't exist", id)
	}
	return t, nil
}

func (s *govServer) TallyResult(ctx context.Context, req *govv1.QueryTallyResultRequest) (*govv1.QueryTallyResultResponse, error) {
	t, err := tallyOf(ctx, s.b, req.GetProposalId())
	if err != nil {
		return nil, err
	}
	return &govv1.QueryTallyResultResponse{Tally: t}, nil
}

// coinsOf is amount of denom as a coin list (empty for zero).
func coinsOf(amount *big.Int, denom string) []*basev1beta1.Coin {
	if amount == nil || amount.Sign() == 0 {
		return []*basev1beta1.Coin{}
	}
	return []*basev1beta1.Coin{{Denom: denom, Amount: amount.String()}}
}

// --- v1beta1 ---

// legacyTally is a v1 tally in v1beta1's shape.
func legacyTally(t *govv1.TallyResult) *govv1beta1.TallyResult {
	if t == nil {
		return &govv1beta1.TallyResult{Yes: "0", Abstain: "0", No: "0", NoWithVeto: "0"}
	}
	return &govv1beta1.TallyResult{Yes: t.YesCount, Abstain: t.AbstainCount, No: t.NoCount, NoWithVeto: t.NoWithVetoCount}
}

// legacyProposal is the SDK's ConvertToLegacyProposal: the content of
// its MsgExecLegacyContent, else its last message as the content.
func legacyProposal(p *govv1.Proposal) *govv1beta1.Proposal {
	out := &govv1beta1.Proposal{
		ProposalId: p.Id, Status: govv1beta1.ProposalStatus(p.Status), FinalTallyResult: legacyTally(p.FinalTallyResult),
		SubmitTime: p.SubmitTime, DepositEndTime: p.DepositEndTime, TotalDeposit: p.TotalDeposit,
		VotingStartTime: p.VotingStartTime, VotingEndTime: p.VotingEndTime,
	}
	for _, m := range p.Messages {
		if m.TypeUrl == gov.TypeMsgExecLegacyContent {
			var exec govv1.MsgExecLegacyContent
			if proto.Unmarshal(m.Value, &exec) == nil {
				out.Content = exec.Content
				return out
			}
		}
		out.Content = m
	}
	return out
}

func (s *govLegacyServer) Proposal(ctx context.Context, req *govv1beta1.QueryProposalRequest) (*govv1beta1.QueryProposalResponse, error) {
	p, err := getProposal(ctx, s.b, req.GetProposalId())
	if err != nil {
		return nil, err
	}
	return &govv1beta1.QueryProposalResponse{Proposal: legacyProposal(p)}, nil
}

func (s *govLegacyServer) Proposals(ctx context.Context, req *govv1beta1.QueryProposalsRequest) (*govv1beta1.QueryProposalsResponse, error) {
	res, err := (&govServer{b: s.b}).Proposals(ctx, &govv1.QueryProposalsRequest{
		ProposalStatus: govv1.ProposalStatus(req.GetProposalStatus()), Voter: req.GetVoter(), Depositor: req.GetDepositor(), Pagination: req.GetPagination(),
	})
	if err != nil {
		return nil, err
	}
	out := make([]*govv1beta1.Proposal, len(res.Proposals))
	for i, p := range res.Proposals {
		out[i] = legacyProposal(p)
	}
	return &govv1beta1.QueryProposalsResponse{Proposals: out, Pagination: res.Pagination}, nil
}

// legacyVote is a vote in v1beta1's shape: weights as LegacyDec's
// protobuf form, option set when there is one option.
func (s *govLegacyServer) legacyVote(v gov.Vote) *govv1beta1.Vote {
	out := &govv1beta1.Vote{ProposalId: v.ProposalID, Voter: accounts.Bech32(s.b.Prefix(), v.Voter)}
	for _, o := range v.Options {
		w, _ := dec.Parse(o.Weight)
		out.Options = append(out.Options, &govv1beta1.WeightedVoteOption{Option: govv1beta1.VoteOption(o.Option), Weight: w.Raw().String()})
	}
	if len(v.Options) == 1 {
		out.Option = govv1beta1.VoteOption(v.Options[0].Option)
	}
	return out
}

func (s *govLegacyServer) Vote(ctx context.Context, req *govv1beta1.QueryVoteRequest) (*govv1beta1.QueryVoteResponse, error) {
	v, err := findVote(ctx, s.b, req.GetProposalId(), req.GetVoter())
	if err != nil {
		return nil, err
	}
	return &govv1beta1.QueryVoteResponse{Vote: s.legacyVote(v)}, nil
}

func (s *govLegacyServer) Votes(ctx context.Context, req *govv1beta1.QueryVotesRequest) (*govv1beta1.QueryVotesResponse, error) {
	vs, err := votesOf(ctx, s.b, req.GetProposalId())
	if err != nil {
		return nil, err
	}
	items := make([]keyed[*govv1beta1.Vote], len(vs))
	for i, v := range vs {
		items[i] = keyed[*govv1beta1.Vote]{key: v.Voter, item: s.legacyVote(v)}
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &govv1beta1.QueryVotesResponse{Votes: out, Pagination: page}, nil
}

func (s *govLegacyServer) Params(ctx context.Context, req *govv1beta1.QueryParamsRequest) (*govv1beta1.QueryParamsResponse, error) {
	p, err := govParams(ctx, s.b)
	if err != nil {
		return nil, err
	}
	pp := p.Proto(s.b.Prefix(), s.b.Denom())
	res := &govv1beta1.QueryParamsResponse{
		VotingParams: &govv1beta1.VotingParams{}, DepositParams: &govv1beta1.DepositParams{}, TallyParams: &govv1beta1.TallyParams{},
	}
	switch req.GetParamsType() {
	case "deposit":
		res.DepositParams = &govv1beta1.DepositParams{MinDeposit: pp.MinDeposit, MaxDepositPeriod: pp.MaxDepositPeriod}
	case "voting":
		res.VotingParams = &govv1beta1.VotingParams{VotingPeriod: pp.VotingPeriod}
	case "tallying":
		res.TallyParams = &govv1beta1.TallyParams{Quorum: legacyDecBytes(p.Quorum), Threshold: legacyDecBytes(p.Threshold), VetoThreshold: legacyDecBytes(p.VetoThreshold)}
	default:
		return nil, invalid("%s is not a valid parameter type", req.GetParamsType())
	}
	return res, nil
}

func (s *govLegacyServer) legacyDeposit(d gov.Deposit) *govv1beta1.Deposit {
	return &govv1beta1.Deposit{ProposalId: d.ProposalID, Depositor: accounts.Bech32(s.b.Prefix(), d.Depositor), Amount: coinsOf(d.Amount, s.b.Denom())}
}

func (s *govLegacyServer) Deposit(ctx context.Context, req *govv1beta1.QueryDepositRequest) (*govv1beta1.QueryDepositResponse, error) {
	d, err := findDeposit(ctx, s.b, req.GetProposalId(), req.GetDepositor())
	if err != nil {
		return nil, err
	}
	return &govv1beta1.QueryDepositResponse{Deposit: s.legacyDeposit(d)}, nil
}

func (s *govLegacyServer) Deposits(ctx context.Context, req *govv1beta1.QueryDepositsRequest) (*govv1beta1.QueryDepositsResponse, error) {
	ds, err := depositsOf(ctx, s.b, req.GetProposalId())
	if err != nil {
		return nil, err
	}
	items := make([]keyed[*govv1beta1.Deposit], len(ds))
	for i, d := range ds {
		items[i] = keyed[*govv1beta1.Deposit]{key: d.Depositor, item: s.legacyDeposit(d)}
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &govv1beta1.QueryDepositsResponse{Deposits: out, Pagination: page}, nil
}

func (s *govLegacyServer) TallyResult(ctx context.Context, req *govv1beta1.QueryTallyResultRequest) (*govv1beta1.QueryTallyResultResponse, error) {
	t, err := tallyOf(ctx, s.b, req.GetProposalId())
	if err != nil {
		return nil, err
	}
	return &govv1beta1.QueryTallyResultResponse{Tally: legacyTally(t)}, nil
}
