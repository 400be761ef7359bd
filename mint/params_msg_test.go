package mint

import (
	"math/big"
	"testing"

	mintv1beta1 "cosmossdk.io/api/cosmos/mint/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// writes counts the writes made through it: a refusal must make none.
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

func execParams(t *testing.T, st module.State, msg *mintv1beta1.MsgUpdateParams) (int, error) {
	t.Helper()
	r := module.NewRouter()
	for _, h := range (Module{}).Msgs() {
		r.Register(h)
	}
	value, _ := proto.Marshal(msg)
	m, err := r.Decode(&anypb.Any{TypeUrl: TypeMsgUpdateParams, Value: value}, module.Codec{Prefix: "ember", Denom: "aember"})
	if err != nil {
		return 0, err
	}
	w := &writes{State: st}
	err = m.Exec(w, &module.MsgContext{Env: &module.Env{Prefix: "ember", Denom: "aember"}, Events: module.NewEvents("ember", "aember"), Index: "0"})
	return w.n, err
}

func protoParams() *mintv1beta1.Params {
	return &mintv1beta1.Params{
		MintDenom: "aember", InflationRateChange: "200000000000000000", InflationMax: "100000000000000000",
		InflationMin: "50000000000000000", GoalBonded: "500000000000000000", BlocksPerYear: 1000,
	}
}

// TestUpdateParamsApplied: the params land exactly, the minter is kept,
// and the next block mints by them: the inflation of 13% is clamped to the
// new maximum of 10%, and the block mints 10% × 1000·10^18 / 1000 =
// 10^17.
func TestUpdateParamsApplied(t *testing.T) {
	st := newState(t, 500, DefaultParams(), Minter{Inflation: dec.MustParse("0.13"), AnnualProvisions: dec.Zero()})
	if _, err := execParams(t, st, &mintv1beta1.MsgUpdateParams{Authority: govBech32, Params: protoParams()}); err != nil {
		t.Fatal(err)
	}
	got := GetParams(st)
	if got.InflationRateChange.String() != "0.200000000000000000" || got.InflationMax.String() != "0.100000000000000000" ||
		got.InflationMin.String() != "0.050000000000000000" || got.GoalBonded.String() != "0.500000000000000000" || got.BlocksPerYear != 1000 {
		t.Fatalf("params %+v", got)
	}
	if m := GetMinter(st); m.Inflation.String() != "0.130000000000000000" {
		t.Fatalf("minter changed: %+v", m)
	}
	ev := begin(t, st)
	want := []string{"bonded_ratio=0.500000000000000000", "inflation=0.100000000000000000", "annual_provisions=100000000000000000000.000000000000000000", "amount=100000000000000000"}
	if len(ev) != 4 || ev[0] != want[0] || ev[1] != want[1] || ev[2] != want[2] || ev[3] != want[3] {
		t.Fatalf("mint event %v, want %v", ev, want)
	}
	minted, _ := new(big.Int).SetString("100000000000000000", 10)
	if got := st.GetBalance(collector).ToBig(); got.Cmp(minted) != 0 || bank.Supply(st).Cmp(new(big.Int).Add(e18(1000), minted)) != 0 {
		t.Fatalf("collector %v supply %v", got, bank.Supply(st))
	}
}

// TestUpdateParamsRefused: the wrong authority and every invalid value get
// the SDK's error and write nothing; a chain without mint refuses.
func TestUpdateParamsRefused(t *testing.T) {
	st := newState(t, 500, DefaultParams(), Minter{Inflation: dec.MustParse("0.13"), AnnualProvisions: dec.Zero()})
	other := accounts.Bech32("ember", holder)
	for _, tc := range []struct {
		name      string
		authority string
		edit      func(p *mintv1beta1.Params)
		codespace string
		code      uint32
		text      string
	}{
		{"wrong authority", other, nil, "gov", 13, "invalid authority; expected " + govBech32 + ", got " + other + ": expected gov account as only signer for proposal message"},
		{"blank denom", govBech32, func(p *mintv1beta1.Params) { p.MintDenom = "" }, "undefined", 1, "mint denom cannot be blank"},
		{"other denom", govBech32, func(p *mintv1beta1.Params) { p.MintDenom = "uatom" }, "undefined", 1, "mint denom uatom: the chain's only coin is aember, which mint always mints"},
		{"nil rate change", govBech32, func(p *mintv1beta1.Params) { p.InflationRateChange = "" }, "undefined", 1, "inflation rate change cannot be nil: <nil>"},
		{"negative rate change", govBech32, func(p *mintv1beta1.Params) { p.InflationRateChange = "-1" }, "undefined", 1, "inflation rate change cannot be negative: -0.000000000000000001"},
		{"max above 1", govBech32, func(p *mintv1beta1.Params) { p.InflationMax = "1100000000000000000" }, "undefined", 1, "max inflation too large: 1.100000000000000000"},
		{"negative min", govBech32, func(p *mintv1beta1.Params) { p.InflationMin = "-50000000000000000" }, "undefined", 1, "min inflation cannot be negative: -0.050000000000000000"},
		{"goal 0", govBech32, func(p *mintv1beta1.Params) { p.GoalBonded = "0" }, "undefined", 1, "goal bonded must be positive: 0.000000000000000000"},
		{"goal above 1", govBech32, func(p *mintv1beta1.Params) { p.GoalBonded = "2000000000000000000" }, "undefined", 1, "goal bonded too large: 2.000000000000000000"},
		{"no blocks", govBech32, func(p *mintv1beta1.Params) { p.BlocksPerYear = 0 }, "undefined", 1, "blocks per year must be positive: 0"},
		{"max below min", govBech32, func(p *mintv1beta1.Params) { p.InflationMax = "10000000000000000" }, "undefined", 1,
			"max inflation (0.010000000000000000) must be greater than or equal to min inflation (0.050000000000000000)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := protoParams()
			if tc.edit != nil {
				tc.edit(p)
			}
			n, err := execParams(t, st, &mintv1beta1.MsgUpdateParams{Authority: tc.authority, Params: p})
			e := module.AsError(err)
			if err == nil || e.Codespace != tc.codespace || e.Code != tc.code || err.Error() != tc.text {
				t.Fatalf("error %v (%s/%d), want %s/%d %q", err, e.Codespace, e.Code, tc.codespace, tc.code, tc.text)
			}
			if n != 0 || GetParams(st).BlocksPerYear != DefaultParams().BlocksPerYear {
				t.Fatalf("%d writes on a refusal", n)
			}
		})
	}
	off, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	n, err := execParams(t, off, &mintv1beta1.MsgUpdateParams{Authority: govBech32, Params: protoParams()})
	if e := module.AsError(err); err == nil || e.Code != module.CodeUnknownRequest || n != 0 {
		t.Fatalf("chain without mint: %v, %d writes", err, n)
	}
}
