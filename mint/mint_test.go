package mint

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

var (
	collector = common.HexToAddress("0x0000000000000000000000000000000000000B12")
	pool      = common.HexToAddress("0x0000000000000000000000000000000000000B0D")
	holder    = common.Address{0xaa}
)

func e18(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// newState has 1000·10^18 in supply, bonded of it in the bonded pool.
func newState(t *testing.T, bonded int64, p Params, m Minter) *state.StateDB {
	t.Helper()
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	st.AddBalance(pool, uint256.MustFromBig(e18(bonded)), tracing.BalanceChangeUnspecified)
	st.AddBalance(holder, uint256.MustFromBig(e18(1000-bonded)), tracing.BalanceChangeUnspecified)
	bank.InitSupply(st, e18(1000))
	if err := Init(st, p, m); err != nil {
		t.Fatal(err)
	}
	return st
}

func begin(t *testing.T, st module.State) []string {
	t.Helper()
	ev := module.NewEvents("ember", "aember")
	if err := (Module{Collector: collector, BondedPool: pool}).BeginBlock(st, &module.Block{Env: &module.Env{Height: 1}, Info: &module.BlockInfo{}, Events: ev}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ev.List() {
		if e.Type == "mint" {
			for _, a := range e.Attributes {
				out = append(out, a.Key+"="+a.Value)
			}
		}
	}
	return out
}

// TestMintBlock: at half bonded against a 67% goal the inflation rises by
// (1 − 0.5/0.67) × 0.13 / blocks_per_year; the block mints
// inflation × supply / blocks_per_year into the fee collector, and the
// supply stays the sum of the balances.
func TestMintBlock(t *testing.T) {
	st := newState(t, 500, DefaultParams(), Minter{Inflation: dec.MustParse("0.13"), AnnualProvisions: dec.Zero()})
	got := begin(t, st)
	want := []string{"bonded_ratio=0.500000000000000000", "inflation=0.130000005226169707",
		"annual_provisions=130000005226169707000.000000000000000000", "amount=20597257907155"}
	if len(got) != len(want) {
		t.Fatalf("mint event %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("mint event %v, want %v", got, want)
		}
	}
	if c := st.GetBalance(collector).Uint64(); c != 20597257907155 {
		t.Fatalf("fee collector %d", c)
	}
	sum := new(big.Int).Add(e18(1000), big.NewInt(20597257907155))
	if bank.Supply(st).Cmp(sum) != 0 {
		t.Fatalf("supply %v, want %v", bank.Supply(st), sum)
	}
}

// TestMintBounds: the inflation stays within [min, max]; at zero
// inflation nothing is minted and no event is emitted.
func TestMintBounds(t *testing.T) {
	p := DefaultParams()
	st := newState(t, 0, p, Minter{Inflation: dec.MustParse("0.2")})
	if got := begin(t, st); got[1] != "inflation=0.200000000000000000" {
		t.Fatalf("above max: %v", got)
	}
	st = newState(t, 1000, p, Minter{Inflation: dec.MustParse("0.07")})
	if got := begin(t, st); got[1] != "inflation=0.070000000000000000" {
		t.Fatalf("below min: %v", got)
	}
	p.InflationMin = dec.Zero()
	st = newState(t, 1000, p, Minter{Inflation: dec.Zero()})
	if got := begin(t, st); len(got) != 0 || !st.GetBalance(collector).IsZero() || bank.Supply(st).Cmp(e18(1000)) != 0 {
		t.Fatalf("zero inflation: %v, collector %v", got, st.GetBalance(collector))
	}
	if err := Init(st, Params{GoalBonded: dec.Zero(), BlocksPerYear: 1}, Minter{}); err == nil {
		t.Fatal("goal_bonded 0 accepted")
	}
}

// TestMintGenesis: the SDK's JSON is read, a foreign denom refused.
func TestMintGenesis(t *testing.T) {
	g := DefaultGenesis("aember")
	p, m, err := g.parse("aember")
	if err != nil || p.BlocksPerYear != 6311520 || p.GoalBonded.String() != "0.670000000000000000" || m.Inflation.String() != "0.130000000000000000" {
		t.Fatalf("%+v %+v %v", p, m, err)
	}
	if _, _, err := g.parse("uatom"); err == nil {
		t.Fatal("foreign denom accepted")
	}
}
