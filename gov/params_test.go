package gov

import (
	"math/big"
	"strings"
	"testing"
	"time"

	govv1 "cosmossdk.io/api/cosmos/gov/v1"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// TestParamsValidate: the SDK's ValidateBasic texts, and a round trip
// through the state and the SDK's proto.
func TestParamsValidate(t *testing.T) {
	codec := module.Codec{Prefix: testPrefix, Denom: testDenom}
	cases := []struct {
		name string
		edit func(*govv1.Params)
		want string
	}{
		{"quorum above 1", func(p *govv1.Params) { p.Quorum = "1.1" }, "quorom too large: 1.100000000000000000"},
		{"negative quorum", func(p *govv1.Params) { p.Quorum = "-0.1" }, "quorom cannot be negative: -0.100000000000000000"},
		{"zero threshold", func(p *govv1.Params) { p.Threshold = "0" }, "vote threshold must be positive: 0.000000000000000000"},
		{"veto above 1", func(p *govv1.Params) { p.VetoThreshold = "2" }, "veto threshold too large: 2.000000000000000000"},
		{"expedited threshold not above", func(p *govv1.Params) { p.ExpeditedThreshold = "0.5" },
			"expedited vote threshold 0.500000000000000000, must be greater than the regular threshold 0.500000000000000000"},
		{"bad decimal", func(p *govv1.Params) { p.Threshold = "half" }, `invalid threshold string: `},
		{"zero voting period", func(p *govv1.Params) { p.VotingPeriod.Seconds = 0 }, "voting period must be positive: 0s"},
		{"expedited period not shorter", func(p *govv1.Params) { p.ExpeditedVotingPeriod.Seconds = 172800 },
			"expedited voting period 48h0m0s must be strictly less that the regular voting period 48h0m0s"},
		{"expedited deposit not above", func(p *govv1.Params) { p.ExpeditedMinDeposit[0].Amount = "10000000" },
			"expedited minimum deposit must be greater than minimum deposit: 10000000"},
		{"other denom", func(p *govv1.Params) { p.MinDeposit[0].Denom = "uatom" }, "invalid minimum deposit: 10000000uatom"},
		{"bad cancel dest", func(p *govv1.Params) { p.ProposalCancelDest = "cosmos1xyz" }, "deposits destination address is invalid: cosmos1xyz"},
	}
	for _, c := range cases {
		p := DefaultParams().Proto(testPrefix, testDenom)
		c.edit(p)
		_, err := ParamsFromProto(p, codec)
		if err == nil || (err.Error() != c.want && !(c.name == "bad decimal" && strings.HasPrefix(err.Error(), c.want))) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	c := newChain(t, testParams())
	p := testParams()
	p.ProposalCancelDest = ptr(addr(5))
	p.BurnVoteQuorum, p.BurnVoteVeto, p.MinDepositRatio, p.MaxDepositPeriod = true, false, dec.MustParse("0.02"), 3*time.Second
	if err := SetParams(c.st, p); err != nil {
		t.Fatal(err)
	}
	back, err := ParamsFromProto(GetParams(c.st).Proto(testPrefix, testDenom), codec)
	if err != nil || back.MinDeposit.Cmp(big.NewInt(1000)) != 0 || *back.ProposalCancelDest != addr(5) || !back.BurnVoteQuorum || back.BurnVoteVeto ||
		!back.MinDepositRatio.Equal(dec.MustParse("0.02")) || back.MaxDepositPeriod != 3*time.Second || !back.MinInitialDepositRatio.Equal(dec.MustParse("0.1")) {
		t.Fatalf("round trip: %+v %v", back, err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestInvalidParamsProposal: a MsgUpdateParams with invalid params is
// accepted at submission (the SDK checks messages only by decoding them)
// and FAILS on execution, the parameters unchanged.
func TestInvalidParamsProposal(t *testing.T) {
	c := lifecycle(t, testParams())
	bad := testParams().Proto(testPrefix, testDenom)
	bad.Quorum = "1.5"
	c.mustTx(paramsProposal(t, 1_000, &govv1.MsgUpdateParams{Authority: bech(module.GovAuthority), Params: bad}))
	c.mustTx(vote(1, 1, yes))
	c.endBlock(20 * time.Second)
	p, _ := GetProposal(c.st, 1)
	if p.Status != govv1.ProposalStatus_PROPOSAL_STATUS_FAILED || p.FailedReason != "quorom too large: 1.500000000000000000" || !GetParams(c.st).Quorum.Equal(testParams().Quorum) {
		t.Fatalf("status %v reason %q quorum %v", p.Status, p.FailedReason, GetParams(c.st).Quorum)
	}
}
