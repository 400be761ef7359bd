package paramchange

import (
	"math/big"
	"strconv"
	"testing"
	"time"

	paramsv1beta1 "cosmossdk.io/api/cosmos/params/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/feemarket"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slashing"
	"github.com/emberchain/ember/staking"
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

// chainState has every module on, with the SDK's defaults and the bond
// denom aember recorded.
func chainState(t *testing.T) *state.StateDB {
	t.Helper()
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	sp := staking.DefaultParams()
	sp.BondDenom = "aember"
	for _, err := range []error{
		staking.UpdateParams(st, sp), slashing.Init(st, slashing.DefaultParams()), distribution.Init(st, distribution.DefaultParams()),
		mint.Init(st, mint.DefaultParams(), mint.Minter{Inflation: dec.MustParse("0.13"), AnnualProvisions: dec.Zero()}),
		feemarket.SetParams(st, feemarket.Params{MinBaseFee: big.NewInt(1_000_000_000)}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func change(sub, key, value string) []*paramsv1beta1.ParamChange {
	return []*paramsv1beta1.ParamChange{{Subspace: sub, Key: key, Value: value}}
}

func q(s string) string { return strconv.Quote(s) }

func decJSON(d dec.Dec) string { return q(d.String()) }

// TestRoundTrip: every key of every subspace is written and reads back as
// the same amino JSON.
func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		sub, key, value string
		read            func(st module.Reader) string
	}{
		{"staking", "UnbondingTime", q("1209600000000000"), func(st module.Reader) string {
			return q(strconv.FormatInt(int64(staking.GetParams(st).UnbondingTime), 10))
		}},
		{"staking", "MaxValidators", "50", func(st module.Reader) string { return strconv.FormatUint(staking.GetParams(st).MaxValidators, 10) }},
		{"staking", "MaxEntries", "9", func(st module.Reader) string { return strconv.FormatUint(staking.GetParams(st).MaxEntries, 10) }},
		{"staking", "HistoricalEntries", "10000", func(st module.Reader) string { return strconv.FormatUint(staking.GetParams(st).HistoricalEntries, 10) }},
		{"staking", "BondDenom", q("aember"), func(st module.Reader) string { return q(staking.GetParams(st).BondDenom) }},
		{"staking", "MinCommissionRate", q("0.050000000000000000"), func(st module.Reader) string { return decJSON(staking.GetParams(st).MinCommissionRate) }},
		{"slashing", "SignedBlocksWindow", q("10000"), func(st module.Reader) string {
			return q(strconv.FormatInt(slashing.GetParams(st).SignedBlocksWindow, 10))
		}},
		{"slashing", "MinSignedPerWindow", q("0.050000000000000000"), func(st module.Reader) string { return decJSON(slashing.GetParams(st).MinSignedPerWindow) }},
		{"slashing", "DowntimeJailDuration", q("60000000000"), func(st module.Reader) string {
			return q(strconv.FormatInt(int64(slashing.GetParams(st).DowntimeJailDuration), 10))
		}},
		{"slashing", "SlashFractionDoubleSign", q("0.100000000000000000"), func(st module.Reader) string { return decJSON(slashing.GetParams(st).SlashFractionDoubleSign) }},
		{"slashing", "SlashFractionDowntime", q("0.000100000000000000"), func(st module.Reader) string { return decJSON(slashing.GetParams(st).SlashFractionDowntime) }},
		{"distribution", "communitytax", q("0.030000000000000000"), func(st module.Reader) string { return decJSON(distribution.GetParams(st).CommunityTax) }},
		{"distribution", "baseproposerreward", q("0.010000000000000000"), func(st module.Reader) string { return decJSON(distribution.GetParams(st).BaseProposerReward) }},
		{"distribution", "bonusproposerreward", q("0.040000000000000000"), func(st module.Reader) string { return decJSON(distribution.GetParams(st).BonusProposerReward) }},
		{"distribution", "withdrawaddrenabled", "false", func(st module.Reader) string {
			return strconv.FormatBool(distribution.GetParams(st).WithdrawAddrEnabled)
		}},
		{"mint", "MintDenom", q("aember"), func(module.Reader) string { return q("aember") }},
		{"mint", "InflationRateChange", q("0.200000000000000000"), func(st module.Reader) string { return decJSON(mint.GetParams(st).InflationRateChange) }},
		{"mint", "InflationMax", q("0.300000000000000000"), func(st module.Reader) string { return decJSON(mint.GetParams(st).InflationMax) }},
		{"mint", "InflationMin", q("0.010000000000000000"), func(st module.Reader) string { return decJSON(mint.GetParams(st).InflationMin) }},
		{"mint", "GoalBonded", q("0.500000000000000000"), func(st module.Reader) string { return decJSON(mint.GetParams(st).GoalBonded) }},
		{"mint", "BlocksPerYear", q("5256000"), func(st module.Reader) string { return q(strconv.FormatUint(mint.GetParams(st).BlocksPerYear, 10)) }},
		{"feemarket", "MinBaseFee", q("2500000000"), func(st module.Reader) string { return q(feemarket.MinBaseFee(st, nil).String()) }},
	} {
		t.Run(tc.sub+"/"+tc.key, func(t *testing.T) {
			st := chainState(t)
			if err := Apply(st, change(tc.sub, tc.key, tc.value)); err != nil {
				t.Fatal(err)
			}
			if got := tc.read(st); got != tc.value {
				t.Fatalf("%s/%s reads back %s, want %s", tc.sub, tc.key, got, tc.value)
			}
		})
	}
}

// TestRefusals: the SDK's params errors, and nothing written.
func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes []*paramsv1beta1.ParamChange
		code    uint32
		text    string
	}{
		{"no changes", nil, 4, "submitted parameter changes are empty"},
		{"empty subspace", change("", "MaxValidators", "1"), 5, "parameter subspace is empty"},
		{"empty key", change("staking", "", "1"), 6, "parameter key is empty"},
		{"empty value", change("staking", "MaxValidators", ""), 7, "parameter value is empty"},
		{"unknown subspace", change("bank", "SendEnabled", "[]"), 2, "bank: unknown subspace"},
		{"unknown key", change("staking", "MaxValidator", "1"), 3, "key: MaxValidator, value: 1, err: parameter MaxValidator not registered: failed to set parameter"},
		{"quoted uint32", change("staking", "MaxValidators", q("50")), 3, `key: MaxValidators, value: "50", err: invalid uint32 "50": amino JSON writes it as a bare number: failed to set parameter`},
		{"bare int64", change("slashing", "SignedBlocksWindow", "100"), 3, "key: SignedBlocksWindow, value: 100, err: invalid int64 100: amino JSON writes it as a quoted string: failed to set parameter"},
		{"bad JSON", change("distribution", "communitytax", `"0.1`), 3, `key: communitytax, value: "0.1, err: invalid decimal "0.1: amino JSON writes it as a quoted string: failed to set parameter`},
		{"bad decimal", change("mint", "GoalBonded", q("half")), 3, `key: GoalBonded, value: "half", err: invalid decimal "half": failed to set parameter`},
		{"max validators 0", change("staking", "MaxValidators", "0"), 3, "key: MaxValidators, value: 0, err: max validators must be positive: 0: failed to set parameter"},
		{"negative unbonding", change("staking", "UnbondingTime", q("-1")), 3, `key: UnbondingTime, value: "-1", err: unbonding time must be positive: -1: failed to set parameter`},
		{"fractional second", change("staking", "UnbondingTime", q("1500000000")), 3, "subspace staking: unbonding time must be a whole number of seconds: 1.5s: failed to set parameter"},
		{"other bond denom", change("staking", "BondDenom", q("uatom")), 3, `key: BondDenom, value: "uatom", err: denom uatom: the chain's only coin aember is its bond and mint denom, which cannot change: failed to set parameter`},
		{"tax above 1", change("distribution", "communitytax", q("1.5")), 3, `key: communitytax, value: "1.5", err: community tax too large: 1.500000000000000000: failed to set parameter`},
		{"jail 0", change("slashing", "DowntimeJailDuration", q("0")), 3, `key: DowntimeJailDuration, value: "0", err: downtime jail duration must be positive: 0s: failed to set parameter`},
		{"negative floor", change("feemarket", "MinBaseFee", q("-1")), 3, `key: MinBaseFee, value: "-1", err: min base fee cannot be negative: -1: failed to set parameter`},
		{"max below min", change("mint", "InflationMax", q("0.05")), 3,
			"subspace mint: max inflation (0.050000000000000000) must be greater than or equal to min inflation (0.070000000000000000): failed to set parameter"},
		{"rewards above 1", []*paramsv1beta1.ParamChange{
			{Subspace: "distribution", Key: "communitytax", Value: q("0.5")}, {Subspace: "distribution", Key: "baseproposerreward", Value: q("0.6")},
		}, 3, "subspace distribution: community_tax + base_proposer_reward + bonus_proposer_reward is 1.100000000000000000: want at most 1: failed to set parameter"},
		{"second change invalid", []*paramsv1beta1.ParamChange{
			{Subspace: "staking", Key: "MaxValidators", Value: "7"}, {Subspace: "feemarket", Key: "MinBaseFee", Value: "7"},
		}, 3, "key: MinBaseFee, value: 7, err: invalid integer 7: amino JSON writes it as a quoted string: failed to set parameter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &writes{State: chainState(t)}
			err := Apply(w, tc.changes)
			e := module.AsError(err)
			if err == nil || e.Codespace != Codespace || e.Code != tc.code || err.Error() != tc.text {
				t.Fatalf("error %v (%s/%d), want params/%d %q", err, e.Codespace, e.Code, tc.code, tc.text)
			}
			if w.n != 0 {
				t.Fatalf("%d writes on a refusal", w.n)
			}
		})
	}
}

// TestSeveralChanges: several subspaces change at once, in one proposal.
func TestSeveralChanges(t *testing.T) {
	st := chainState(t)
	err := Apply(st, []*paramsv1beta1.ParamChange{
		{Subspace: "staking", Key: "MaxValidators", Value: "3"},
		{Subspace: "staking", Key: "UnbondingTime", Value: q("3600000000000")},
		{Subspace: "mint", Key: "InflationMin", Value: q("0")},
		{Subspace: "feemarket", Key: "MinBaseFee", Value: q("0")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := staking.GetParams(st); p.MaxValidators != 3 || p.UnbondingTime != time.Hour || p.MaxEntries != 7 {
		t.Fatalf("staking %+v", p)
	}
	if got := mint.GetParams(st).InflationMin; !got.IsZero() {
		t.Fatalf("inflation min %s", got)
	}
	if got := feemarket.MinBaseFee(st, big.NewInt(5)); got.Sign() != 0 {
		t.Fatalf("min base fee %v, want 0 (recorded, not the fallback)", got)
	}
}

// TestExec: the proposal content runs Apply; other content is refused.
func TestExec(t *testing.T) {
	st := chainState(t)
	if err := Exec(st, &paramsv1beta1.ParameterChangeProposal{Title: "t", Description: "d", Changes: change("staking", "MaxEntries", "11")}); err != nil {
		t.Fatal(err)
	}
	if got := staking.GetParams(st).MaxEntries; got != 11 {
		t.Fatalf("max entries %d, want 11", got)
	}
	err := Exec(st, &paramsv1beta1.ParamChange{})
	if e := module.AsError(err); err == nil || e.Code != module.CodeInvalidRequest {
		t.Fatalf("other content: %v", err)
	}
}
