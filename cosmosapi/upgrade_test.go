package cosmosapi

import (
	"context"
	"testing"

	upgradev1beta1 "cosmossdk.io/api/cosmos/upgrade/v1beta1"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/upgrade"
)

// TestUpgradeQueries: the current plan, an applied plan's height (0 for
// one never applied), the module versions and the authority, over
// abci_query's protobuf bytes.
func TestUpgradeQueries(t *testing.T) {
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	r := NewRouter(func() int64 { return 7 })
	Register(r, stateBackend{st: st})
	call := func(path string, req, out proto.Message) *abci.ResponseQuery {
		t.Helper()
		data, _ := proto.Marshal(req)
		res, ok := r.ABCIQuery(context.Background(), &abci.RequestQuery{Path: "/cosmos.upgrade.v1beta1.Query/" + path, Data: data})
		if !ok {
			t.Fatalf("%s not registered", path)
		}
		if res.Code == 0 {
			if err := proto.Unmarshal(res.Value, out); err != nil {
				t.Fatal(err)
			}
		}
		return res
	}
	var cur upgradev1beta1.QueryCurrentPlanResponse
	call("CurrentPlan", &upgradev1beta1.QueryCurrentPlanRequest{}, &cur)
	if cur.Plan != nil {
		t.Fatalf("plan on an empty state: %v", cur.Plan)
	}
	if err := upgrade.Schedule(st, upgrade.Plan{Name: "v2", Height: 90, Info: "see docs"}, 7); err != nil {
		t.Fatal(err)
	}
	call("CurrentPlan", &upgradev1beta1.QueryCurrentPlanRequest{}, &cur)
	if p := cur.Plan; p == nil || p.Name != "v2" || p.Height != 90 || p.Info != "see docs" {
		t.Fatalf("plan %v", p)
	}
	var applied upgradev1beta1.QueryAppliedPlanResponse
	call("AppliedPlan", &upgradev1beta1.QueryAppliedPlanRequest{Name: "v2"}, &applied)
	if applied.Height != 0 {
		t.Fatalf("applied height %d for a plan not applied", applied.Height)
	}
	var mv upgradev1beta1.QueryModuleVersionsResponse
	call("ModuleVersions", &upgradev1beta1.QueryModuleVersionsRequest{}, &mv)
	var names []string
	for _, m := range mv.ModuleVersions {
		names = append(names, m.Name)
		if m.Version != 1 {
			t.Fatalf("%s at version %d", m.Name, m.Version)
		}
	}
	if got := len(names); got < 6 || names[0] != "bank" || names[len(names)-1] != "upgrade" {
		t.Fatalf("modules %v", names)
	}
	call("ModuleVersions", &upgradev1beta1.QueryModuleVersionsRequest{ModuleName: "staking"}, &mv)
	if len(mv.ModuleVersions) != 1 || mv.ModuleVersions[0].Name != "staking" {
		t.Fatalf("one module: %v", mv.ModuleVersions)
	}
	if res := call("ModuleVersions", &upgradev1beta1.QueryModuleVersionsRequest{ModuleName: "ibc"}, &mv); res.Code != sdkKeyNotFound {
		t.Fatalf("unknown module: %+v", res)
	}
	var auth upgradev1beta1.QueryAuthorityResponse
	call("Authority", &upgradev1beta1.QueryAuthorityRequest{}, &auth)
	// bech32 of 0x…0B50 with prefix ember, computed outside Ember.
	if auth.Address != "ember1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqz6svn787j" {
		t.Fatalf("authority %s", auth.Address)
	}
}
