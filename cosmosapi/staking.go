package cosmosapi

import (
	"context"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	ed25519pb "cosmossdk.io/api/cosmos/crypto/ed25519"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
)

type stakingServer struct {
	stakingv1beta1.UnimplementedQueryServer
	b Backend
}

// legacyDec is the protobuf form of a LegacyDec: its value × 10^18, an
// integer in decimal (the JSON form, "n.000000000000000000", is the REST
// gateway's, see rest).
func legacyDec(d dec.Dec) string { return d.Raw().String() }

func (s *stakingServer) valoper(a common.Address) string {
	v, _ := accounts.NewPrefixes(s.b.Prefix()).Encode(accounts.KindValidator, a[:])
	return v
}

func (s *stakingServer) acc(a common.Address) string { return accounts.Bech32(s.b.Prefix(), a) }

// parseValoper parses a validator operator address (embervaloper1… or 0x…).
func (s *stakingServer) parseValoper(v string) (common.Address, error) {
	if v == "" {
		return common.Address{}, invalid("validator address cannot be empty")
	}
	if len(v) > 2 && (v[:2] == "0x" || v[:2] == "0X") {
		return parseAccount(s.b, v)
	}
	kind, b, err := accounts.NewPrefixes(s.b.Prefix()).Decode(v)
	if err != nil || kind != accounts.KindValidator {
		return common.Address{}, invalid("invalid validator address %q: want %svaloper1… or 0x…", v, s.b.Prefix())
	}
	return common.BytesToAddress(b), nil
}

func (s *stakingServer) parseDelegator(d string) (common.Address, error) {
	if d == "" {
		return common.Address{}, invalid("delegator address cannot be empty")
	}
	return parseAccount(s.b, d)
}

func (s *stakingServer) validator(v *staking.Validator) *stakingv1beta1.Validator {
	c := v.Commission
	d := v.Description
	return &stakingv1beta1.Validator{
		OperatorAddress: s.valoper(v.Operator),
		ConsensusPubkey: native.Pack(&ed25519pb.PubKey{Key: v.ConsPubKey}),
		Jailed:          v.Jailed,
		Status:          stakingv1beta1.BondStatus(v.Status),
		Tokens:          v.Tokens.String(),
		DelegatorShares: legacyDec(v.DelegatorShares),
		Description:     &stakingv1beta1.Description{Moniker: d.Moniker, Identity: d.Identity, Website: d.Website, SecurityContact: d.SecurityContact, Details: d.Details},
		UnbondingHeight: v.UnbondingHeight,
		UnbondingTime:   timestamppb.New(v.UnbondingTime),
		Commission: &stakingv1beta1.Commission{
			CommissionRates: &stakingv1beta1.CommissionRates{Rate: legacyDec(c.Rate), MaxRate: legacyDec(c.MaxRate), MaxChangeRate: legacyDec(c.MaxChangeRate)},
			UpdateTime:      timestamppb.New(c.UpdateTime),
		},
		MinSelfDelegation: v.MinSelfDelegation.String(),
	}
}

func (s *stakingServer) Validators(ctx context.Context, req *stakingv1beta1.QueryValidatorsRequest) (*stakingv1beta1.QueryValidatorsResponse, error) {
	switch req.GetStatus() {
	case "", stakingv1beta1.BondStatus_BOND_STATUS_BONDED.String(), stakingv1beta1.BondStatus_BOND_STATUS_UNBONDED.String(), stakingv1beta1.BondStatus_BOND_STATUS_UNBONDING.String():
	default:
		return nil, invalid("invalid validator status %s", req.GetStatus())
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	var items []keyed[*stakingv1beta1.Validator]
	for _, v := range staking.All(st) {
		if req.GetStatus() == "" || v.Status.String() == req.GetStatus() {
			items = append(items, keyed[*stakingv1beta1.Validator]{v.Operator, s.validator(v)})
		}
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryValidatorsResponse{Validators: out, Pagination: page}, nil
}

// openValidator parses op and opens the state; the validator must exist.
func (s *stakingServer) openValidator(ctx context.Context, addr string) (*staking.Validator, *state.StateDB, error) {
	op, err := s.parseValoper(addr)
	if err != nil {
		return nil, nil, err
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, nil, err
	}
	v, ok := staking.Get(st, op)
	if !ok {
		return nil, nil, status.Errorf(codes.NotFound, "validator %s not found", addr)
	}
	return v, st, nil
}

func (s *stakingServer) Validator(ctx context.Context, req *stakingv1beta1.QueryValidatorRequest) (*stakingv1beta1.QueryValidatorResponse, error) {
	v, _, err := s.openValidator(ctx, req.GetValidatorAddr())
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryValidatorResponse{Validator: s.validator(v)}, nil
}

// delegation is del's delegation to v with its balance: the tokens of its
// shares, truncated.
func (s *stakingServer) delegation(del common.Address, v *staking.Validator, shares dec.Dec) *stakingv1beta1.DelegationResponse {
	return &stakingv1beta1.DelegationResponse{
		Delegation: &stakingv1beta1.Delegation{DelegatorAddress: s.acc(del), ValidatorAddress: s.valoper(v.Operator), Shares: legacyDec(shares)},
		Balance:    &basev1beta1.Coin{Denom: s.b.Denom(), Amount: v.TokensFromShares(shares).TruncateInt().String()},
	}
}

// pair parses a (delegator, validator) pair and opens the state.
func (s *stakingServer) pair(ctx context.Context, delegator, validator string) (common.Address, common.Address, *state.StateDB, error) {
	del, err := s.parseDelegator(delegator)
	if err != nil {
		return common.Address{}, common.Address{}, nil, err
	}
	op, err := s.parseValoper(validator)
	if err != nil {
		return common.Address{}, common.Address{}, nil, err
	}
	st, err := openState(ctx, s.b)
	return del, op, st, err
}

func (s *stakingServer) Delegation(ctx context.Context, req *stakingv1beta1.QueryDelegationRequest) (*stakingv1beta1.QueryDelegationResponse, error) {
	del, op, st, err := s.pair(ctx, req.GetDelegatorAddr(), req.GetValidatorAddr())
	if err != nil {
		return nil, err
	}
	shares, ok := staking.DelegationShares(st, del, op)
	v, found := staking.Get(st, op)
	if !ok || !found {
		return nil, status.Errorf(codes.NotFound, "delegation with delegator %s not found for validator %s", req.GetDelegatorAddr(), req.GetValidatorAddr())
	}
	return &stakingv1beta1.QueryDelegationResponse{DelegationResponse: s.delegation(del, v, shares)}, nil
}

func (s *stakingServer) ValidatorDelegations(ctx context.Context, req *stakingv1beta1.QueryValidatorDelegationsRequest) (*stakingv1beta1.QueryValidatorDelegationsResponse, error) {
	v, st, err := s.openValidator(ctx, req.GetValidatorAddr())
	if err != nil {
		return nil, err
	}
	var items []keyed[*stakingv1beta1.DelegationResponse]
	for _, del := range staking.ValidatorDelegators(st, v.Operator) {
		shares, _ := staking.DelegationShares(st, del, v.Operator)
		items = append(items, keyed[*stakingv1beta1.DelegationResponse]{del, s.delegation(del, v, shares)})
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryValidatorDelegationsResponse{DelegationResponses: out, Pagination: page}, nil
}

func (s *stakingServer) DelegatorDelegations(ctx context.Context, req *stakingv1beta1.QueryDelegatorDelegationsRequest) (*stakingv1beta1.QueryDelegatorDelegationsResponse, error) {
	del, err := s.parseDelegator(req.GetDelegatorAddr())
	if err != nil {
		return nil, err
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	var items []keyed[*stakingv1beta1.DelegationResponse]
	for _, op := range staking.DelegatorValidators(st, del) {
		v, _ := staking.Get(st, op)
		shares, _ := staking.DelegationShares(st, del, op)
		items = append(items, keyed[*stakingv1beta1.DelegationResponse]{op, s.delegation(del, v, shares)})
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryDelegatorDelegationsResponse{DelegationResponses: out, Pagination: page}, nil
}

func (s *stakingServer) DelegatorValidators(ctx context.Context, req *stakingv1beta1.QueryDelegatorValidatorsRequest) (*stakingv1beta1.QueryDelegatorValidatorsResponse, error) {
	del, err := s.parseDelegator(req.GetDelegatorAddr())
	if err != nil {
		return nil, err
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	var items []keyed[*stakingv1beta1.Validator]
	for _, op := range staking.DelegatorValidators(st, del) {
		v, _ := staking.Get(st, op)
		items = append(items, keyed[*stakingv1beta1.Validator]{op, s.validator(v)})
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryDelegatorValidatorsResponse{Validators: out, Pagination: page}, nil
}

func (s *stakingServer) DelegatorValidator(ctx context.Context, req *stakingv1beta1.QueryDelegatorValidatorRequest) (*stakingv1beta1.QueryDelegatorValidatorResponse, error) {
	del, op, st, err := s.pair(ctx, req.GetDelegatorAddr(), req.GetValidatorAddr())
	if err != nil {
		return nil, err
	}
	v, found := staking.Get(st, op)
	if _, ok := staking.DelegationShares(st, del, op); !ok || !found {
		return nil, status.Error(codes.NotFound, "no delegation for (address, validator) tuple")
	}
	return &stakingv1beta1.QueryDelegatorValidatorResponse{Validator: s.validator(v)}, nil
}

func (s *stakingServer) Params(ctx context.Context, _ *stakingv1beta1.QueryParamsRequest) (*stakingv1beta1.QueryParamsResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	p := staking.GetParams(st)
	denom := p.BondDenom
	if denom == "" {
		denom = s.b.Denom()
	}
	return &stakingv1beta1.QueryParamsResponse{Params: &stakingv1beta1.Params{
		UnbondingTime: durationpb.New(p.UnbondingTime), MaxValidators: uint32(p.MaxValidators), MaxEntries: uint32(p.MaxEntries),
		HistoricalEntries: uint32(p.HistoricalEntries), BondDenom: denom, MinCommissionRate: legacyDec(p.MinCommissionRate),
	}}, nil
}

// Pool: the bonded tokens are the bonded pool's balance, the not-bonded
// ones the not-bonded pool's.
func (s *stakingServer) Pool(ctx context.Context, _ *stakingv1beta1.QueryPoolRequest) (*stakingv1beta1.QueryPoolResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryPoolResponse{Pool: &stakingv1beta1.Pool{
		BondedTokens: st.GetBalance(staking.BondedPool).Dec(), NotBondedTokens: st.GetBalance(staking.NotBondedPool).Dec(),
	}}, nil
}

// HistoricalInfo: Ember keeps none (historical_entries 0), so every
// height is not found, as the SDK answers with that parameter.
func (s *stakingServer) HistoricalInfo(ctx context.Context, req *stakingv1beta1.QueryHistoricalInfoRequest) (*stakingv1beta1.QueryHistoricalInfoResponse, error) {
	if req.GetHeight() < 0 {
		return nil, invalid("height cannot be negative")
	}
	return nil, status.Errorf(codes.NotFound, "historical info for height %d not found", req.GetHeight())
}
