package evm_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/evm"
)

func emptyState(t *testing.T) *state.StateDB {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestScheduleAtNothingRecorded: a state without activations gives the
// base config itself (same pointer), a Prague chain stays on Prague.
func TestScheduleAtNothingRecorded(t *testing.T) {
	base := evm.PragueChainConfig(big.NewInt(9000))
	if got := evm.ScheduleAt(base, emptyState(t)); got != base {
		t.Fatalf("ScheduleAt without records = %p, want the base %p", got, base)
	}
	if base.IsOsaka(big.NewInt(1), 1<<40) {
		t.Fatal("the Prague config runs Osaka")
	}
}

// TestActivateForkSchedule: an activation at time 1,000 makes Osaka the
// rule from 1,000 on (999 is Prague), in a copy: the base is untouched.
func TestActivateForkSchedule(t *testing.T) {
	base := evm.PragueChainConfig(big.NewInt(9000))
	st := emptyState(t)
	if err := evm.ActivateFork(st, "osaka", 1000); err != nil {
		t.Fatal(err)
	}
	st.Finalise(evm.Rules(base, big.NewInt(1), 0)) // an account holding only storage would be deleted here (EIP-161)
	if got := evm.Activations(st); len(got) != 1 || got[0] != (evm.Activation{Fork: "osaka", Time: 1000}) {
		t.Fatalf("Activations = %v, want [{osaka 1000}]", got)
	}
	cfg := evm.ScheduleAt(base, st)
	if cfg == base || cfg.OsakaTime == nil || *cfg.OsakaTime != 1000 {
		t.Fatalf("ScheduleAt: OsakaTime %v (same config %v), want 1000 in a copy", cfg.OsakaTime, cfg == base)
	}
	if cfg.IsOsaka(big.NewInt(5), 999) || !cfg.IsOsaka(big.NewInt(5), 1000) || !cfg.IsPrague(big.NewInt(5), 999) {
		t.Fatal("Osaka must start exactly at 1000")
	}
	if base.OsakaTime != nil {
		t.Fatalf("base changed: OsakaTime %d", *base.OsakaTime)
	}
	if err := cfg.CheckConfigForkOrder(); err != nil {
		t.Fatalf("scheduled config fails go-ethereum's checks: %v", err)
	}
	if evm.SameSchedule(cfg, base) || !evm.SameSchedule(cfg, evm.ScheduleAt(base, st)) {
		t.Fatal("SameSchedule: wrong answer")
	}
}

// TestActivationTimeAgainstGenesisSchedule: a recorded fork takes the
// earlier of the genesis time and the recorded time.
func TestActivationTimeAgainstGenesisSchedule(t *testing.T) {
	st := emptyState(t)
	if err := evm.ActivateFork(st, "osaka", 1000); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ genesis, want uint64 }{{0, 0}, {500, 500}, {1000, 1000}, {2000, 1000}} {
		base := evm.PragueChainConfig(big.NewInt(9000))
		g := c.genesis
		base.OsakaTime = &g
		cfg := evm.ScheduleAt(base, st)
		if *cfg.OsakaTime != c.want {
			t.Errorf("genesis Osaka at %d, recorded 1000: Osaka at %d, want %d", c.genesis, *cfg.OsakaTime, c.want)
		}
		if (c.genesis <= 1000) != (cfg == base) {
			t.Errorf("genesis Osaka at %d: copy made %v", c.genesis, cfg != base)
		}
	}
}

// TestActivateForkErrors: an unknown fork and a second activation are
// refused and change nothing; time 0 is a time like any other.
func TestActivateForkErrors(t *testing.T) {
	st := emptyState(t)
	if err := evm.ActivateFork(st, "amsterdam", 5); err == nil || err.Error() != `unknown EVM fork "amsterdam": this binary can activate osaka` {
		t.Fatalf("unknown fork: %v", err)
	}
	if got := evm.Activations(st); len(got) != 0 {
		t.Fatalf("a refused activation recorded %v", got)
	}
	if err := evm.ActivateFork(st, "osaka", 0); err != nil {
		t.Fatal(err)
	}
	if err := evm.ActivateFork(st, "osaka", 7); err == nil || err.Error() != `EVM fork "osaka" already activated at time 0` {
		t.Fatalf("second activation: %v", err)
	}
	if got := evm.Activations(st); len(got) != 1 || got[0].Time != 0 {
		t.Fatalf("Activations = %v, want [{osaka 0}]", got)
	}
	if err := evm.MoveActivation(st, "osaka", 9); err != nil || evm.Activations(st)[0].Time != 9 {
		t.Fatalf("MoveActivation: %v, %v", err, evm.Activations(st))
	}
}

// TestNewChainRunsOsaka: the config of a new chain has Osaka from genesis
// and passes go-ethereum's fork checks.
func TestNewChainRunsOsaka(t *testing.T) {
	cfg := evm.ChainConfig(big.NewInt(9000))
	if cfg.OsakaTime == nil || *cfg.OsakaTime != 0 || !cfg.IsOsaka(big.NewInt(0), 0) {
		t.Fatalf("new chain OsakaTime %v", cfg.OsakaTime)
	}
	if err := cfg.CheckConfigForkOrder(); err != nil {
		t.Fatal(err)
	}
}

// TestCheckSchedule: a genesis may schedule Osaka, not a fork this binary
// does not run.
func TestCheckSchedule(t *testing.T) {
	cfg := evm.ChainConfig(big.NewInt(9000))
	if err := evm.CheckSchedule(cfg); err != nil {
		t.Fatal(err)
	}
	at := uint64(5)
	cfg.AmsterdamTime = &at
	if err := evm.CheckSchedule(cfg); err == nil || err.Error() != "schedules the amsterdam fork, which this binary does not run (the last is osaka)" {
		t.Fatalf("Amsterdam scheduled: %v", err)
	}
}
