package cosmosapi

import (
	"context"

	mintv1beta1 "cosmossdk.io/api/cosmos/mint/v1beta1"

	"github.com/emberchain/ember/mint"
)

// mintServer is cosmos.mint.v1beta1.Query over the minter and parameters
// in the state.
type mintServer struct {
	mintv1beta1.UnimplementedQueryServer
	b Backend
}

func (s *mintServer) Params(ctx context.Context, _ *mintv1beta1.QueryParamsRequest) (*mintv1beta1.QueryParamsResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	p := mint.GetParams(st)
	return &mintv1beta1.QueryParamsResponse{Params: &mintv1beta1.Params{
		MintDenom: s.b.Denom(), InflationRateChange: p.InflationRateChange.Raw().String(), InflationMax: p.InflationMax.Raw().String(),
		InflationMin: p.InflationMin.Raw().String(), GoalBonded: p.GoalBonded.Raw().String(), BlocksPerYear: p.BlocksPerYear,
	}}, nil
}

// Inflation answers the Dec in its protobuf form, as bytes (the SDK's
// LegacyDec customtype on a bytes field).
func (s *mintServer) Inflation(ctx context.Context, _ *mintv1beta1.QueryInflationRequest) (*mintv1beta1.QueryInflationResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	return &mintv1beta1.QueryInflationResponse{Inflation: []byte(mint.GetMinter(st).Inflation.Raw().String())}, nil
}

func (s *mintServer) AnnualProvisions(ctx context.Context, _ *mintv1beta1.QueryAnnualProvisionsRequest) (*mintv1beta1.QueryAnnualProvisionsResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	return &mintv1beta1.QueryAnnualProvisionsResponse{AnnualProvisions: []byte(mint.GetMinter(st).AnnualProvisions.Raw().String())}, nil
}
