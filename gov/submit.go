package gov

import (
	"encoding/json"
	"math/big"
	"strconv"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Length limits of the SDK's gov config and v1beta1 content.
const (
	MaxMetadataLen    = 255
	MaxSummaryLen     = 10200
	maxTitleLen       = 140
	maxDescriptionLen = 10000
)

// submission is a MsgSubmitProposal of either version, decoded.
type submission struct {
	messages  []*anypb.Any
	deposit   *big.Int
	proposer  common.Address
	metadata  string
	title     string
	summary   string
	expedited bool
}

// decodeSubmitV1 runs the SDK's stateless checks of a v1 MsgSubmitProposal,
// in its msg server's order.
func (m *Module) decodeSubmitV1(p proto.Message, msg *module.Msg, c module.Codec) error {
	in := p.(*govv1.MsgSubmitProposal)
	if in.Title == "" {
		return module.SDKError(module.CodeInvalidRequest, "proposal title cannot be empty")
	}
	if in.Summary == "" {
		return module.SDKError(module.CodeInvalidRequest, "proposal summary cannot be empty")
	}
	s := &submission{messages: in.Messages, metadata: in.Metadata, title: in.Title, summary: in.Summary, expedited: in.Expedited}
	return m.decodeSubmission(s, in.Proposer, in.InitialDeposit, msg, c)
}

// proposalMetadata is the SDK's recommended metadata JSON.
type proposalMetadata struct {
	Title   string `json:"title"`
	Summary string `json:"summary"`
}

func (m *Module) decodeSubmission(s *submission, proposer string, deposit []*basev1beta1.Coin, msg *module.Msg, c module.Codec) error {
	var err error
	if s.proposer, err = c.Account("proposer", proposer); err != nil {
		return err
	}
	if len(s.messages) == 0 && s.metadata == "" {
		return Err(CodeNoProposalMsgs).WithDetail("either metadata or Msgs length must be non-nil")
	}
	var md proposalMetadata
	if s.metadata != "" && json.Unmarshal([]byte(s.metadata), &md) == nil {
		if md.Title != s.title {
			return Err(CodeInvalidProposalContent).WithDetail("metadata title '%s' must equal proposal title '%s'", md.Title, s.title)
		}
		if md.Summary != s.summary {
			return Err(CodeInvalidProposalContent).WithDetail("metadata summary '%s' must equal proposal summary '%s'", md.Summary, s.summary)
		}
	}
	if s.deposit, err = depositAmount(deposit, c.Denom, false); err != nil {
		return err
	}
	switch {
	case len(s.metadata) > MaxMetadataLen:
		return Err(CodeMetadataTooLong).WithDetail("got metadata with length %d", len(s.metadata))
	case len(s.summary) > MaxSummaryLen:
		return Err(CodeSummaryTooLong).WithDetail("got summary with length %d", len(s.summary))
	case len(s.title) > MaxMetadataLen:
		return Err(CodeMetadataTooLong).WithDetail("got metadata with length %d", len(s.title))
	}
	for _, a := range s.messages {
		if err := m.checkProposalMsg(a, c); err != nil {
			return err
		}
	}
	msg.Signer, msg.Amount = s.proposer, s.deposit
	return nil
}

// checkProposalMsg decodes one proposal message through the chain's
// router and checks that the gov account is its signer. A type URL no
// handler knows fails as the SDK's tx decoder fails on it.
func (m *Module) checkProposalMsg(a *anypb.Any, c module.Codec) error {
	if m.Router == nil {
		return Err(CodeUnroutableProposalMsg).WithDetail("%s", a.GetTypeUrl())
	}
	inner, err := m.Router().Decode(a, c)
	if err != nil {
		if e := module.AsError(err); e.Codespace == module.CodespaceSDK && e.Code == module.CodeTxDecode {
			return err
		}
		return Err(CodeInvalidProposalMsg).WithDetail("%v", err)
	}
	if inner.Signer != module.GovAuthority {
		return Err(CodeInvalidSigner).WithDetail("%s", accounts.Bech32(c.Prefix, inner.Signer))
	}
	return nil
}

// depositAmount is a deposit in the chain's one denomination: another
// denomination is the SDK's ErrInvalidDepositDenom; a negative or
// malformed amount ErrInvalidCoins; so is an empty or zero one when
// positive is set (MsgDeposit's validateDeposit).
func depositAmount(cs []*basev1beta1.Coin, denom string, positive bool) (*big.Int, error) {
	total := new(big.Int)
	for _, coin := range cs {
		if coin.GetDenom() != denom {
			return nil, Err(CodeInvalidDepositDenom).WithDetail("deposited %s, but gov accepts only the following denom(s): [%s]", coinsString(cs), denom)
		}
		a, ok := new(big.Int).SetString(coin.GetAmount(), 10)
		if !ok || a.Sign() < 0 || (positive && a.Sign() == 0) {
			return nil, module.SDKError(module.CodeInvalidCoins, "%s", coinsString(cs))
		}
		total.Add(total, a)
	}
	if positive && total.Sign() == 0 {
		return nil, module.SDKError(module.CodeInvalidCoins, "%s", coinsString(cs))
	}
	return total, nil
}

func coinsString(cs []*basev1beta1.Coin) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += ","
		}
		s += c.GetAmount() + c.GetDenom()
	}
	return s
}

// decodeSubmitV1beta1 turns a v1beta1 MsgSubmitProposal into the v1
// submission the SDK's legacy msg server makes of it: one
// MsgExecLegacyContent with the content, title and summary from it.
func (m *Module) decodeSubmitV1beta1(p proto.Message, msg *module.Msg, c module.Codec) error {
	in := p.(*govv1beta1.MsgSubmitProposal)
	if in.Content == nil {
		return Err(CodeInvalidProposalContent).WithDetail("missing content")
	}
	content, err := m.decodeContent(in.Content)
	if err != nil {
		return err
	}
	title, desc := contentText(content)
	exec, err := newAny(&govv1.MsgExecLegacyContent{Content: in.Content, Authority: accounts.Bech32(c.Prefix, module.GovAuthority)})
	if err != nil {
		return err
	}
	s := &submission{messages: []*anypb.Any{exec}, title: title, summary: desc}
	return m.decodeSubmission(s, in.Proposer, in.InitialDeposit, msg, c)
}

// submissionOf decodes msg's proto again (execution has only the proto).
func (m *Module) submissionOf(msg *module.Msg, c module.Codec) (*submission, error) {
	var s *submission
	switch in := msg.Proto.(type) {
	case *govv1.MsgSubmitProposal:
		s = &submission{messages: in.Messages, metadata: in.Metadata, title: in.Title, summary: in.Summary, expedited: in.Expedited}
	case *govv1beta1.MsgSubmitProposal:
		content, err := m.decodeContent(in.Content)
		if err != nil {
			return nil, err
		}
		exec, err := newAny(&govv1.MsgExecLegacyContent{Content: in.Content, Authority: accounts.Bech32(c.Prefix, module.GovAuthority)})
		if err != nil {
			return nil, err
		}
		s = &submission{messages: []*anypb.Any{exec}}
		s.title, s.summary = contentText(content)
	}
	s.proposer, s.deposit = msg.Signer, msg.Amount
	return s, nil
}

// execSubmit is the SDK's SubmitProposal: the stateful deposit checks,
// the legacy contents run in a branch that is thrown away, the proposal
// stored, then the initial deposit added.
func (m *Module) execSubmit(st module.State, msg *module.Msg, c *module.MsgContext) error {
	codec := module.Codec{Prefix: c.Env.Prefix, Denom: c.Env.Denom}
	s, err := m.submissionOf(msg, codec)
	if err != nil {
		return err
	}
	if s.expedited {
		return Err(CodeInvalidProposal).WithDetail("expedited proposals are not supported")
	}
	params := GetParams(st)
	if err := validateInitialDeposit(params, s.deposit, c.Env.Denom); err != nil {
		return err
	}
	if err := m.simulateContents(st, s.messages, c.Env); err != nil {
		return err
	}
	id := nextID(st)
	ensureAccount(st)
	store.SetUint(st, slots.Word(slotNextID), id+1)
	now := c.Env.Time
	p := &govv1.Proposal{
		Id: id, Messages: s.messages, Status: govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD,
		FinalTallyResult: emptyTally(), SubmitTime: timestamppb.New(now), DepositEndTime: timestamppb.New(now.Add(params.MaxDepositPeriod)),
		TotalDeposit: coins(nil, c.Env.Denom), Metadata: s.metadata, Title: s.title, Summary: s.summary,
		Proposer: accounts.Bech32(c.Env.Prefix, s.proposer),
	}
	if err := setProposal(st, p); err != nil {
		return err
	}
	msgs := ""
	for _, a := range s.messages {
		msgs += "," + a.TypeUrl
	}
	c.Events.Add("submit_proposal", "proposal_id", strconv.FormatUint(id, 10), "proposal_messages", msgs, "msg_index", c.Index)
	started, err := addDeposit(st, params, id, s.proposer, s.deposit, true, c)
	if err != nil {
		return err
	}
	if started {
		c.Events.Add("submit_proposal", "voting_period_start", strconv.FormatUint(id, 10), "msg_index", c.Index)
	}
	return nil
}

// validateInitialDeposit is the SDK's: with min_initial_deposit_ratio
// above zero, the initial deposit must reach min_deposit × ratio (rounded
// half to even).
func validateInitialDeposit(p Params, deposit *big.Int, denom string) error {
	if p.MinInitialDepositRatio.IsZero() {
		return nil
	}
	need := roundHalfEven(dec.FromInt(p.MinDeposit).Mul(p.MinInitialDepositRatio))
	if deposit.Cmp(need) < 0 {
		have := ""
		if deposit.Sign() > 0 {
			have = deposit.String() + denom
		}
		return Err(CodeMinDepositTooSmall).WithDetail("was (%s), need (%s%s)", have, need, denom)
	}
	return nil
}

// roundHalfEven is d rounded to an integer, ties to even (LegacyDec.RoundInt).
func roundHalfEven(d dec.Dec) *big.Int {
	one := dec.One().Raw()
	q, r := new(big.Int).QuoRem(d.Raw(), one, new(big.Int))
	switch c := new(big.Int).Lsh(r, 1).Cmp(one); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	return q
}

// simulateContents runs each MsgExecLegacyContent's content on a branch
// of st that is then reverted, as the SDK runs it in a cache context at
// submission: a content that would fail is refused now.
func (m *Module) simulateContents(st module.State, msgs []*anypb.Any, env *module.Env) error {
	for _, a := range msgs {
		if a.TypeUrl != TypeMsgExecLegacyContent {
			continue
		}
		in := new(govv1.MsgExecLegacyContent)
		if err := proto.Unmarshal(a.Value, in); err != nil {
			return Err(CodeInvalidProposalMsg).WithDetail("%v", err)
		}
		snap := st.Snapshot()
		err := m.execContent(module.WithEvents(st, module.NewEvents(env.Prefix, env.Denom), ""), in.Content, env)
		st.RevertToSnapshot(snap)
		if err != nil {
			if HasCode(err, CodeNoProposalHandlerExists) {
				return err
			}
			return Err(CodeInvalidProposalContent).WithDetail("%v", err)
		}
	}
	return nil
}
