package gov

import (
	"testing"

	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
)

const (
	yes     = govv1.VoteOption_VOTE_OPTION_YES
	abstain = govv1.VoteOption_VOTE_OPTION_ABSTAIN
	no      = govv1.VoteOption_VOTE_OPTION_NO
	veto    = govv1.VoteOption_VOTE_OPTION_NO_WITH_VETO
)

func single(o govv1.VoteOption) []*govv1.WeightedVoteOption {
	return []*govv1.WeightedVoteOption{{Option: o, Weight: dec.One().String()}}
}

// TestTally: the SDK's tally on hand-computed cases. V1 (60 tokens, 60
// shares: 50 its own, 10 of D1), V2 (40 tokens, 40 shares), V3 (100
// tokens for 300 shares: 100 of D2, 200 its own) — 200 bonded — and U,
// not bonded, with D3's delegation.
func TestTally(t *testing.T) {
	v1, v2, v3, u := addr(1), addr(2), addr(3), addr(9)
	d1, d2, d3 := addr(11), addr(12), addr(13)
	setup := func() *chain {
		c := newChain(t, testParams())
		c.sk.val(v1, 60, "60", "50")
		c.sk.delegate(d1, v1, "10")
		c.sk.val(v2, 40, "40", "40")
		c.sk.val(v3, 100, "300", "200")
		c.sk.delegate(d2, v3, "100")
		c.sk.delegate(d3, u, "1000")
		return c
	}
	type vote struct {
		voter common.Address
		opts  []*govv1.WeightedVoteOption
	}
	cases := []struct {
		name                  string
		votes                 []vote
		params                func(*Params)
		yes, abstain, no, vet string
		passes, burn          bool
	}{
		// D1 inherits V1's yes: 60 yes, 40 no, 100 of V3 no: 60/200 yes.
		{name: "inheritance", votes: []vote{{v1, single(yes)}, {v2, single(no)}, {v3, single(no)}},
			yes: "60", no: "140", abstain: "0", vet: "0"},
		// D1 overrides V1: V1 keeps 50; D2 (100×100/300 = 33.33…3) yes
		// and V3 the rest (200×100/300 = 66.66…7) no: yes 50+33.33 = 83
		// (truncated), no 10+40+66.67 = 116.
		{name: "override and exchange rate", votes: []vote{{v1, single(yes)}, {d1, single(no)}, {v2, single(no)}, {d2, single(yes)}, {v3, single(no)}},
			yes: "83", no: "116", abstain: "0", vet: "0"},
		// D1 splits 0.6 yes / 0.4 no of 10; V1 yes 50, V2 yes 40: yes 96,
		// no 4; quorum 100/200 = 0.5; 96/100 > 0.5 passes.
		{name: "weighted", votes: []vote{{v1, single(yes)}, {v2, single(yes)},
			{d1, []*govv1.WeightedVoteOption{{Option: yes, Weight: "0.600000000000000000"}, {Option: no, Weight: "0.400000000000000000"}}}},
			yes: "96", no: "4", abstain: "0", vet: "0", passes: true},
		// V2 alone: 40/200 = 0.2 < 0.334: fails quorum; no burn by default.
		{name: "quorum fails", votes: []vote{{v2, single(yes)}}, yes: "40", no: "0", abstain: "0", vet: "0"},
		{name: "quorum fails, burn_vote_quorum", votes: []vote{{v2, single(yes)}}, params: func(p *Params) { p.BurnVoteQuorum = true },
			yes: "40", no: "0", abstain: "0", vet: "0", burn: true},
		// veto 40 of 100 voting = 0.4 > 0.334: rejected and burned.
		{name: "veto", votes: []vote{{v1, single(yes)}, {v2, single(veto)}}, yes: "60", no: "0", abstain: "0", vet: "40", burn: true},
		{name: "veto, no burn_vote_veto", votes: []vote{{v1, single(yes)}, {v2, single(veto)}}, params: func(p *Params) { p.BurnVoteVeto = false },
			yes: "60", no: "0", abstain: "0", vet: "40"},
		// yes 50 of the 100 non-abstaining (D1 no 10, V2 no 40): exactly
		// the threshold 0.5 does not pass; abstain V3 is out of the ratio.
		{name: "threshold edge", votes: []vote{{v1, single(yes)}, {d1, single(no)}, {v2, single(no)}, {v3, single(abstain)}},
			yes: "50", no: "50", abstain: "100", vet: "0"},
		// one more share of yes passes: D2's 33.33 yes makes yes 83.33 of
		// 133.33 (V3's 66.67 abstains).
		{name: "threshold passed", votes: []vote{{v1, single(yes)}, {d1, single(no)}, {v2, single(no)}, {v3, single(abstain)}, {d2, single(yes)}},
			yes: "83", no: "50", abstain: "66", vet: "0", passes: true},
		// everyone abstains: fails, no burn.
		{name: "all abstain", votes: []vote{{v1, single(abstain)}, {v2, single(abstain)}, {v3, single(abstain)}}, yes: "0", no: "0", abstain: "200", vet: "0"},
		// D3's delegation to an unbonded validator counts nothing.
		{name: "unbonded delegation", votes: []vote{{d3, single(yes)}, {v2, single(no)}, {v3, single(no)}}, yes: "0", no: "140", abstain: "0", vet: "0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := setup()
			p := testParams()
			if tc.params != nil {
				tc.params(&p)
			}
			for _, v := range tc.votes {
				if err := setVote(c.st, 1, v.voter, &govv1.Vote{Options: v.opts}); err != nil {
					t.Fatal(err)
				}
			}
			out := tally(c.st, c.sk, p, 1)
			r := out.result
			if r.YesCount != tc.yes || r.NoCount != tc.no || r.AbstainCount != tc.abstain || r.NoWithVetoCount != tc.vet || out.passes != tc.passes || out.burn != tc.burn {
				t.Fatalf("tally yes %s no %s abstain %s veto %s passes %v burn %v; want %s %s %s %s %v %v",
					r.YesCount, r.NoCount, r.AbstainCount, r.NoWithVetoCount, out.passes, out.burn, tc.yes, tc.no, tc.abstain, tc.vet, tc.passes, tc.burn)
			}
		})
	}
}

// TestTallyNoBonded: with nothing bonded a proposal fails, nothing burned.
func TestTallyNoBonded(t *testing.T) {
	c := newChain(t, testParams())
	if err := setVote(c.st, 1, addr(1), &govv1.Vote{Options: single(yes)}); err != nil {
		t.Fatal(err)
	}
	out := tally(c.st, c.sk, testParams(), 1)
	if out.passes || out.burn || out.result.YesCount != "0" {
		t.Fatalf("%+v", out)
	}
}
