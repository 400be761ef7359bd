package e2e

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	paramsv1beta1 "cosmossdk.io/api/cosmos/params/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/gov"
	"github.com/emberchain/ember/internal/wait"
)

// TestParamChangeProposal: one gov v1 proposal carries a legacy
// ParameterChangeProposal (the fee market's base-fee floor and staking's
// max_validators, as Evmos-era tools send them) and a
// MsgCommunityPoolSpend. Passed by the validator's vote, it raises the
// floor every later block's base fee keeps to, changes the staking
// params the REST answers, and pays the recipient exactly from the
// community pool. A proposal naming an unregistered parameter is refused
// at submission with the params module's error and changes nothing.
func TestParamChangeProposal(t *testing.T) {
	t.Parallel()
	nw := InitNetwork(t, 1, 0)
	p := gov.DefaultParams()
	p.MaxDepositPeriod, p.VotingPeriod, p.ExpeditedVotingPeriod = 6*time.Second, 6*time.Second, 3*time.Second
	setGovParams(nw, p.Proto("ember", denom))
	n := nw.Nodes[0]
	n.Start("start")
	waitAllHeight(t, 3, n)
	home := nw.manifest().Nodes[0].Home
	proposer := devKeys[4]
	recipient := common.HexToAddress("0x00000000000000000000000000000000000c0a01")
	floor := gwei(5)
	if h := header(t, n, int64(n.height(t))); h.BaseFee.Cmp(floor) >= 0 {
		t.Fatalf("base fee %v already at the new floor", h.BaseFee)
	}

	legacy := func(changes ...*paramsv1beta1.ParamChange) *anypb.Any {
		return packAny(t, &govv1.MsgExecLegacyContent{Authority: govAccountBech32, Content: packAny(t, &paramsv1beta1.ParameterChangeProposal{
			Title: "parameters", Description: "raise the base-fee floor; seven validators", Changes: changes})})
	}
	submit := func(msgs ...*anypb.Any) *govv1.MsgSubmitProposal {
		return &govv1.MsgSubmitProposal{Messages: msgs, InitialDeposit: govCoins(p.MinDeposit.Int64()),
			Proposer: accounts.Bech32("ember", proposer.Address), Title: "parameters", Summary: "fee market, staking, community pool"}
	}

	// Refused at submission: the legacy content runs on a throwaway branch.
	r := deliver(t, n, signTestnet(t, n, proposer.Private, submit(legacy(&paramsv1beta1.ParamChange{Subspace: "staking", Key: "NotAKey", Value: "1"}))))
	if r.TxResult.Code == 0 || r.TxResult.Codespace != "gov" || !strings.Contains(r.TxResult.Log, "parameter NotAKey not registered") {
		t.Fatalf("unknown parameter: code %d (%s) %s", r.TxResult.Code, r.TxResult.Codespace, r.TxResult.Log)
	}
	if pr, code := proposalOf(t, n, 1); code != 404 {
		t.Fatalf("a refused proposal was stored: %+v", pr)
	}

	spend := packAny(t, &distrv1beta1.MsgCommunityPoolSpend{Authority: govAccountBech32, Recipient: accounts.Bech32("ember", recipient),
		Amount: []*basev1beta1.Coin{{Denom: denom, Amount: "1000"}}})
	govSend(t, n, feeLedger{}, proposer.Private, submit(legacy(
		&paramsv1beta1.ParamChange{Subspace: "feemarket", Key: "MinBaseFee", Value: `"` + floor.String() + `"`},
		&paramsv1beta1.ParamChange{Subspace: "staking", Key: "MaxValidators", Value: "7"},
	), spend))
	if res := emberdTx(t, n, home, "gov", "vote", "1", "yes", "--from", "validator"); res.Code != 0 {
		t.Fatalf("validator vote: %d %s", res.Code, res.RawLog)
	}
	wait.Eventually(t, 60*time.Second, "the proposal to pass", func() error {
		if pr, _ := proposalOf(t, n, 1); pr.Status != "PROPOSAL_STATUS_PASSED" {
			return fmt.Errorf("status %s", pr.Status)
		}
		return nil
	})
	passedAt := int64(n.height(t))

	var sp struct {
		Params struct {
			MaxValidators int `json:"max_validators"`
		} `json:"params"`
	}
	restJSON(t, n, "/cosmos/staking/v1beta1/params", 0, &sp)
	if sp.Params.MaxValidators != 7 {
		t.Errorf("max_validators %d after the proposal, want 7", sp.Params.MaxValidators)
	}
	if got := balanceAtHeight(t, n, recipient, passedAt); got.Cmp(big.NewInt(1000)) != 0 {
		t.Errorf("recipient holds %v after the spend, want 1000", got)
	}
	// Every block after the one that ran the proposal keeps to the floor;
	// an idle chain's base fee falls to it.
	waitAllHeight(t, uint64(passedAt+3), n)
	for h := passedAt + 1; h <= passedAt+3; h++ {
		if fee := header(t, n, h).BaseFee; fee.Cmp(floor) < 0 {
			t.Errorf("block %d base fee %v under the new floor %v", h, fee, floor)
		}
	}
	if fee := header(t, n, passedAt+3).BaseFee; fee.Cmp(floor) != 0 {
		t.Errorf("idle chain's base fee %v at block %d, want the floor %v", fee, passedAt+3, floor)
	}
}
