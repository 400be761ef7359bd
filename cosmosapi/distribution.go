package cosmosapi

import (
	"context"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/native"
)

// distributionServer is cosmos.distribution.v1beta1.Query over the
// distribution records and the staking reads the app's keeper uses.
type distributionServer struct {
	distrv1beta1.UnimplementedQueryServer
	b Backend
	k *distribution.Keeper
}

// decCoins is d as the SDK's DecCoins: empty for zero, else one coin
// whose amount is the Dec's protobuf form.
func (s *distributionServer) decCoins(d dec.Dec) []*basev1beta1.DecCoin {
	if !d.IsPositive() {
		return []*basev1beta1.DecCoin{}
	}
	return []*basev1beta1.DecCoin{{Denom: s.b.Denom(), Amount: d.Raw().String()}}
}

func (s *distributionServer) valoper(a common.Address) string {
	v, _ := accounts.NewPrefixes(s.b.Prefix()).Encode(accounts.KindValidator, a[:])
	return v
}

// validator parses a validator address, opens the state and checks the
// validator exists (the SDK's ErrNoValidatorExists otherwise).
func (s *distributionServer) validator(ctx context.Context, v string) (common.Address, *state.StateDB, error) {
	op, err := (&stakingServer{b: s.b}).parseValoper(v)
	if err != nil {
		return common.Address{}, nil, err
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return common.Address{}, nil, err
	}
	if _, _, ok := s.k.Staking.ValidatorTokens(st, op); !ok {
		return common.Address{}, nil, status.Errorf(codes.NotFound, "%s: validator does not exist", v)
	}
	return op, st, nil
}

func (s *distributionServer) Params(ctx context.Context, _ *distrv1beta1.QueryParamsRequest) (*distrv1beta1.QueryParamsResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	p := distribution.GetParams(st)
	return &distrv1beta1.QueryParamsResponse{Params: &distrv1beta1.Params{
		CommunityTax: p.CommunityTax.Raw().String(), BaseProposerReward: p.BaseProposerReward.Raw().String(),
		BonusProposerReward: p.BonusProposerReward.Raw().String(), WithdrawAddrEnabled: p.WithdrawAddrEnabled,
	}}, nil
}

// rewards are del's pending rewards from op, read on st (which it changes).
func (s *distributionServer) rewards(st *state.StateDB, del, op common.Address, delegator, validator string) (dec.Dec, error) {
	r, ok, err := s.k.PendingRewards(st, del, op)
	switch {
	case err != nil:
		return dec.Dec{}, status.Error(codes.Internal, err.Error())
	case !ok:
		return dec.Dec{}, status.Errorf(codes.NotFound, "delegation with delegator %s not found for validator %s: delegation does not exist", delegator, validator)
	}
	return r, nil
}

func (s *distributionServer) ValidatorDistributionInfo(ctx context.Context, req *distrv1beta1.QueryValidatorDistributionInfoRequest) (*distrv1beta1.QueryValidatorDistributionInfoResponse, error) {
	op, st, err := s.validator(ctx, req.GetValidatorAddress())
	if err != nil {
		return nil, err
	}
	commission := distribution.Commission(st, op)
	self, err := s.rewards(st, op, op, accounts.Bech32(s.b.Prefix(), op), req.GetValidatorAddress())
	if err != nil {
		return nil, err
	}
	return &distrv1beta1.QueryValidatorDistributionInfoResponse{
		OperatorAddress: accounts.Bech32(s.b.Prefix(), op), SelfBondRewards: s.decCoins(self), Commission: s.decCoins(commission),
	}, nil
}

func (s *distributionServer) ValidatorOutstandingRewards(ctx context.Context, req *distrv1beta1.QueryValidatorOutstandingRewardsRequest) (*distrv1beta1.QueryValidatorOutstandingRewardsResponse, error) {
	op, st, err := s.validator(ctx, req.GetValidatorAddress())
	if err != nil {
		return nil, err
	}
	return &distrv1beta1.QueryValidatorOutstandingRewardsResponse{Rewards: &distrv1beta1.ValidatorOutstandingRewards{Rewards: s.decCoins(distribution.Outstanding(st, op))}}, nil
}

func (s *distributionServer) ValidatorCommission(ctx context.Context, req *distrv1beta1.QueryValidatorCommissionRequest) (*distrv1beta1.QueryValidatorCommissionResponse, error) {
	op, st, err := s.validator(ctx, req.GetValidatorAddress())
	if err != nil {
		return nil, err
	}
	return &distrv1beta1.QueryValidatorCommissionResponse{Commission: &distrv1beta1.ValidatorAccumulatedCommission{Commission: s.decCoins(distribution.Commission(st, op))}}, nil
}

func (s *distributionServer) ValidatorSlashes(ctx context.Context, req *distrv1beta1.QueryValidatorSlashesRequest) (*distrv1beta1.QueryValidatorSlashesResponse, error) {
	if req.GetEndingHeight() < req.GetStartingHeight() {
		return nil, invalid("starting height greater than ending height (%d > %d)", req.GetStartingHeight(), req.GetEndingHeight())
	}
	op, err := (&stakingServer{b: s.b}).parseValoper(req.GetValidatorAddress())
	if err != nil {
		return nil, err
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	out := []*distrv1beta1.ValidatorSlashEvent{}
	for _, e := range distribution.SlashEvents(st, op) {
		if e.Height >= req.GetStartingHeight() && e.Height <= req.GetEndingHeight() {
			out = append(out, &distrv1beta1.ValidatorSlashEvent{ValidatorPeriod: e.Period, Fraction: e.Fraction.Raw().String()})
		}
	}
	return &distrv1beta1.QueryValidatorSlashesResponse{Slashes: out, Pagination: &queryv1beta1.PageResponse{Total: uint64(len(out))}}, nil
}

func (s *distributionServer) DelegationRewards(ctx context.Context, req *distrv1beta1.QueryDelegationRewardsRequest) (*distrv1beta1.QueryDelegationRewardsResponse, error) {
	del, err := parseAccount(s.b, req.GetDelegatorAddress())
	if err != nil {
		return nil, err
	}
	op, st, err := s.validator(ctx, req.GetValidatorAddress())
	if err != nil {
		return nil, err
	}
	r, err := s.rewards(st, del, op, req.GetDelegatorAddress(), req.GetValidatorAddress())
	if err != nil {
		return nil, err
	}
	return &distrv1beta1.QueryDelegationRewardsResponse{Rewards: s.decCoins(r)}, nil
}

func (s *distributionServer) DelegationTotalRewards(ctx context.Context, req *distrv1beta1.QueryDelegationTotalRewardsRequest) (*distrv1beta1.QueryDelegationTotalRewardsResponse, error) {
	del, st, err := read(ctx, s.b, req.GetDelegatorAddress())
	if err != nil {
		return nil, err
	}
	res := &distrv1beta1.QueryDelegationTotalRewardsResponse{Rewards: []*distrv1beta1.DelegationDelegatorReward{}}
	total := dec.Zero()
	for _, op := range s.k.Staking.DelegatorValidators(st, del) {
		r, err := s.rewards(st, del, op, req.GetDelegatorAddress(), s.valoper(op))
		if err != nil {
			return nil, err
		}
		total = total.Add(r)
		res.Rewards = append(res.Rewards, &distrv1beta1.DelegationDelegatorReward{ValidatorAddress: s.valoper(op), Reward: s.decCoins(r)})
	}
	res.Total = s.decCoins(total)
	return res, nil
}

func (s *distributionServer) DelegatorValidators(ctx context.Context, req *distrv1beta1.QueryDelegatorValidatorsRequest) (*distrv1beta1.QueryDelegatorValidatorsResponse, error) {
	del, st, err := read(ctx, s.b, req.GetDelegatorAddress())
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, op := range s.k.Staking.DelegatorValidators(st, del) {
		out = append(out, s.valoper(op))
	}
	return &distrv1beta1.QueryDelegatorValidatorsResponse{Validators: out}, nil
}

func (s *distributionServer) DelegatorWithdrawAddress(ctx context.Context, req *distrv1beta1.QueryDelegatorWithdrawAddressRequest) (*distrv1beta1.QueryDelegatorWithdrawAddressResponse, error) {
	del, st, err := read(ctx, s.b, req.GetDelegatorAddress())
	if err != nil {
		return nil, err
	}
	return &distrv1beta1.QueryDelegatorWithdrawAddressResponse{WithdrawAddress: accounts.Bech32(s.b.Prefix(), distribution.WithdrawAddress(st, del))}, nil
}

func (s *distributionServer) CommunityPool(ctx context.Context, _ *distrv1beta1.QueryCommunityPoolRequest) (*distrv1beta1.QueryCommunityPoolResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	return &distrv1beta1.QueryCommunityPoolResponse{Pool: s.decCoins(distribution.CommunityPool(st))}, nil
}

// newDistributionServer serves the app's distribution keeper.
func newDistributionServer(b Backend) *distributionServer {
	return &distributionServer{b: b, k: native.Distribution}
}
