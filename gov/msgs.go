package gov

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// Type URLs of the messages gov executes.
const (
	TypeMsgSubmitProposal        = "/cosmos.gov.v1.MsgSubmitProposal"
	TypeMsgExecLegacyContent     = "/cosmos.gov.v1.MsgExecLegacyContent"
	TypeMsgVote                  = "/cosmos.gov.v1.MsgVote"
	TypeMsgVoteWeighted          = "/cosmos.gov.v1.MsgVoteWeighted"
	TypeMsgDeposit               = "/cosmos.gov.v1.MsgDeposit"
	TypeMsgUpdateParams          = "/cosmos.gov.v1.MsgUpdateParams"
	TypeMsgCancelProposal        = "/cosmos.gov.v1.MsgCancelProposal"
	TypeMsgSubmitProposalV1beta1 = "/cosmos.gov.v1beta1.MsgSubmitProposal"
	TypeMsgVoteV1beta1           = "/cosmos.gov.v1beta1.MsgVote"
	TypeMsgVoteWeightedV1beta1   = "/cosmos.gov.v1beta1.MsgVoteWeighted"
	TypeMsgDepositV1beta1        = "/cosmos.gov.v1beta1.MsgDeposit"
)

// Fixed gas of the messages.
const (
	GasSubmitProposal = 100_000
	GasDeposit        = 50_000
	GasVote           = 30_000
	GasOther          = 50_000
)

// Msgs implements module.Module.
func (m *Module) Msgs() []*module.MsgHandler {
	spend := func(msg *module.Msg) *big.Int { return msg.Amount }
	h := func(typeURL string, gas uint64, newMsg func() proto.Message, decode func(proto.Message, *module.Msg, module.Codec) error,
		exec func(module.State, *module.Msg, *module.MsgContext) error, withSpend bool) *module.MsgHandler {
		mh := &module.MsgHandler{TypeURL: typeURL, Module: EventModule, Gas: gas, New: newMsg, Decode: decode, Exec: exec}
		if withSpend {
			mh.Spend = spend
		}
		return mh
	}
	return []*module.MsgHandler{
		h(TypeMsgSubmitProposal, GasSubmitProposal, func() proto.Message { return new(govv1.MsgSubmitProposal) }, m.decodeSubmitV1, m.execSubmit, true),
		h(TypeMsgSubmitProposalV1beta1, GasSubmitProposal, func() proto.Message { return new(govv1beta1.MsgSubmitProposal) }, m.decodeSubmitV1beta1, m.execSubmit, true),
		h(TypeMsgExecLegacyContent, GasOther, func() proto.Message { return new(govv1.MsgExecLegacyContent) }, m.decodeExecLegacy, m.execLegacy, false),
		h(TypeMsgDeposit, GasDeposit, func() proto.Message { return new(govv1.MsgDeposit) }, decodeDeposit, execDeposit, true),
		h(TypeMsgDepositV1beta1, GasDeposit, func() proto.Message { return new(govv1beta1.MsgDeposit) }, decodeDeposit, execDeposit, true),
		h(TypeMsgVote, GasVote, func() proto.Message { return new(govv1.MsgVote) }, decodeVote, execVote, false),
		h(TypeMsgVoteV1beta1, GasVote, func() proto.Message { return new(govv1beta1.MsgVote) }, decodeVote, execVote, false),
		h(TypeMsgVoteWeighted, GasVote, func() proto.Message { return new(govv1.MsgVoteWeighted) }, decodeVote, execVote, false),
		h(TypeMsgVoteWeightedV1beta1, GasVote, func() proto.Message { return new(govv1beta1.MsgVoteWeighted) }, decodeVote, execVote, false),
		h(TypeMsgUpdateParams, GasOther, func() proto.Message { return new(govv1.MsgUpdateParams) }, decodeUpdateParams, execUpdateParams, false),
		h(TypeMsgCancelProposal, GasOther, func() proto.Message { return new(govv1.MsgCancelProposal) }, decodeCancel, execCancel, false),
	}
}

// codecOf is the codec of an execution.
func codecOf(c *module.MsgContext) module.Codec {
	return module.Codec{Prefix: c.Env.Prefix, Denom: c.Env.Denom}
}

// --- MsgDeposit ---

// depositMsg is what v1 and v1beta1 MsgDeposit share.
type depositMsg interface {
	GetDepositor() string
	GetAmount() []*basev1beta1.Coin
}

func decodeDeposit(p proto.Message, msg *module.Msg, c module.Codec) error {
	in := p.(depositMsg)
	var err error
	if msg.Signer, err = c.Account("depositor", in.GetDepositor()); err != nil {
		return err
	}
	msg.Amount, err = depositAmount(in.GetAmount(), c.Denom, true)
	return err
}

func proposalIDOf(p proto.Message) uint64 {
	return p.(interface{ GetProposalId() uint64 }).GetProposalId()
}

func execDeposit(st module.State, msg *module.Msg, c *module.MsgContext) error {
	id := proposalIDOf(msg.Proto)
	started, err := addDeposit(st, GetParams(st), id, msg.Signer, msg.Amount, false, c)
	if err != nil {
		return err
	}
	if started {
		c.Events.Add("proposal_deposit", "voting_period_start", strconv.FormatUint(id, 10), "msg_index", c.Index)
	}
	return nil
}

// addDeposit is the SDK's AddDeposit: the proposal must be in its deposit
// or voting period; a later deposit must reach min_deposit ×
// min_deposit_ratio; the coins move to the gov account; the voting period
// starts when the total reaches min_deposit. It reports that start.
func addDeposit(st module.State, p Params, id uint64, depositor common.Address, amount *big.Int, initial bool, c *module.MsgContext) (bool, error) {
	prop, ok := GetProposal(st, id)
	if !ok {
		return false, Err(CodeUnknownProposal).WithDetail("%d", id)
	}
	if prop.Status != govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD && prop.Status != govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD {
		return false, Err(CodeInactiveProposal).WithDetail("%d", id)
	}
	denom := c.Env.Denom
	if !initial && !p.MinDepositRatio.IsZero() {
		need := dec.FromInt(p.MinDeposit).Mul(p.MinDepositRatio).TruncateInt()
		if amount.Cmp(need) < 0 {
			return false, Err(CodeMinDepositTooSmall).WithDetail("received %s%s but need at least one of the following: %s%s", amount, denom, need, denom)
		}
	}
	if amount.Sign() == 0 {
		return false, nil
	}
	if bal := st.GetBalance(depositor).ToBig(); bal.Cmp(amount) < 0 {
		return false, module.FundsError(bal, amount, denom)
	}
	move(st, depositor, module.GovAuthority, amount)
	c.Events.Coins(depositor, module.GovAuthority, amount, c.Index)
	total, _ := module.CoinsAmount(prop.TotalDeposit, denom)
	total = new(big.Int).Add(total, amount)
	prop.TotalDeposit = coins(total, denom)
	started := false
	if prop.Status == govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD && total.Cmp(p.MinDeposit) >= 0 {
		start := c.Env.Time
		prop.Status = govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD
		prop.VotingStartTime, prop.VotingEndTime = timestamppb.New(start), timestamppb.New(start.Add(p.VotingPeriod))
		started = true
	}
	if err := setProposal(st, prop); err != nil {
		return false, err
	}
	addDepositRecord(st, id, depositor, amount)
	c.Events.Add("proposal_deposit", "amount", c.Events.Coin(amount), "proposal_id", strconv.FormatUint(id, 10),
		"depositor", c.Events.Acc(depositor), "msg_index", c.Index)
	return started, nil
}

// move moves amount (checked against the balance) between accounts.
func move(st module.State, from, to common.Address, amount *big.Int) {
	a, _ := uint256.FromBig(amount)
	st.SubBalance(from, a, tracing.BalanceChangeTransfer)
	st.AddBalance(to, a, tracing.BalanceChangeTransfer)
}

// --- MsgVote, MsgVoteWeighted ---

// decodeVote checks a vote of any of the four kinds (v1beta1 weights
// travel as LegacyDec's raw integer, v1's as decimals).
func decodeVote(p proto.Message, msg *module.Msg, c module.Codec) error {
	var voter string
	var opts []*govv1.WeightedVoteOption
	var err error
	switch in := p.(type) {
	case *govv1.MsgVote:
		voter = in.Voter
		opts = []*govv1.WeightedVoteOption{{Option: in.Option, Weight: dec.One().String()}}
	case *govv1beta1.MsgVote:
		voter = in.Voter
		opts = []*govv1.WeightedVoteOption{{Option: govv1.VoteOption(in.Option), Weight: dec.One().String()}}
	case *govv1.MsgVoteWeighted:
		voter = in.Voter
		opts = in.Options
	case *govv1beta1.MsgVoteWeighted:
		voter = in.Voter
		for _, o := range in.Options {
			raw, ok := new(big.Int).SetString(o.Weight, 10)
			if !ok {
				return Err(CodeInvalidVote).WithDetail("invalid weight: %s", o.Weight)
			}
			opts = append(opts, &govv1.WeightedVoteOption{Option: govv1.VoteOption(o.Option), Weight: dec.FromRaw(raw).String()})
		}
	}
	if msg.Signer, err = c.Account("voter", voter); err != nil {
		return err
	}
	switch p.(type) {
	case *govv1.MsgVote, *govv1beta1.MsgVote:
		if !validOption(opts[0].Option) {
			return Err(CodeInvalidVote).WithDetail("%s", opts[0].Option)
		}
	default:
		if _, err := checkWeighted(opts); err != nil {
			return err
		}
	}
	return nil
}

func validOption(o govv1.VoteOption) bool {
	return o >= govv1.VoteOption_VOTE_OPTION_YES && o <= govv1.VoteOption_VOTE_OPTION_NO_WITH_VETO
}

// checkWeighted is the SDK's check of weighted options: valid options,
// each once, positive weights at most 1 summing to exactly 1.
func checkWeighted(opts []*govv1.WeightedVoteOption) ([]*govv1.WeightedVoteOption, error) {
	if len(opts) == 0 {
		return nil, module.SDKError(module.CodeInvalidRequest, "")
	}
	total := dec.Zero()
	used := map[govv1.VoteOption]bool{}
	out := make([]*govv1.WeightedVoteOption, len(opts))
	for i, o := range opts {
		w, err := dec.Parse(o.Weight)
		if !validOption(o.Option) || (err == nil && (!w.IsPositive() || w.GT(dec.One()))) {
			return nil, Err(CodeInvalidVote).WithDetail("option:%s weight:%q", o.Option, o.Weight)
		}
		if err != nil {
			return nil, Err(CodeInvalidVote).WithDetail("invalid weight: %v", err)
		}
		total = total.Add(w)
		if used[o.Option] {
			return nil, Err(CodeInvalidVote).WithDetail("duplicated vote option")
		}
		used[o.Option] = true
		out[i] = &govv1.WeightedVoteOption{Option: o.Option, Weight: w.String()}
	}
	if total.GT(dec.One()) {
		return nil, Err(CodeInvalidVote).WithDetail("total weight overflow 1.00")
	}
	if total.LT(dec.One()) {
		return nil, Err(CodeInvalidVote).WithDetail("total weight lower than 1.00")
	}
	return out, nil
}

// voteOf is the options and metadata of a decoded vote message.
func voteOf(p proto.Message) ([]*govv1.WeightedVoteOption, string) {
	switch in := p.(type) {
	case *govv1.MsgVote:
		return []*govv1.WeightedVoteOption{{Option: in.Option, Weight: dec.One().String()}}, in.Metadata
	case *govv1beta1.MsgVote:
		return []*govv1.WeightedVoteOption{{Option: govv1.VoteOption(in.Option), Weight: dec.One().String()}}, ""
	case *govv1.MsgVoteWeighted:
		opts, _ := checkWeighted(in.Options)
		return opts, in.Metadata
	case *govv1beta1.MsgVoteWeighted:
		var opts []*govv1.WeightedVoteOption
		for _, o := range in.Options {
			raw, _ := new(big.Int).SetString(o.Weight, 10)
			opts = append(opts, &govv1.WeightedVoteOption{Option: govv1.VoteOption(o.Option), Weight: dec.FromRaw(raw).String()})
		}
		return opts, ""
	}
	return nil, ""
}

// optionJSON is a weighted option as the SDK's proposal_vote event writes it.
type optionJSON struct {
	Option int32  `json:"option"`
	Weight string `json:"weight"`
}

// execVote is the SDK's AddVote.
func execVote(st module.State, msg *module.Msg, c *module.MsgContext) error {
	id := proposalIDOf(msg.Proto)
	opts, metadata := voteOf(msg.Proto)
	prop, ok := GetProposal(st, id)
	if !ok {
		return Err(CodeUnknownProposal).WithDetail("%d", id)
	}
	if prop.Status != govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD {
		return Err(CodeInactiveProposal).WithDetail("%d", id)
	}
	if len(metadata) > MaxMetadataLen {
		return Err(CodeMetadataTooLong).WithDetail("got metadata with length %d", len(metadata))
	}
	if err := setVote(st, id, msg.Signer, &govv1.Vote{Options: opts, Metadata: metadata}); err != nil {
		return err
	}
	js := make([]optionJSON, len(opts))
	for i, o := range opts {
		js[i] = optionJSON{Option: int32(o.Option), Weight: o.Weight}
	}
	b, _ := json.Marshal(js)
	c.Events.Add("proposal_vote", "voter", c.Events.Acc(msg.Signer), "option", string(b), "proposal_id", strconv.FormatUint(id, 10), "msg_index", c.Index)
	return nil
}

// --- MsgExecLegacyContent ---

func (m *Module) decodeExecLegacy(p proto.Message, msg *module.Msg, c module.Codec) error {
	in := p.(*govv1.MsgExecLegacyContent)
	var err error
	if msg.Signer, err = c.Account("authority", in.Authority); err != nil {
		return err
	}
	_, err = m.decodeContent(in.Content)
	return err
}

func (m *Module) execLegacy(st module.State, msg *module.Msg, c *module.MsgContext) error {
	in := msg.Proto.(*govv1.MsgExecLegacyContent)
	if msg.Signer != module.GovAuthority {
		return Err(CodeInvalidSigner).WithDetail("expected %s got %s", accounts.Bech32(c.Env.Prefix, module.GovAuthority), in.Authority)
	}
	return m.execContent(st, in.Content, c.Env)
}

// execContent runs a legacy content as the SDK's ExecLegacyContent does:
// a failure is an invalid proposal content naming the content's type.
func (m *Module) execContent(st module.State, content *anypb.Any, env *module.Env) error {
	if err := m.runContent(st, content, env); err != nil {
		if HasCode(err, CodeNoProposalHandlerExists) {
			return err
		}
		return Err(CodeInvalidProposalContent).WithDetail("failed to run legacy handler %s, %v", content.GetTypeUrl(), err)
	}
	return nil
}

// --- MsgUpdateParams ---

func decodeUpdateParams(p proto.Message, msg *module.Msg, c module.Codec) error {
	var err error
	msg.Signer, err = c.Account("authority", p.(*govv1.MsgUpdateParams).Authority)
	return err
}

func execUpdateParams(st module.State, msg *module.Msg, c *module.MsgContext) error {
	in := msg.Proto.(*govv1.MsgUpdateParams)
	if msg.Signer != module.GovAuthority {
		return Err(CodeInvalidSigner).WithDetail("invalid authority; expected %s, got %s", accounts.Bech32(c.Env.Prefix, module.GovAuthority), in.Authority)
	}
	p, err := ParamsFromProto(in.Params, codecOf(c))
	if err != nil {
		return err
	}
	return SetParams(st, p)
}

// --- MsgCancelProposal ---

func decodeCancel(p proto.Message, msg *module.Msg, c module.Codec) error {
	var err error
	msg.Signer, err = c.Account("proposer", p.(*govv1.MsgCancelProposal).Proposer)
	return err
}

// execCancel is the SDK's CancelProposal: only the proposer, only before
// the voting period ends; proposal_cancel_ratio of every deposit is
// burned (or sent to proposal_cancel_dest), the rest refunded.
func execCancel(st module.State, msg *module.Msg, c *module.MsgContext) error {
	in := msg.Proto.(*govv1.MsgCancelProposal)
	id := in.ProposalId
	prop, ok := GetProposal(st, id)
	if !ok {
		return Err(CodeUnknownProposal).WithDetail("proposal %d doesn't exist", id)
	}
	if prop.Proposer != accounts.Bech32(c.Env.Prefix, msg.Signer) {
		return Err(CodeInvalidProposer).WithDetail("invalid proposer %s", in.Proposer)
	}
	if prop.Status != govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD && prop.Status != govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD {
		return Err(CodeInvalidProposal).WithDetail("proposal should be in the deposit or voting period")
	}
	if prop.VotingEndTime != nil && prop.VotingEndTime.AsTime().Before(c.Env.Time) {
		return Err(CodeVotingPeriodEnded).WithDetail("voting period is already ended for this proposal %d", id)
	}
	if err := chargeDeposits(st, GetParams(st), id, c.Events, c.Index); err != nil {
		return err
	}
	deleteVotes(st, id)
	deleteProposal(st, id)
	c.Events.Add("cancel_proposal", "sender", c.Events.Acc(msg.Signer), "proposal_id", strconv.FormatUint(id, 10), "msg_index", c.Index)
	return nil
}

// chargeDeposits is the SDK's ChargeDeposit: each deposit × cancel ratio
// (truncated) is charged, the rest refunded; the charges are burned or
// sent to proposal_cancel_dest.
func chargeDeposits(st module.State, p Params, id uint64, ev *module.Events, idx string) error {
	charges := new(big.Int)
	for _, d := range Deposits(st, id) {
		burn := dec.FromInt(d.Amount).Mul(p.ProposalCancelRatio).TruncateInt()
		charges.Add(charges, burn)
		if rest := new(big.Int).Sub(d.Amount, burn); rest.Sign() > 0 {
			move(st, module.GovAuthority, d.Depositor, rest)
			ev.Coins(module.GovAuthority, d.Depositor, rest, idx)
		}
	}
	deleteDeposits(st, id)
	if charges.Sign() == 0 {
		return nil
	}
	if p.ProposalCancelDest != nil {
		move(st, module.GovAuthority, *p.ProposalCancelDest, charges)
		ev.Coins(module.GovAuthority, *p.ProposalCancelDest, charges, idx)
		return nil
	}
	return burn(st, charges, ev, idx)
}

// burn destroys amount of the gov account's balance through bank, so the
// recorded supply falls with it.
func burn(st module.State, amount *big.Int, ev *module.Events, idx string) error {
	if err := bank.Burn(st, module.GovAuthority, amount); err != nil {
		return fmt.Errorf("burn deposits: %w", err)
	}
	ev.Add("coin_spent", "spender", ev.Acc(module.GovAuthority), "amount", ev.Coin(amount), "msg_index", idx)
	ev.Add("burn", "burner", ev.Acc(module.GovAuthority), "amount", ev.Coin(amount), "msg_index", idx)
	return nil
}
