package gov

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	paramsv1beta1 "cosmossdk.io/api/cosmos/params/v1beta1"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/module"
)

// lifecycle: proposer A (addr 21) and depositor B (addr 22), each with
// 10 000; validators V1 (60) and V2 (40) bonded.
func lifecycle(t *testing.T, p Params) *chain {
	c := newChain(t, p)
	c.fund(addr(21), 10_000)
	c.fund(addr(22), 10_000)
	c.sk.val(addr(1), 60, "60", "60")
	c.sk.val(addr(2), 40, "40", "40")
	return c
}

func textSubmit(t *testing.T, proposer byte, deposit int64) *govv1beta1.MsgSubmitProposal {
	return &govv1beta1.MsgSubmitProposal{Content: anyOf(t, &govv1beta1.TextProposal{Title: "t", Description: "d"}),
		InitialDeposit: coin(deposit), Proposer: bech(addr(proposer))}
}

func vote(id uint64, voter byte, o govv1.VoteOption) *govv1.MsgVote {
	return &govv1.MsgVote{ProposalId: id, Voter: bech(addr(voter)), Option: o}
}

func hasEvent(ev *module.Events, typ string, kv ...string) bool {
	for _, e := range ev.List() {
		if e.Type != typ {
			continue
		}
		found := 0
		for i := 0; i < len(kv); i += 2 {
			for _, a := range e.Attributes {
				if a.Key == kv[i] && a.Value == kv[i+1] {
					found++
					break
				}
			}
		}
		if found == len(kv)/2 {
			return true
		}
	}
	return false
}

// TestDepositsRefunded: a partial initial deposit, a top-up that starts
// the voting period, a passing vote; both depositors get every wei back
// and the supply is unchanged.
func TestDepositsRefunded(t *testing.T) {
	c := lifecycle(t, testParams())
	supply := bank.Supply(c.st)
	ev := c.mustTx(textSubmit(t, 21, 400))
	if !hasEvent(ev, "submit_proposal", "proposal_id", "1", "proposal_messages", ",/cosmos.gov.v1.MsgExecLegacyContent") ||
		!hasEvent(ev, "proposal_deposit", "amount", "400aember", "proposal_id", "1") {
		t.Fatalf("events %v", ev.List())
	}
	p, _ := GetProposal(c.st, 1)
	if p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_DEPOSIT_PERIOD || c.balance(addr(21)).Int64() != 9_600 || c.balance(module.GovAuthority).Int64() != 400 {
		t.Fatalf("after submit: %v, A %v, gov %v", p.Status, c.balance(addr(21)), c.balance(module.GovAuthority))
	}
	ev = c.mustTx(&govv1.MsgDeposit{ProposalId: 1, Depositor: bech(addr(22)), Amount: coin(600)})
	p, _ = GetProposal(c.st, 1)
	if p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_VOTING_PERIOD || !hasEvent(ev, "proposal_deposit", "voting_period_start", "1") ||
		!p.VotingEndTime.AsTime().Equal(c.env.Time.Add(20*time.Second)) || p.TotalDeposit[0].Amount != "1000" {
		t.Fatalf("after top-up: %v", p)
	}
	if d := Deposits(c.st, 1); len(d) != 2 || d[0].Amount.Int64() != 400 || d[1].Amount.Int64() != 600 {
		t.Fatalf("deposits %+v", d)
	}
	c.mustTx(vote(1, 1, yes))
	c.mustTx(vote(1, 2, no))
	if r, _ := tallyWith(c.st, c.sk, 1); r.YesCount != "60" || r.NoCount != "40" {
		t.Fatalf("running tally %v", r)
	}
	if ev := c.endBlock(19 * time.Second); len(ev.List()) != 0 {
		t.Fatalf("before the end: %v", ev.List())
	}
	ev = c.endBlock(time.Second)
	p, _ = GetProposal(c.st, 1)
	if p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_PASSED || p.FinalTallyResult.YesCount != "60" ||
		!hasEvent(ev, "active_proposal", "proposal_id", "1", "proposal_result", ResultPassed) {
		t.Fatalf("after voting: %v %v", p, ev.List())
	}
	if c.balance(addr(21)).Int64() != 10_000 || c.balance(addr(22)).Int64() != 10_000 || c.balance(module.GovAuthority).Sign() != 0 ||
		bank.Supply(c.st).Cmp(supply) != 0 || len(Deposits(c.st, 1)) != 0 || len(Votes(c.st, 1)) != 0 {
		t.Fatalf("A %v B %v gov %v supply %v", c.balance(addr(21)), c.balance(addr(22)), c.balance(module.GovAuthority), bank.Supply(c.st))
	}
}

// TestVetoBurns: a vetoed proposal's deposits are burned through bank:
// the supply falls by exactly the deposits.
func TestVetoBurns(t *testing.T) {
	c := lifecycle(t, testParams())
	supply := bank.Supply(c.st)
	c.mustTx(textSubmit(t, 21, 1_000))
	c.mustTx(&govv1.MsgDeposit{ProposalId: 1, Depositor: bech(addr(22)), Amount: coin(234)})
	c.mustTx(vote(1, 1, yes))
	c.mustTx(vote(1, 2, veto))
	ev := c.endBlock(20 * time.Second)
	p, _ := GetProposal(c.st, 1)
	want := new(big.Int).Sub(supply, big.NewInt(1_234))
	if p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_REJECTED || bank.Supply(c.st).Cmp(want) != 0 || c.balance(module.GovAuthority).Sign() != 0 ||
		c.balance(addr(21)).Int64() != 9_000 || c.balance(addr(22)).Int64() != 9_766 || !hasEvent(ev, "burn", "amount", "1234aember") {
		t.Fatalf("status %v supply %v want %v", p.Status, bank.Supply(c.st), want)
	}
}

// TestDropped: a proposal short of min_deposit when its deposit period
// ends is deleted; its deposit refunded, or burned with
// burn_proposal_deposit_prevote.
func TestDropped(t *testing.T) {
	for _, burnIt := range []bool{false, true} {
		p := testParams()
		p.BurnProposalDepositPrevote = burnIt
		c := lifecycle(t, p)
		supply := bank.Supply(c.st)
		c.mustTx(textSubmit(t, 21, 500))
		c.endBlock(9 * time.Second)
		if _, ok := GetProposal(c.st, 1); !ok {
			t.Fatal("dropped early")
		}
		ev := c.endBlock(time.Second)
		if _, ok := GetProposal(c.st, 1); ok || !hasEvent(ev, "inactive_proposal", "proposal_id", "1", "proposal_result", ResultDropped) || len(Proposals(c.st)) != 0 {
			t.Fatalf("burn %v: not dropped: %v", burnIt, ev.List())
		}
		wantA, wantSupply := int64(10_000), supply
		if burnIt {
			wantA, wantSupply = 9_500, new(big.Int).Sub(supply, big.NewInt(500))
		}
		if c.balance(addr(21)).Int64() != wantA || bank.Supply(c.st).Cmp(wantSupply) != 0 || c.balance(module.GovAuthority).Sign() != 0 {
			t.Fatalf("burn %v: A %v supply %v", burnIt, c.balance(addr(21)), bank.Supply(c.st))
		}
		if _, err := c.tx(&govv1.MsgDeposit{ProposalId: 1, Depositor: bech(addr(22)), Amount: coin(600)}); !HasCode(err, CodeUnknownProposal) {
			t.Fatalf("deposit on a dropped proposal: %v", err)
		}
	}
}

// paramsProposal is a v1 proposal of messages with the gov account as
// signer.
func paramsProposal(t *testing.T, deposit int64, msgs ...proto.Message) *govv1.MsgSubmitProposal {
	var as []*anypb.Any
	for _, m := range msgs {
		as = append(as, anyOf(t, m))
	}
	return &govv1.MsgSubmitProposal{Messages: as, InitialDeposit: coin(deposit), Proposer: bech(addr(21)), Title: "raise", Summary: "raise min deposit"}
}

func updateParams(p Params) *govv1.MsgUpdateParams {
	return &govv1.MsgUpdateParams{Authority: bech(module.GovAuthority), Params: p.Proto(testPrefix, testDenom)}
}

// TestProposalMessages: a passed proposal's MsgUpdateParams applies; with a
// failing message after it, neither applies and the proposal FAILED.
func TestProposalMessages(t *testing.T) {
	raised := testParams()
	raised.MinDeposit = big.NewInt(2_000)
	pass := func(c *chain, id uint64) *module.Events {
		c.mustTx(vote(id, 1, yes))
		return c.endBlock(20 * time.Second)
	}
	c := lifecycle(t, testParams())
	c.mustTx(paramsProposal(t, 1_000, updateParams(raised)))
	ev := pass(c, 1)
	if p, _ := GetProposal(c.st, 1); p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_PASSED || GetParams(c.st).MinDeposit.Int64() != 2_000 ||
		!hasEvent(ev, "active_proposal", "proposal_result", ResultPassed, "proposal_log", "passed") {
		t.Fatalf("passed: %v, min deposit %v", p.Status, GetParams(c.st).MinDeposit)
	}

	c = lifecycle(t, testParams())
	send := &bankv1beta1.MsgSend{FromAddress: bech(module.GovAuthority), ToAddress: bech(addr(21)), Amount: coin(1)}
	c.mustTx(paramsProposal(t, 1_000, updateParams(raised), send))
	before := GetParams(c.st)
	ev = pass(c, 1)
	p, _ := GetProposal(c.st, 1)
	log := "passed, but msg 1 (/cosmos.bank.v1beta1.MsgSend) failed on execution: spendable balance 0aember is smaller than 1aember: insufficient funds"
	if p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_FAILED || GetParams(c.st).MinDeposit.Cmp(before.MinDeposit) != 0 ||
		!hasEvent(ev, "active_proposal", "proposal_result", ResultFailed, "proposal_log", log) || c.balance(addr(21)).Int64() != 10_000 {
		t.Fatalf("failed: %v %v params %v", p.Status, ev.List(), GetParams(c.st).MinDeposit)
	}
}

// TestCancel: the proposer cancels; half of each deposit burned, the
// rest refunded.
func TestCancel(t *testing.T) {
	c := lifecycle(t, testParams())
	supply := bank.Supply(c.st)
	c.mustTx(textSubmit(t, 21, 501))
	c.mustTx(&govv1.MsgDeposit{ProposalId: 1, Depositor: bech(addr(22)), Amount: coin(100)})
	if _, err := c.tx(&govv1.MsgCancelProposal{ProposalId: 1, Proposer: bech(addr(22))}); !HasCode(err, CodeInvalidProposer) {
		t.Fatalf("cancel by another: %v", err)
	}
	c.mustTx(&govv1.MsgCancelProposal{ProposalId: 1, Proposer: bech(addr(21))})
	// 501 × 0.5 = 250 burned (truncated), 251 back; 100 → 50 and 50.
	if _, ok := GetProposal(c.st, 1); ok || c.balance(addr(21)).Int64() != 9_750 || c.balance(addr(22)).Int64() != 9_950 ||
		bank.Supply(c.st).Cmp(new(big.Int).Sub(supply, big.NewInt(300))) != 0 {
		t.Fatalf("A %v B %v supply %v", c.balance(addr(21)), c.balance(addr(22)), bank.Supply(c.st))
	}
}

// TestBadInput: every refusal has the SDK's codespace, code and text, and
// changes nothing.
func TestBadInput(t *testing.T) {
	c := lifecycle(t, testParams())
	c.mustTx(textSubmit(t, 21, 1_000)) // 1: voting
	c.mustTx(textSubmit(t, 21, 100))   // 2: deposit period
	wrongSigner := &bankv1beta1.MsgSend{FromAddress: bech(addr(21)), ToAddress: bech(addr(22)), Amount: coin(1)}
	unknown := &anypb.Any{TypeUrl: "/ember.NoSuchMsg", Value: nil}
	paramChange := &paramsv1beta1.ParameterChangeProposal{Title: "p", Description: "d"}
	weighted := func(opts ...*govv1.WeightedVoteOption) *govv1.MsgVoteWeighted {
		return &govv1.MsgVoteWeighted{ProposalId: 1, Voter: bech(addr(1)), Options: opts}
	}
	cases := []struct {
		name      string
		msg       proto.Message
		codespace string
		code      uint32
		text      string
	}{
		{"empty title", &govv1.MsgSubmitProposal{Summary: "s", Proposer: bech(addr(21)), Metadata: "m"}, "sdk", 18, "proposal title cannot be empty: invalid request"},
		{"no messages", &govv1.MsgSubmitProposal{Title: "t", Summary: "s", Proposer: bech(addr(21))}, "gov", 11, "either metadata or Msgs length must be non-nil: no messages proposed"},
		{"initial deposit too small", textSubmit(t, 21, 99), "gov", 16, "was (99aember), need (100aember): minimum deposit is too small"},
		{"no initial deposit", textSubmit(t, 21, 0), "gov", 16, "was (), need (100aember): minimum deposit is too small"},
		{"wrong denom", &govv1beta1.MsgSubmitProposal{Content: anyOf(t, &govv1beta1.TextProposal{Title: "t", Description: "d"}),
			InitialDeposit: []*basev1beta1.Coin{{Denom: "uatom", Amount: "100"}}, Proposer: bech(addr(21))}, "gov", 23,
			"deposited 100uatom, but gov accepts only the following denom(s): [aember]: invalid deposit denom"},
		{"insufficient funds", textSubmit(t, 21, 10_001), "sdk", 5, "spendable balance 8900aember is smaller than 10001aember: insufficient funds"},
		{"wrong signer", paramsProposal(t, 1_000, wrongSigner), "gov", 13, bech(addr(21)) + ": expected gov account as only signer for proposal message"},
		{"unknown message type", &govv1.MsgSubmitProposal{Messages: []*anypb.Any{unknown}, InitialDeposit: coin(1000), Proposer: bech(addr(21)), Title: "t", Summary: "s"},
			"sdk", 2, "unable to resolve type URL /ember.NoSuchMsg: tx parse error"},
		{"unknown content type", &govv1beta1.MsgSubmitProposal{Content: anyOf(t, paramChange), InitialDeposit: coin(1000), Proposer: bech(addr(21))},
			"gov", 9, "cosmos.params.v1beta1.ParameterChangeProposal: no handler exists for proposal type"},
		{"blank content title", &govv1beta1.MsgSubmitProposal{Content: anyOf(t, &govv1beta1.TextProposal{Description: "d"}), InitialDeposit: coin(1000), Proposer: bech(addr(21))},
			"gov", 5, "proposal title cannot be blank: invalid proposal content"},
		{"metadata too long", &govv1.MsgSubmitProposal{Title: "t", Summary: "s", Metadata: strings.Repeat("m", 256), Proposer: bech(addr(21)), InitialDeposit: coin(1000)},
			"gov", 15, "got metadata with length 256: metadata too long"},
		{"expedited", &govv1.MsgSubmitProposal{Title: "t", Summary: "s", Metadata: "m", Proposer: bech(addr(21)), InitialDeposit: coin(1000), Expedited: true},
			"gov", 21, "expedited proposals are not supported: invalid proposal"},
		{"deposit on unknown proposal", &govv1.MsgDeposit{ProposalId: 9, Depositor: bech(addr(22)), Amount: coin(100)}, "gov", 2, "9: unknown proposal"},
		{"deposit below min_deposit_ratio", &govv1.MsgDeposit{ProposalId: 2, Depositor: bech(addr(22)), Amount: coin(9)}, "gov", 16,
			"received 9aember but need at least one of the following: 10aember: minimum deposit is too small"},
		{"zero deposit", &govv1.MsgDeposit{ProposalId: 2, Depositor: bech(addr(22)), Amount: coin(0)}, "sdk", 10, "0aember: invalid coins"},
		{"vote on unknown proposal", vote(9, 1, yes), "gov", 2, "9: unknown proposal"},
		{"vote in the deposit period", vote(2, 1, yes), "gov", 3, "2: inactive proposal"},
		{"invalid option", vote(1, 1, govv1.VoteOption_VOTE_OPTION_UNSPECIFIED), "gov", 7, "VOTE_OPTION_UNSPECIFIED: invalid vote option"},
		{"weights below 1", weighted(&govv1.WeightedVoteOption{Option: yes, Weight: "0.5"}), "gov", 7, "total weight lower than 1.00: invalid vote option"},
		{"duplicate option", weighted(&govv1.WeightedVoteOption{Option: yes, Weight: "0.5"}, &govv1.WeightedVoteOption{Option: yes, Weight: "0.5"}),
			"gov", 7, "duplicated vote option: invalid vote option"},
		{"update params not by gov", &govv1.MsgUpdateParams{Authority: bech(addr(21)), Params: testParams().Proto(testPrefix, testDenom)}, "gov", 13,
			"invalid authority; expected " + bech(module.GovAuthority) + ", got " + bech(addr(21)) + ": expected gov account as only signer for proposal message"},
		{"cancel unknown", &govv1.MsgCancelProposal{ProposalId: 9, Proposer: bech(addr(21))}, "gov", 2, "proposal 9 doesn't exist: unknown proposal"},
	}
	for _, tc := range cases {
		before := c.dump()
		_, err := c.tx(tc.msg)
		e := module.AsError(err)
		if err == nil || e.Codespace != tc.codespace || e.Code != tc.code || e.Error() != tc.text {
			t.Errorf("%s: got %v (%s %d), want %s %d %q", tc.name, err, e.Codespace, e.Code, tc.codespace, tc.code, tc.text)
		}
		if c.dump() != before {
			t.Errorf("%s: the state changed", tc.name)
		}
	}
	// a passed proposal takes no more deposits or votes
	c.mustTx(vote(1, 1, yes))
	c.endBlock(20 * time.Second)
	if _, err := c.tx(&govv1.MsgDeposit{ProposalId: 1, Depositor: bech(addr(22)), Amount: coin(100)}); !HasCode(err, CodeInactiveProposal) || err.Error() != "1: inactive proposal" {
		t.Fatalf("deposit after the end: %v", err)
	}
	if _, err := c.tx(vote(1, 2, no)); !HasCode(err, CodeInactiveProposal) {
		t.Fatalf("vote after the end: %v", err)
	}
}

// TestLegacyContent: a content with a ContentExec runs on a throw-away
// branch at submission (a failing one is refused, nothing changed) and for
// real when its proposal passes.
func TestLegacyContent(t *testing.T) {
	c := lifecycle(t, testParams())
	var ran []string
	c.m.Content = map[string]ContentExec{"/cosmos.params.v1beta1.ParameterChangeProposal": func(st module.State, content proto.Message, _ *module.Env) error {
		p := content.(*paramsv1beta1.ParameterChangeProposal)
		ran = append(ran, p.Title)
		if p.Title == "bad" {
			return errors.New("boom")
		}
		st.AddBalance(addr(30), uint256.NewInt(7), 0)
		return nil
	}}
	submit := func(title string) *govv1beta1.MsgSubmitProposal {
		return &govv1beta1.MsgSubmitProposal{Content: anyOf(t, &paramsv1beta1.ParameterChangeProposal{Title: title, Description: "d"}),
			InitialDeposit: coin(1_000), Proposer: bech(addr(21))}
	}
	before := c.dump()
	_, err := c.tx(submit("bad"))
	want := "failed to run legacy handler /cosmos.params.v1beta1.ParameterChangeProposal, boom: invalid proposal content: invalid proposal content"
	if !HasCode(err, CodeInvalidProposalContent) || err.Error() != want || c.dump() != before {
		t.Fatalf("failing content: %v", err)
	}
	c.mustTx(submit("good"))
	if c.balance(addr(30)).Sign() != 0 {
		t.Fatal("the submission's run of the content was kept")
	}
	c.mustTx(vote(1, 1, yes))
	c.endBlock(20 * time.Second)
	if p, _ := GetProposal(c.st, 1); p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_PASSED || c.balance(addr(30)).Int64() != 7 ||
		strings.Join(ran, ",") != "bad,good,good" {
		t.Fatalf("status %v, balance %v, runs %v", p.Status, c.balance(addr(30)), ran)
	}
}
