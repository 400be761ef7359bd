package cosmosapi

import (
	"context"
	"sort"

	upgradev1beta1 "cosmossdk.io/api/cosmos/upgrade/v1beta1"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/upgrade"
)

type upgradeServer struct {
	upgradev1beta1.UnimplementedQueryServer
	b Backend
}

// CurrentPlan is the plan scheduled and not yet applied; none: plan null,
// as the SDK answers.
func (s *upgradeServer) CurrentPlan(ctx context.Context, _ *upgradev1beta1.QueryCurrentPlanRequest) (*upgradev1beta1.QueryCurrentPlanResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	p, ok := upgrade.CurrentPlan(st)
	if !ok {
		return &upgradev1beta1.QueryCurrentPlanResponse{}, nil
	}
	return &upgradev1beta1.QueryCurrentPlanResponse{Plan: &upgradev1beta1.Plan{Name: p.Name, Height: p.Height, Info: p.Info}}, nil
}

// AppliedPlan is the height the named plan was applied at; 0 for a plan
// never applied, as the SDK answers.
func (s *upgradeServer) AppliedPlan(ctx context.Context, req *upgradev1beta1.QueryAppliedPlanRequest) (*upgradev1beta1.QueryAppliedPlanResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	h, _ := upgrade.Applied(st, req.GetName())
	return &upgradev1beta1.QueryAppliedPlanResponse{Height: h}, nil
}

// moduleVersion is the consensus version of every module: Ember's modules
// carry no store migrations of their own (a plan's handler is the
// migration), so each is at its first version.
const moduleVersion = 1

// ModuleVersions lists the chain's modules, sorted by name as the SDK
// lists them, or the one module_name names.
func (s *upgradeServer) ModuleVersions(_ context.Context, req *upgradev1beta1.QueryModuleVersionsRequest) (*upgradev1beta1.QueryModuleVersionsResponse, error) {
	var out []*upgradev1beta1.ModuleVersion
	for _, m := range native.Modules.Modules() {
		if req.GetModuleName() == "" || req.GetModuleName() == m.Name() {
			out = append(out, &upgradev1beta1.ModuleVersion{Name: m.Name(), Version: moduleVersion})
		}
	}
	if req.GetModuleName() != "" && len(out) == 0 {
		return nil, status.Errorf(codes.NotFound, "x/upgrade: QueryModuleVersions module %s not found", req.GetModuleName())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return &upgradev1beta1.QueryModuleVersionsResponse{ModuleVersions: out}, nil
}

// Authority is the gov account, the only one that may send the module's
// messages.
func (s *upgradeServer) Authority(context.Context, *upgradev1beta1.QueryAuthorityRequest) (*upgradev1beta1.QueryAuthorityResponse, error) {
	return &upgradev1beta1.QueryAuthorityResponse{Address: accounts.Bech32(s.b.Prefix(), module.GovAuthority)}, nil
}
