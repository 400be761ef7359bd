package staking

import (
	"math/big"
	"testing"
	"time"

	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// writes counts the writes made through it: a refused message must make
// none.
type writes struct {
	module.State
	n int
}

func (w *writes) SetState(a common.Address, k, v common.Hash) common.Hash {
	w.n++
	return w.State.SetState(a, k, v)
}

func (w *writes) AddBalance(a common.Address, v *uint256.Int, r tracing.BalanceChangeReason) uint256.Int {
	w.n++
	return w.State.AddBalance(a, v, r)
}

func (w *writes) SubBalance(a common.Address, v *uint256.Int, r tracing.BalanceChangeReason) uint256.Int {
	w.n++
	return w.State.SubBalance(a, v, r)
}

func (w *writes) SetNonce(a common.Address, n uint64, r tracing.NonceChangeReason) {
	w.n++
	w.State.SetNonce(a, n, r)
}

var govBech32 = accounts.Bech32("ember", module.GovAuthority)

// execParams decodes and executes a MsgUpdateParams as a passed proposal
// runs it; the refusal's writes are counted.
func execParams(t *testing.T, c *chain, msg *stakingv1beta1.MsgUpdateParams) (int, error) {
	t.Helper()
	r := module.NewRouter()
	for _, h := range (Module{Keeper: c.k}).Msgs() {
		r.Register(h)
	}
	value, _ := proto.Marshal(msg)
	m, err := r.Decode(&anypb.Any{TypeUrl: TypeMsgUpdateParams, Value: value}, module.Codec{Prefix: "ember", Denom: "aember"})
	if err != nil {
		return 0, err
	}
	w := &writes{State: c.st}
	err = m.Exec(w, &module.MsgContext{Env: &module.Env{Prefix: "ember", Denom: "aember"}, Events: module.NewEvents("ember", "aember"), Index: "0"})
	return w.n, err
}

func protoParams() *stakingv1beta1.Params {
	return &stakingv1beta1.Params{
		UnbondingTime: durationpb.New(50 * time.Second), MaxValidators: 2, MaxEntries: 3, HistoricalEntries: 5,
		BondDenom: "aember", MinCommissionRate: "50000000000000000", // 0.05
	}
}

// TestUpdateParamsApplied: every field lands exactly; max_validators
// shrinks the next end-block's set; a new unbonding time applies to new
// entries only.
func TestUpdateParamsApplied(t *testing.T) {
	c := newChain(t, testParams(), opA, opB, opC, del1)
	c.create(opA, e18(30), "0.1")
	c.create(opB, e18(20), "0.1")
	c.create(opC, e18(10), "0.1")
	if _, err := c.k.Delegate(c.st, del1, opA, e18(10)); err != nil {
		t.Fatal(err)
	}
	c.block(time.Second)
	if _, _, err := c.k.Undelegate(c.st, del1, opA, e18(1), c.height, c.now); err != nil { // under the old 100 s
		t.Fatal(err)
	}
	oldDone := c.now.Add(100 * time.Second)
	if _, err := execParams(t, c, &stakingv1beta1.MsgUpdateParams{Authority: govBech32, Params: protoParams()}); err != nil {
		t.Fatal(err)
	}
	want := Params{UnbondingTime: 50 * time.Second, MaxValidators: 2, MaxEntries: 3, HistoricalEntries: 5, BondDenom: "aember", MinCommissionRate: dec.MustParse("0.05")}
	if got := GetParams(c.st); got.UnbondingTime != want.UnbondingTime || got.MaxValidators != want.MaxValidators || got.MaxEntries != want.MaxEntries ||
		got.HistoricalEntries != want.HistoricalEntries || got.BondDenom != want.BondDenom || !got.MinCommissionRate.Equal(want.MinCommissionRate) {
		t.Fatalf("params %+v, want %+v", got, want)
	}
	if !c.val(opC).IsBonded() {
		t.Fatal("opC left the set before the end-block")
	}
	c.block(time.Second)
	if !c.val(opA).IsBonded() || !c.val(opB).IsBonded() || c.val(opC).IsBonded() {
		t.Fatalf("bonded after max_validators 2: A %v B %v C %v", c.val(opA).Status, c.val(opB).Status, c.val(opC).Status)
	}
	if _, _, err := c.k.Undelegate(c.st, del1, opA, e18(2), c.height, c.now); err != nil { // under the new 50 s
		t.Fatal(err)
	}
	entries := UnbondingEntries(c.st, del1, opA)
	if len(entries) != 2 || !entries[0].CompletionTime.Equal(oldDone) || !entries[1].CompletionTime.Equal(c.now.Add(50*time.Second)) {
		t.Fatalf("entries %+v: want completions %v and %v", entries, oldDone, c.now.Add(50*time.Second))
	}
	before := c.st.GetBalance(del1).ToBig()
	c.block(50 * time.Second) // the new entry matures, the old one not yet
	bigEq(t, "paid after 50 s", c.st.GetBalance(del1).ToBig(), new(big.Int).Add(before, e18(2)))
	c.block(50 * time.Second)
	bigEq(t, "paid after 100 s", c.st.GetBalance(del1).ToBig(), new(big.Int).Add(before, e18(3)))

	// The authority's 0x spelling is the same account.
	p := protoParams()
	p.MaxValidators = 3
	if _, err := execParams(t, c, &stakingv1beta1.MsgUpdateParams{Authority: module.GovAuthority.Hex(), Params: p}); err != nil {
		t.Fatal(err)
	}
	if got := GetParams(c.st).MaxValidators; got != 3 {
		t.Fatalf("max_validators %d after the 0x authority's change, want 3", got)
	}
}

// TestUpdateParamsRefused: the wrong authority and every invalid value get
// the SDK's error, and nothing is written.
func TestUpdateParamsRefused(t *testing.T) {
	c := newChain(t, testParams(), opA)
	c.create(opA, e18(10), "0.1")
	before := GetParams(c.st)
	other := accounts.Bech32("ember", opA)
	for _, tc := range []struct {
		name      string
		authority string
		edit      func(p *stakingv1beta1.Params)
		codespace string
		code      uint32
		text      string
	}{
		{"wrong authority", other, nil, "gov", 13, "invalid authority; expected " + govBech32 + ", got " + other + ": expected gov account as only signer for proposal message"},
		{"unbonding time 0", govBech32, func(p *stakingv1beta1.Params) { p.UnbondingTime = nil }, "undefined", 1, "unbonding time must be positive: 0"},
		{"negative unbonding time", govBech32, func(p *stakingv1beta1.Params) { p.UnbondingTime = durationpb.New(-time.Second) }, "undefined", 1, "unbonding time must be positive: -1000000000"},
		{"max validators 0", govBech32, func(p *stakingv1beta1.Params) { p.MaxValidators = 0 }, "undefined", 1, "max validators must be positive: 0"},
		{"max entries 0", govBech32, func(p *stakingv1beta1.Params) { p.MaxEntries = 0 }, "undefined", 1, "max entries must be positive: 0"},
		{"blank bond denom", govBech32, func(p *stakingv1beta1.Params) { p.BondDenom = " " }, "undefined", 1, "bond denom cannot be blank"},
		{"invalid bond denom", govBech32, func(p *stakingv1beta1.Params) { p.BondDenom = "1x" }, "undefined", 1, "invalid denom: 1x"},
		{"other bond denom", govBech32, func(p *stakingv1beta1.Params) { p.BondDenom = "uatom" }, "undefined", 1, "bond denom uatom: the bond denom is the chain's only coin, aember, and cannot change"},
		{"nil min commission", govBech32, func(p *stakingv1beta1.Params) { p.MinCommissionRate = "" }, "undefined", 1, "minimum commission rate cannot be nil: <nil>"},
		{"negative min commission", govBech32, func(p *stakingv1beta1.Params) { p.MinCommissionRate = "-1" }, "undefined", 1, "minimum commission rate cannot be negative: -0.000000000000000001"},
		{"min commission above 1", govBech32, func(p *stakingv1beta1.Params) { p.MinCommissionRate = "1000000000000000001" }, "undefined", 1, "minimum commission rate cannot be greater than 100%: 1.000000000000000001"},
		{"fractional second", govBech32, func(p *stakingv1beta1.Params) { p.UnbondingTime = durationpb.New(1500 * time.Millisecond) }, "undefined", 1, "unbonding time must be a whole number of seconds: 1.5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := protoParams()
			if tc.edit != nil {
				tc.edit(p)
			}
			n, err := execParams(t, c, &stakingv1beta1.MsgUpdateParams{Authority: tc.authority, Params: p})
			e := module.AsError(err)
			if err == nil || e.Codespace != tc.codespace || e.Code != tc.code || err.Error() != tc.text {
				t.Fatalf("error %v (%s/%d), want %s/%d %q", err, e.Codespace, e.Code, tc.codespace, tc.code, tc.text)
			}
			if n != 0 {
				t.Fatalf("%d writes on a refusal", n)
			}
			if got := GetParams(c.st); got.UnbondingTime != before.UnbondingTime || got.MaxValidators != before.MaxValidators || got.BondDenom != before.BondDenom {
				t.Fatalf("params changed: %+v", got)
			}
		})
	}
}
