package e2e

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"
	"testing"

	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/explorer/api"
)

// TestExplorerGov: on a dev chain a text proposal gets two deposits, the
// dev validator's operator votes yes and a delegator of it votes no. The
// explorer's /api/v2/proposals/{id} then answers the deposits and votes
// the test made and the running tally the REST answers at the block the
// explorer read; after the dev clock passes the voting period the
// proposal reads passed with the REST's final tally, its deposits
// refunded and its votes gone; the list and proposal pages show it all
// in headless Chromium.
func TestExplorerGov(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--explorer.enable", "--empty-block-interval", "0")
	br := startBrowser(t)
	op := devKeys[0] // the dev validator's operator
	proposer, depositor, del := devKeys[1], devKeys[2], devKeys[4]

	delegated := tokensE18(2)
	govDeliver(t, n, del.Private, nativeB.Delegate(del.Address, op.Address, delegated))
	first, second := big.NewInt(4_000_000), big.NewInt(6_000_000) // the min deposit is 10,000,000
	govDeliver(t, n, proposer.Private, &govv1beta1.MsgSubmitProposal{
		Content:        packAny(t, &govv1beta1.TextProposal{Title: "Raise the bar", Description: "A text proposal the explorer shows."}),
		InitialDeposit: govCoins(first.Int64()), Proposer: accounts.Bech32("ember", proposer.Address)})
	govDeliver(t, n, depositor.Private, &govv1beta1.MsgDeposit{ProposalId: 1, Depositor: accounts.Bech32("ember", depositor.Address), Amount: govCoins(second.Int64())})
	govDeliver(t, n, op.Private, &govv1beta1.MsgVote{ProposalId: 1, Voter: accounts.Bech32("ember", op.Address), Option: govv1beta1.VoteOption_VOTE_OPTION_YES})
	h := govDeliver(t, n, del.Private, &govv1beta1.MsgVote{ProposalId: 1, Voter: accounts.Bech32("ember", del.Address), Option: govv1beta1.VoteOption_VOTE_OPTION_NO})
	n.waitIndexed(t, uint64(h))

	p := explorerGet[api.ProposalDetail](t, n, "/api/v2/proposals/1")
	if p.Status != "PROPOSAL_STATUS_VOTING_PERIOD" || p.Title != "Raise the bar" || p.Proposer != proposer.Address.Hex() || p.TotalDeposit != "10000000" {
		t.Fatalf("proposal %+v", p.Proposal)
	}
	if got := strings.Join(p.Messages, ","); got != "/cosmos.gov.v1.MsgExecLegacyContent,/cosmos.gov.v1beta1.TextProposal" {
		t.Errorf("messages %s", got)
	}
	wantDeposits := map[string]string{proposer.Address.Hex(): first.String(), depositor.Address.Hex(): second.String()}
	if len(p.Deposits) != 2 {
		t.Fatalf("deposits %+v", p.Deposits)
	}
	for _, d := range p.Deposits {
		if wantDeposits[d.Depositor] != d.Amount {
			t.Errorf("deposit %+v, want %v", d, wantDeposits)
		}
	}
	wantVotes := map[string]string{op.Address.Hex(): "yes", del.Address.Hex(): "no"}
	if len(p.Votes) != 2 {
		t.Fatalf("votes %+v", p.Votes)
	}
	for _, v := range p.Votes {
		if len(v.Options) != 1 || wantVotes[v.Voter] != v.Options[0].Option || v.Options[0].Weight != "1.000000000000000000" {
			t.Errorf("vote %+v, want %v", v, wantVotes)
		}
	}
	// The running tally: the REST's at the same block, and the test's own
	// count (the delegator's tokens vote no and leave the validator's yes).
	rest := restTally(t, n, 1, int64(p.BlockNumber))
	if p.Tally.Final || p.Tally.Yes != rest.Yes || p.Tally.No != rest.No || p.Tally.Abstain != "0" || p.Tally.NoWithVeto != "0" {
		t.Errorf("running tally %+v, REST %+v", p.Tally, rest)
	}
	var val struct {
		Validator restValidator `json:"validator"`
	}
	restJSON(t, n, "/cosmos/staking/v1beta1/validators/"+valoper(op.Address), int64(p.BlockNumber), &val)
	if want := new(big.Int).Sub(mustIntNoT(val.Validator.Tokens), delegated); p.Tally.Yes != want.String() || p.Tally.No != delegated.String() || p.BondedTokens != val.Validator.Tokens {
		t.Errorf("tally yes %s no %s bonded %s; want yes %v (tokens %s − delegated), no %v", p.Tally.Yes, p.Tally.No, p.BondedTokens, want, val.Validator.Tokens, delegated)
	}
	base := "http://" + n.Explorer
	checkWebProposal(t, br, base, p)
	br.shot(t, "explorer-proposal")

	// Past the voting period on the dev clock: the next block tallies.
	var null any
	mustCall(t, n, &null, "evm_increaseTime", 5*60+1)
	mustCall(t, n, &null, "evm_mine")
	n.waitIndexed(t, n.height(t))
	done := explorerGet[api.ProposalDetail](t, n, "/api/v2/proposals/1")
	var final struct {
		Proposal struct {
			Status string    `json:"status"`
			Final  restCount `json:"final_tally_result"`
		} `json:"proposal"`
	}
	restJSON(t, n, "/cosmos/gov/v1/proposals/1", int64(done.BlockNumber), &final)
	if done.Status != "PROPOSAL_STATUS_PASSED" || final.Proposal.Status != done.Status || !done.Tally.Final ||
		done.Tally.Yes != final.Proposal.Final.Yes || done.Tally.No != final.Proposal.Final.No || done.Tally.Yes != p.Tally.Yes {
		t.Fatalf("after the voting period: %+v tally %+v; REST %+v", done.Proposal, done.Tally, final.Proposal)
	}
	if len(done.Votes) != 0 || len(done.Deposits) != 0 {
		t.Errorf("votes %v and deposits %v kept after the tally", done.Votes, done.Deposits)
	}
	list := explorerGet[api.ProposalList](t, n, "/api/v2/proposals")
	if len(list.Items) != 1 || list.Items[0].ID != 1 || list.Items[0].StatusLabel != "passed" {
		t.Fatalf("list %+v", list.Items)
	}
	checkWebProposal(t, br, base, done)
	br.open(t, base+"/proposals")
	br.expect(t, `[data-field="title"]`, "Raise the bar")
	br.expect(t, `[data-field="status"]`, "passed")
	br.noErrors(t, "proposal pages")
}

// govDeliver signs msg with key, delivers it and returns its height.
func govDeliver(t *testing.T, n *Node, key *ecdsa.PrivateKey, msg proto.Message) int64 {
	t.Helper()
	raw, _ := signNative(t, n, key, msg)
	r := deliver(t, n, raw)
	if r.TxResult.Code != 0 {
		t.Fatalf("%s: code %d: %s", proto.MessageName(msg), r.TxResult.Code, r.TxResult.Log)
	}
	return r.Height
}

type restCount struct {
	Yes        string `json:"yes_count"`
	No         string `json:"no_count"`
	Abstain    string `json:"abstain_count"`
	NoWithVeto string `json:"no_with_veto_count"`
}

// restTally is the REST's tally of proposal id at height h.
func restTally(t *testing.T, n *Node, id uint64, h int64) restCount {
	t.Helper()
	var v struct {
		Tally restCount `json:"tally"`
	}
	if code := restJSON(t, n, fmt.Sprintf("/cosmos/gov/v1/proposals/%d/tally", id), h, &v); code != 200 {
		t.Fatalf("tally: HTTP %d", code)
	}
	return v.Tally
}

// checkWebProposal: the proposal page shows p's status, deposit, tally
// (as shares of the votes cast and in tokens) and its votes.
func checkWebProposal(t *testing.T, br *browser, base string, p api.ProposalDetail) {
	t.Helper()
	br.open(t, base+fmt.Sprintf("/proposal/%d", p.ID))
	br.expect(t, `h1`, fmt.Sprintf("Proposal #%d: %s", p.ID, p.Title))
	br.expect(t, `[data-field="status"]`, p.StatusLabel)
	if !p.Tally.Final { // the voting period ends in the future, which the page says
		if got := br.text(t, `[data-field="voting"]`); !strings.HasSuffix(got, "(in 4 min)") && !strings.HasSuffix(got, "(in 5 min)") {
			t.Errorf("voting period %q, want its end in 4 or 5 min", got)
		}
	}
	br.expect(t, `[data-field="total-deposit"]`, coinText(mustIntNoT(p.TotalDeposit))+" (minimum "+coinText(mustIntNoT(p.MinDeposit))+")")
	br.expect(t, `[data-field="rules"]`, "quorum "+pctText(p.Quorum)+" of "+coinText(mustIntNoT(p.BondedTokens))+" bonded; passes above "+
		pctText(p.Threshold)+" yes of non-abstaining; vetoed at "+pctText(p.VetoThreshold))
	br.expect(t, `[data-field="tally-yes"]`, coinText(mustIntNoT(p.Tally.Yes)))
	br.expect(t, `[data-field="tally-no"]`, coinText(mustIntNoT(p.Tally.No)))
	yes, no := mustIntNoT(p.Tally.Yes), mustIntNoT(p.Tally.No)
	total := new(big.Int).Add(yes, no)
	share := func(v *big.Int) string { // two places, truncated, as the page's units()
		bp := new(big.Int).Div(new(big.Int).Mul(v, big.NewInt(10000)), total)
		return fmt.Sprintf("%d.%02d%%", bp.Int64()/100, bp.Int64()%100)
	}
	prefix := "running: "
	if p.Tally.Final {
		prefix = ""
	}
	br.expect(t, `[data-field="tally"]`, prefix+"Yes "+share(yes)+" · No "+share(no))
	if p.Tally.Final {
		br.expect(t, `[data-field="votes-empty"]`, "Votes are deleted once a proposal is tallied; the tally above is final.")
		return
	}
	votes := texts(t, br, `[data-field="vote"]`)
	if len(votes) != len(p.Votes) {
		t.Fatalf("page shows votes %v, API %+v", votes, p.Votes)
	}
	deposits := texts(t, br, `[data-field="deposit"]`)
	if len(deposits) != len(p.Deposits) {
		t.Fatalf("page shows deposits %v, API %+v", deposits, p.Deposits)
	}
}
