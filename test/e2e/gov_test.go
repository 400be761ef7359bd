package e2e

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/gov"
	"github.com/emberchain/ember/internal/wait"
)

// govTestParams are the gov parameters of TestGovProposals: the SDK's
// defaults but for periods short enough for a test and an initial deposit
// of at least a quarter of min_deposit.
func govTestParams(minDeposit int64) *govv1.Params {
	p := gov.DefaultParams()
	p.MinDeposit = big.NewInt(minDeposit)
	p.ExpeditedMinDeposit = big.NewInt(5 * minDeposit)
	p.MaxDepositPeriod, p.VotingPeriod, p.ExpeditedVotingPeriod = 30*time.Second, 30*time.Second, 15*time.Second
	p.MinInitialDepositRatio = dec.MustParse("0.25")
	return p.Proto("ember", denom)
}

// setGovParams writes app_state.gov in the SDK's v1 genesis JSON.
func setGovParams(nw *Network, p *govv1.Params) {
	editGenesis(nw, func(app map[string]json.RawMessage) {
		raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(&govv1.GenesisState{StartingProposalId: 1, Params: p})
		if err != nil {
			nw.t.Fatal(err)
		}
		app["gov"] = raw
	})
}

var govAccount = common.HexToAddress("0x0000000000000000000000000000000000000B50")

// govCoins is n aember as a coin list.
func govCoins(n int64) []*basev1beta1.Coin {
	return []*basev1beta1.Coin{{Denom: denom, Amount: fmt.Sprint(n)}}
}

func packAny(t *testing.T, m proto.Message) *anypb.Any {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return &anypb.Any{TypeUrl: "/" + string(proto.MessageName(m)), Value: b}
}

// feeLedger sums the fees each account's native txs paid.
type feeLedger map[common.Address]*big.Int

func (f feeLedger) add(a common.Address, fee *big.Int) {
	if f[a] == nil {
		f[a] = new(big.Int)
	}
	f[a].Add(f[a], fee)
}

// govSend delivers msgs signed by key and records its fee; the result
// code must be 0.
func govSend(t *testing.T, n *Node, fees feeLedger, key *ecdsa.PrivateKey, msgs ...proto.Message) {
	t.Helper()
	raw, fee := signTestnetFee(t, n, key, msgs...)
	r := deliver(t, n, raw)
	if r.TxResult.Code != 0 {
		t.Fatalf("%s: code %d (%s) %s", proto.MessageName(msgs[0]), r.TxResult.Code, r.TxResult.Codespace, r.TxResult.Log)
	}
	fees.add(devKeyAddress(key), fee)
}

// govRefused delivers msgs, which CheckTx accepts (the SDK checks gov's
// state in DeliverTx), and requires the block result to be the SDK error,
// wrapped as the SDK's runMsgs wraps it.
func govRefused(t *testing.T, n *Node, what string, key *ecdsa.PrivateKey, code uint32, log string, msgs ...proto.Message) {
	t.Helper()
	r := deliver(t, n, signTestnet(t, n, key, msgs...))
	log = "failed to execute message; message index: 0: " + log
	if r.TxResult.Code != code || r.TxResult.Codespace != "gov" || r.TxResult.Log != log {
		t.Errorf("%s: code %d (%s) %q; want %d gov %q", what, r.TxResult.Code, r.TxResult.Codespace, r.TxResult.Log, code, log)
	}
}

// govProposal is /cosmos/gov/v1/proposals/{id}'s proposal, as read.
type govProposal struct {
	ID               string          `json:"id"`
	Status           string          `json:"status"`
	FinalTallyResult govTally        `json:"final_tally_result"`
	TotalDeposit     []restCoin      `json:"total_deposit"`
	Messages         json.RawMessage `json:"messages"`
	Title            string          `json:"title"`
}

type restCoin struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

type govTally struct {
	Yes     string `json:"yes_count"`
	Abstain string `json:"abstain_count"`
	No      string `json:"no_count"`
	Veto    string `json:"no_with_veto_count"`
}

func proposalOf(t *testing.T, n *Node, id uint64) (govProposal, int) {
	t.Helper()
	var v struct {
		Proposal govProposal `json:"proposal"`
	}
	code := restJSON(t, n, fmt.Sprintf("/cosmos/gov/v1/proposals/%d", id), 0, &v)
	return v.Proposal, code
}

func tallyOf(t *testing.T, n *Node, id uint64) govTally {
	t.Helper()
	var v struct {
		Tally govTally `json:"tally"`
	}
	if code := restJSON(t, n, fmt.Sprintf("/cosmos/gov/v1/proposals/%d/tally", id), 0, &v); code != 200 {
		t.Fatalf("tally %d: HTTP %d", id, code)
	}
	return v.Tally
}

// govRefVote is one voter's options, for the reference tally.
type govRefVote struct {
	voter common.Address
	opts  map[string]string // option name → weight
}

// referenceTally recomputes the SDK's tally from the staking REST: each
// voter's delegations to bonded validators count for the voter (shares ×
// tokens / delegator shares) and leave their validator; a validator that
// voted counts its shares left.
func referenceTally(t *testing.T, n *Node, votes []govRefVote) govTally {
	t.Helper()
	var vs struct {
		Validators []stakingValidator `json:"validators"`
	}
	if code := restJSON(t, n, "/cosmos/staking/v1beta1/validators", 0, &vs); code != 200 {
		t.Fatalf("validators: HTTP %d", code)
	}
	type val struct {
		tokens         *big.Int
		shares, deduct dec.Dec
		opts           map[string]string
	}
	vals := map[string]*val{}
	for _, v := range vs.Validators {
		if v.Status == "BOND_STATUS_BONDED" {
			vals[v.OperatorAddress] = &val{tokens: mustInt(t, v.Tokens), shares: dec.MustParse(v.DelegatorShares), deduct: dec.Zero()}
		}
	}
	sums := map[string]dec.Dec{"yes": dec.Zero(), "abstain": dec.Zero(), "no": dec.Zero(), "no_with_veto": dec.Zero()}
	count := func(power dec.Dec, opts map[string]string) {
		for o, w := range opts {
			sums[o] = sums[o].Add(power.Mul(dec.MustParse(w)))
		}
	}
	for _, vote := range votes {
		if v, ok := vals[valoper(vote.voter)]; ok {
			v.opts = vote.opts
		}
		var ds struct {
			Delegations []struct {
				Delegation struct {
					ValidatorAddress string `json:"validator_address"`
					Shares           string `json:"shares"`
				} `json:"delegation"`
			} `json:"delegation_responses"`
		}
		restJSON(t, n, "/cosmos/staking/v1beta1/delegations/"+accounts.Bech32("ember", vote.voter), 0, &ds)
		for _, d := range ds.Delegations {
			v, ok := vals[d.Delegation.ValidatorAddress]
			if !ok {
				continue
			}
			sh := dec.MustParse(d.Delegation.Shares)
			v.deduct = v.deduct.Add(sh)
			count(sh.MulInt(v.tokens).Quo(v.shares), vote.opts)
		}
	}
	for _, v := range vals {
		if v.opts != nil {
			count(v.shares.Sub(v.deduct).MulInt(v.tokens).Quo(v.shares), v.opts)
		}
	}
	s := func(o string) string { return sums[o].TruncateInt().String() }
	return govTally{Yes: s("yes"), Abstain: s("abstain"), No: s("no"), Veto: s("no_with_veto")}
}

// TestGovProposals: on a 4-validator network under EVM transfer load, a
// text proposal (v1beta1) and a MsgUpdateParams proposal (v1, from a JSON
// file through `emberd tx gov submit-proposal`), each with a partial
// deposit topped up by another account, are voted by the validators
// (`emberd tx gov vote`), a delegator voting against its validator and
// another splitting its vote; both pass with the tally a reference
// computed from the staking REST gives, the parameter change is live,
// every deposit comes back to the wei. A vetoed proposal's deposit is
// burned (the supply ledger counts it) and one short of min_deposit
// (`submit-legacy-proposal`) is dropped and refunded. Bad input gets the
// SDK's errors; every node has the same chain.
func TestGovProposals(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 4, 0)
	setGovParams(nw, govTestParams(10_000_000))
	for _, n := range nw.Nodes {
		n.Start("start")
	}
	waitAllHeight(t, 2, nw.Nodes...)
	stop := evmLoad(nw.Nodes[:2], []*ecdsa.PrivateKey{devKeys[0].Private, devKeys[1].Private})
	defer func() { stop() }()
	n := nw.Nodes[0]
	ops := nw.manifest().Nodes
	proposer, topper, del5, del6, bad := devKeys[4], devKeys[7], devKeys[5], devKeys[6], devKeys[8]
	fees := feeLedger{}

	delegate(t, n, del5.Private, ops[0].Operator, tokensE18(3))
	delegate(t, n, del6.Private, ops[1].Operator, tokensE18(2))
	start := int64(n.height(t))
	before := map[common.Address]*big.Int{proposer.Address: balanceAtHeight(t, n, proposer.Address, start), topper.Address: balanceAtHeight(t, n, topper.Address, start)}

	// 1: text proposal (v1beta1), 3M of 10M then 7M from another account.
	text := func(title string, deposit int64) proto.Message {
		return &govv1beta1.MsgSubmitProposal{Content: packAny(t, &govv1beta1.TextProposal{Title: title, Description: "ember gov e2e"}),
			InitialDeposit: govCoins(deposit), Proposer: accounts.Bech32("ember", proposer.Address)}
	}
	govSend(t, n, fees, proposer.Private, text("signal", 3_000_000))
	// 2: MsgUpdateParams raising min_deposit to 20M, from a JSON file.
	home := cliKeyring(t, map[string]*ecdsaKey{"proposer": proposer.Private, "topper": topper.Private, "del6": del6.Private})
	raised := govTestParams(20_000_000)
	submitParamsProposal(t, n, home, fees, proposer, raised, "5000000aember")
	// 3: fully deposited, to be vetoed; 4: never topped up (the CLI's
	// legacy text proposal).
	govSend(t, n, fees, proposer.Private, text("veto me", 10_000_000))
	cliGov(t, n, home, fees, proposer.Address, "submit-legacy-proposal", "--title", "dropped", "--description", "never topped up",
		"--type", "text", "--deposit", "2500000aember", "--from", "proposer")
	if p, _ := proposalOf(t, n, 1); p.Status != "PROPOSAL_STATUS_DEPOSIT_PERIOD" || p.TotalDeposit[0].Amount != "3000000" {
		t.Fatalf("proposal 1 after submission: %+v", p)
	}
	govSend(t, n, fees, topper.Private, &govv1.MsgDeposit{ProposalId: 1, Depositor: accounts.Bech32("ember", topper.Address), Amount: govCoins(7_000_000)})
	cliGov(t, n, home, fees, topper.Address, "deposit", "2", "5000000aember", "--from", "topper")
	for id := uint64(1); id <= 3; id++ {
		if p, _ := proposalOf(t, n, id); p.Status != "PROPOSAL_STATUS_VOTING_PERIOD" || p.TotalDeposit[0].Amount != "10000000" {
			t.Fatalf("proposal %d after the top-up: %+v", id, p)
		}
	}

	// Votes: the validators through the CLI, the delegators signed here.
	choices := map[uint64][]string{1: {"yes", "yes", "no", "yes"}, 2: {"yes", "yes", "yes", "no"}, 3: {"no_with_veto", "no_with_veto", "yes", "yes"}}
	for i := range ops {
		for id := uint64(1); id <= 3; id++ {
			if res := emberdTx(t, n, ops[i].Home, "gov", "vote", fmt.Sprint(id), choices[id][i], "--from", "validator", "--no-wait"); res.Code != 0 {
				t.Fatalf("validator %d vote on %d: %d %s", i, id, res.Code, res.RawLog)
			}
		}
	}
	split := []*govv1.WeightedVoteOption{{Option: govv1.VoteOption_VOTE_OPTION_YES, Weight: "0.600000000000000000"}, {Option: govv1.VoteOption_VOTE_OPTION_NO, Weight: "0.400000000000000000"}}
	for _, id := range []uint64{1, 2} {
		govSend(t, n, fees, del5.Private, &govv1.MsgVote{ProposalId: id, Voter: accounts.Bech32("ember", del5.Address), Option: govv1.VoteOption_VOTE_OPTION_NO})
	}
	govSend(t, n, fees, del6.Private, &govv1.MsgVoteWeighted{ProposalId: 1, Voter: accounts.Bech32("ember", del6.Address), Options: split})
	cliGov(t, n, home, fees, del6.Address, "weighted-vote", "2", "yes=0.6,no=0.4", "--from", "del6")
	refs := map[uint64]govTally{}
	for id := uint64(1); id <= 3; id++ {
		var votes []govRefVote
		for i, o := range choices[id] {
			votes = append(votes, govRefVote{voter: ops[i].Operator, opts: map[string]string{o: "1"}})
		}
		if id != 3 {
			votes = append(votes, govRefVote{del5.Address, map[string]string{"no": "1"}}, govRefVote{del6.Address, map[string]string{"yes": "0.6", "no": "0.4"}})
		}
		want := len(votes)
		wait.For(t, 20*time.Second, fmt.Sprintf("%d votes on proposal %d", want, id), func() (bool, error) {
			var v struct {
				Votes []json.RawMessage `json:"votes"`
			}
			restJSON(t, n, fmt.Sprintf("/cosmos/gov/v1/proposals/%d/votes", id), 0, &v)
			if len(v.Votes) != want {
				return false, fmt.Errorf("%d votes", len(v.Votes))
			}
			return true, nil
		})
		refs[id] = referenceTally(t, n, votes)
		if got := tallyOf(t, n, id); got != refs[id] {
			t.Fatalf("running tally of %d: %+v, reference %+v", id, got, refs[id])
		}
	}

	// The v1beta1 REST shapes Keplr reads: a weighted vote's options with
	// LegacyDec weights, a proposal's legacy content.
	if code, body, _ := n.restGet(t, "/cosmos/gov/v1beta1/proposals/1/votes/"+accounts.Bech32("ember", del6.Address)); code != 200 || !strings.Contains(body,
		`"options":[{"option":"VOTE_OPTION_YES","weight":"0.600000000000000000"},{"option":"VOTE_OPTION_NO","weight":"0.400000000000000000"}]`) {
		t.Errorf("v1beta1 weighted vote: %d %s", code, body)
	}
	if code, body, _ := n.restGet(t, "/cosmos/gov/v1beta1/proposals/1"); code != 200 || !strings.Contains(body, `"content":{"@type":"/cosmos.gov.v1beta1.TextProposal","title":"signal"`) {
		t.Errorf("v1beta1 proposal: %d %s", code, body)
	}

	// Bad input while the proposals are open.
	badAddr := accounts.Bech32("ember", bad.Address)
	govRefused(t, n, "initial deposit below min_initial_deposit_ratio", bad.Private, 16, "was (2499999aember), need (2500000aember): minimum deposit is too small",
		&govv1beta1.MsgSubmitProposal{Content: packAny(t, &govv1beta1.TextProposal{Title: "t", Description: "d"}), InitialDeposit: govCoins(2_499_999), Proposer: badAddr})
	govRefused(t, n, "vote on an unknown proposal", bad.Private, 2, "99: unknown proposal",
		&govv1.MsgVote{ProposalId: 99, Voter: badAddr, Option: govv1.VoteOption_VOTE_OPTION_YES})
	refusedAtCheck(t, n, "unknown message type", bad.Private, "sdk", 2, "unable to resolve type URL /ember.NoSuchMsg",
		&govv1.MsgSubmitProposal{Messages: []*anypb.Any{{TypeUrl: "/ember.NoSuchMsg"}}, InitialDeposit: govCoins(10_000_000), Proposer: badAddr, Title: "t", Summary: "s"})
	refusedAtCheck(t, n, "wrong signer", bad.Private, "gov", 13, badAddr+": expected gov account as only signer for proposal message",
		&govv1.MsgSubmitProposal{Messages: []*anypb.Any{packAny(t, testnetB.Send(bad.Address, bad.Address, big.NewInt(1)))}, InitialDeposit: govCoins(10_000_000), Proposer: badAddr, Title: "t", Summary: "s"})

	// The end of the voting periods, and of 4's deposit period.
	wait.For(t, 60*time.Second, "proposals 1-3 tallied and 4 dropped", func() (bool, error) {
		for id := uint64(1); id <= 3; id++ {
			if p, _ := proposalOf(t, n, id); p.Status == "PROPOSAL_STATUS_VOTING_PERIOD" {
				return false, fmt.Errorf("proposal %d still in its voting period", id)
			}
		}
		if _, code := proposalOf(t, n, 4); code != 404 {
			return false, fmt.Errorf("proposal 4 still there (HTTP %d)", code)
		}
		return true, nil
	})
	for id, status := range map[uint64]string{1: "PROPOSAL_STATUS_PASSED", 2: "PROPOSAL_STATUS_PASSED", 3: "PROPOSAL_STATUS_REJECTED"} {
		p, _ := proposalOf(t, n, id)
		if p.Status != status || p.FinalTallyResult != refs[id] || tallyOf(t, n, id) != refs[id] {
			t.Errorf("proposal %d: %s tally %+v; want %s %+v", id, p.Status, p.FinalTallyResult, status, refs[id])
		}
		t.Logf("proposal %d: %s, tally %+v", id, p.Status, p.FinalTallyResult)
	}
	var params struct {
		Params struct {
			MinDeposit []restCoin `json:"min_deposit"`
		} `json:"params"`
	}
	if restJSON(t, n, "/cosmos/gov/v1/params/deposit", 0, &params); len(params.Params.MinDeposit) != 1 || params.Params.MinDeposit[0].Amount != "20000000" {
		t.Errorf("min_deposit after proposal 2: %+v", params.Params.MinDeposit)
	}
	if out, err := emberdCLI(t, "query", "gov", "tally", "1", "--node", "tcp://"+n.CometRPC); err != nil ||
		strings.TrimSpace(out) != fmt.Sprintf(`{"tally":{"yes_count":"%s","abstain_count":"%s","no_count":"%s","no_with_veto_count":"%s"}}`, refs[1].Yes, refs[1].Abstain, refs[1].No, refs[1].Veto) {
		t.Errorf("emberd query gov tally 1: %v %s", err, out)
	}
	if out, err := emberdCLI(t, "query", "gov", "proposals", "--status", "rejected", "--node", "tcp://"+n.CometRPC); err != nil || !strings.Contains(out, `"title":"veto me"`) || strings.Contains(out, `"id":"1"`) {
		t.Errorf("emberd query gov proposals --status rejected: %v %s", err, out)
	}
	var passed struct {
		Proposals []govProposal `json:"proposals"`
	}
	if restJSON(t, n, "/cosmos/gov/v1/proposals?proposal_status=PROPOSAL_STATUS_PASSED", 0, &passed); len(passed.Proposals) != 2 || passed.Proposals[0].ID != "1" || passed.Proposals[1].ID != "2" {
		t.Errorf("passed proposals: %+v", passed.Proposals)
	}

	// Bad input after the ends.
	govRefused(t, n, "vote on an ended proposal", bad.Private, 3, "1: inactive proposal",
		&govv1.MsgVote{ProposalId: 1, Voter: badAddr, Option: govv1.VoteOption_VOTE_OPTION_YES})
	govRefused(t, n, "deposit after the deposit period", bad.Private, 2, "4: unknown proposal",
		&govv1.MsgDeposit{ProposalId: 4, Depositor: badAddr, Amount: govCoins(20_000_000)})

	// Deposits: 1, 2 and 4 refunded, 3 (vetoed) burned.
	end := int64(n.height(t))
	for a, was := range before {
		want := sub(was, fees[a])
		if a == proposer.Address {
			want = sub(want, big.NewInt(10_000_000))
		}
		if got := balanceAtHeight(t, n, a, end); got.Cmp(want) != 0 {
			t.Errorf("%s: balance %v, want %v (before %v, fees %v)", a, got, want, was, fees[a])
		}
	}
	if got := balanceAtHeight(t, n, govAccount, end); got.Sign() != 0 {
		t.Errorf("gov account holds %v after every proposal ended", got)
	}
	results := map[string]int{}
	for _, ev := range blockEvents(t, n, "active_proposal", start, end) {
		results[ev.Attrs["proposal_result"]]++
	}
	if results["proposal_passed"] != 2 || results["proposal_rejected"] != 1 || len(blockEvents(t, n, "inactive_proposal", start, end)) != 1 {
		t.Errorf("proposal results %v", results)
	}
	stop()
	stop = func() int { return 0 }
	waitAllHeight(t, maxHeight(t, nw.Nodes...)+1, nw.Nodes...)
	l := checkEconomy(t, nw, nw.Nodes...)
	if l.GovBurned.Cmp(big.NewInt(10_000_000)) != 0 {
		t.Errorf("gov burned %v, want the vetoed deposit 10000000", l.GovBurned)
	}
}

// refusedAtCheck broadcasts msgs and requires CheckTx to refuse them (a
// proposal message is decoded with the tx) with the error.
func refusedAtCheck(t *testing.T, n *Node, what string, key *ecdsa.PrivateKey, codespace string, code uint32, log string, msgs ...proto.Message) {
	t.Helper()
	res := broadcast(t, n, signTestnet(t, n, key, msgs...))
	if res.Code != code || res.Codespace != codespace || !strings.Contains(res.Log, log) {
		t.Errorf("%s: code %d (%s) %q; want %d %s %q", what, res.Code, res.Codespace, res.Log, code, codespace, log)
	}
}

// submitParamsProposal submits a MsgUpdateParams proposal with `emberd
// tx gov submit-proposal FILE` from key ("proposer" in home's keyring), in
// the SDK's file format.
func submitParamsProposal(t *testing.T, n *Node, home string, fees feeLedger, key *accounts.Key, p *govv1.Params, deposit string) {
	t.Helper()
	msg, err := protojson.Marshal(&govv1.MsgUpdateParams{Authority: govAccountBech32, Params: p})
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		t.Fatal(err)
	}
	fields["@type"], _ = json.Marshal("/cosmos.gov.v1.MsgUpdateParams")
	file := map[string]any{"messages": []any{fields}, "metadata": "", "deposit": deposit, "title": "raise min deposit", "summary": "min_deposit 20000000aember"}
	raw, _ := json.Marshal(file)
	path := filepath.Join(t.TempDir(), "proposal.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cliGov(t, n, home, fees, key.Address, "submit-proposal", path, "--from", "proposer")
}

// cliGov runs `emberd tx gov ARGS` with home's keyring and waits for the
// tx; it must succeed, and the fee its tx event names is who's.
func cliGov(t *testing.T, n *Node, home string, fees feeLedger, who common.Address, args ...string) {
	t.Helper()
	res := emberdTx(t, n, home, append([]string{"gov"}, args...)...)
	if res.Code != 0 {
		t.Fatalf("tx gov %v: %d %s", args, res.Code, res.RawLog)
	}
	hash, err := hex.DecodeString(res.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	fee, ok := eventAttr(waitCometTx(t, n, hash).TxResult.Events, "tx", "fee")
	if !ok {
		t.Fatalf("tx gov %v: no fee event", args)
	}
	fees.add(who, mustInt(t, fee))
}

// TestCosmjsGov runs test/clients/cosmjs-gov.mjs on a dev chain: cosmjs's
// stock SigningStargateClient submits a v1beta1 text proposal, another
// account tops up its deposit and the dev validator votes, each checked
// through cosmjs's gov query extension and the balances to the wei.
func TestCosmjsGov(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
	dir, err := filepath.Abs(filepath.Join("..", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found in PATH: the client tests need Node.js (>= 20) and npm to run test/clients: %v", err)
	}
	npmInstall(t, dir)
	n := StartDev(t, "--empty-block-interval", "1s")
	keys := make([]string, 3)
	for i := range keys { // key 0 operates the dev validator
		keys[i] = hexutil.Encode(crypto.FromECDSA(devKeys[i].Private))
	}
	start := time.Now()
	out, err := runScript(t, dir, nodeBin, "cosmjs-gov.mjs",
		"EMBER_COMET=http://"+n.CometRPC,
		"EMBER_RPC=http://"+n.HTTP,
		"EMBER_KEYS="+strings.Join(keys, ","),
	)
	if err != nil {
		t.Fatalf("node cosmjs-gov.mjs: %v\n%s", err, out)
	}
	t.Logf("node cosmjs-gov.mjs (%.1f s):\n%s", time.Since(start).Seconds(), out)
}
