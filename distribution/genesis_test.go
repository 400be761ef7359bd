package distribution

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
)

// TestGenesis: the SDK's JSON turns the module on with its parameters; an
// absent section leaves it off (hooks and begin-block do nothing); bad
// parameters are refused.
func TestGenesis(t *testing.T) {
	g := &module.Genesis{AppState: json.RawMessage(`{"distribution":{"params":{"community_tax":"0.05","base_proposer_reward":"0","bonus_proposer_reward":"0","withdraw_addr_enabled":false}}}`), Alloc: types.GenesisAlloc{}}
	if err := (Module{Keeper: &Keeper{}}).InitGenesis(g); err != nil {
		t.Fatal(err)
	}
	st := g.State()
	if p := GetParams(st); !Enabled(st) || p.CommunityTax.String() != "0.050000000000000000" || p.WithdrawAddrEnabled {
		t.Fatalf("params %+v", p)
	}
	off := &module.Genesis{AppState: json.RawMessage(`{}`), Alloc: types.GenesisAlloc{}}
	k := &Keeper{}
	if err := (Module{Keeper: k}).InitGenesis(off); err != nil || Enabled(off.State()) || len(off.Alloc) != 0 {
		t.Fatalf("without a section: %v, %d accounts", err, len(off.Alloc))
	}
	if err := k.AfterValidatorCreated(off.State(), opA); err != nil || len(off.Alloc) != 0 {
		t.Fatal("a hook wrote while the module is off")
	}
	for _, bad := range []string{
		`{"distribution":{"params":{"community_tax":"1.5","base_proposer_reward":"0","bonus_proposer_reward":"0"}}}`,
		`{"distribution":{"params":{"community_tax":"0.5","base_proposer_reward":"0.3","bonus_proposer_reward":"0.3"}}}`,
		`{"distribution":{"params":{"community_tax":"x","base_proposer_reward":"0","bonus_proposer_reward":"0"}}}`,
	} {
		g := &module.Genesis{AppState: json.RawMessage(bad), Alloc: types.GenesisAlloc{}}
		if err := (Module{Keeper: &Keeper{}}).InitGenesis(g); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if DefaultParams().CommunityTax.Cmp(dec.MustParse("0.02")) != 0 {
		t.Fatal("default community tax")
	}
}

// TestInvariantFails: a wei in the pool that no record accounts for is
// reported.
func TestInvariantFails(t *testing.T) {
	st := newState(t)
	if err := Init(st, DefaultParams()); err != nil {
		t.Fatal(err)
	}
	addCommunityPool(st, dec.MustParse("5"))
	fund(st, Pool, big.NewInt(5))
	if err := Invariant(st, nil); err != nil {
		t.Fatal(err)
	}
	fund(st, Pool, big.NewInt(1))
	if err := Invariant(st, nil); err == nil || err.Error() != "distribution pool holds 6.000000000000000000, its records 5.000000000000000000" {
		t.Fatalf("invariant: %v", err)
	}
}
