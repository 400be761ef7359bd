package cosmosapi

import (
	"context"
	"math/big"
	"time"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
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
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
)

// Staking parameters Ember does not vary but the SDK reports.
const (
	maxValidators     = 100
	maxEntries        = 7
	historicalEntries = 0 // no historical info is kept
)

type stakingServer struct {
	stakingv1beta1.UnimplementedQueryServer
	b Backend
}

// legacyDec is the protobuf form of a cosmos.Dec holding n: the integer
// n·10^18 in decimal (the JSON form, "n.000000000000000000", is the REST
// gateway's, see rest).
func legacyDec(n *big.Int) string { return new(big.Int).Mul(n, staking.PowerReduction).String() }

func (s *stakingServer) valoper(a common.Address) string {
	v, _ := accounts.NewPrefixes(s.b.Prefix()).Encode(accounts.KindValidator, a[:])
	return v
}

// parseValoper parses a validator operator address (embervaloper1… or 0x…).
func (s *stakingServer) parseValoper(v string) (common.Address, error) {
	if v == "" {
		return common.Address{}, invalid("empty validator address")
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

func (s *stakingServer) validator(v *staking.Validator) *stakingv1beta1.Validator {
	bond := stakingv1beta1.BondStatus_BOND_STATUS_UNBONDED
	if v.Status() == "BOND_STATUS_BONDED" {
		bond = stakingv1beta1.BondStatus_BOND_STATUS_BONDED
	}
	zero := legacyDec(new(big.Int))
	return &stakingv1beta1.Validator{
		OperatorAddress: s.valoper(v.Operator),
		ConsensusPubkey: native.Pack(&ed25519pb.PubKey{Key: v.ConsPubKey}),
		Status:          bond,
		Tokens:          v.Tokens.String(),
		DelegatorShares: legacyDec(v.Tokens), // one share per token: no slashing
		Description:     &stakingv1beta1.Description{Moniker: v.Moniker},
		UnbondingTime:   timestamppb.New(time.Unix(0, 0).UTC()),
		Commission: &stakingv1beta1.Commission{
			CommissionRates: &stakingv1beta1.CommissionRates{Rate: zero, MaxRate: zero, MaxChangeRate: zero},
			UpdateTime:      timestamppb.New(time.Unix(0, 0).UTC()),
		},
		MinSelfDelegation: "1",
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
	out := []*stakingv1beta1.Validator{}
	for _, v := range staking.All(st) {
		if pv := s.validator(v); req.GetStatus() == "" || pv.Status.String() == req.GetStatus() {
			out = append(out, pv)
		}
	}
	return &stakingv1beta1.QueryValidatorsResponse{Validators: out, Pagination: &queryv1beta1.PageResponse{Total: uint64(len(out))}}, nil
}

func (s *stakingServer) Validator(ctx context.Context, req *stakingv1beta1.QueryValidatorRequest) (*stakingv1beta1.QueryValidatorResponse, error) {
	op, err := s.parseValoper(req.GetValidatorAddr())
	if err != nil {
		return nil, err
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	v, ok := staking.Get(st, op)
	if !ok {
		return nil, status.Errorf(codes.NotFound, "validator %s not found", req.GetValidatorAddr())
	}
	return &stakingv1beta1.QueryValidatorResponse{Validator: s.validator(v)}, nil
}

func (s *stakingServer) delegation(del, op common.Address, amount *big.Int) *stakingv1beta1.DelegationResponse {
	return &stakingv1beta1.DelegationResponse{
		Delegation: &stakingv1beta1.Delegation{DelegatorAddress: accounts.Bech32(s.b.Prefix(), del), ValidatorAddress: s.valoper(op), Shares: legacyDec(amount)},
		Balance:    &basev1beta1.Coin{Denom: s.b.Denom(), Amount: amount.String()},
	}
}

// delegatorAndValidator parses a (delegator, validator) pair and opens the state.
func (s *stakingServer) pair(ctx context.Context, delegator, validator string) (common.Address, common.Address, *state.StateDB, error) {
	del, err := parseAccount(s.b, delegator)
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
	amount := staking.Delegation(st, del, op)
	if amount.Sign() == 0 {
		return nil, status.Errorf(codes.NotFound, "delegation with delegator %s not found for validator %s", req.GetDelegatorAddr(), req.GetValidatorAddr())
	}
	return &stakingv1beta1.QueryDelegationResponse{DelegationResponse: s.delegation(del, op, amount)}, nil
}

func (s *stakingServer) DelegatorDelegations(ctx context.Context, req *stakingv1beta1.QueryDelegatorDelegationsRequest) (*stakingv1beta1.QueryDelegatorDelegationsResponse, error) {
	del, st, err := read(ctx, s.b, req.GetDelegatorAddr())
	if err != nil {
		return nil, err
	}
	out := []*stakingv1beta1.DelegationResponse{}
	for _, v := range staking.All(st) {
		if amount := staking.Delegation(st, del, v.Operator); amount.Sign() > 0 {
			out = append(out, s.delegation(del, v.Operator, amount))
		}
	}
	return &stakingv1beta1.QueryDelegatorDelegationsResponse{DelegationResponses: out, Pagination: &queryv1beta1.PageResponse{Total: uint64(len(out))}}, nil
}

func (s *stakingServer) UnbondingDelegation(ctx context.Context, req *stakingv1beta1.QueryUnbondingDelegationRequest) (*stakingv1beta1.QueryUnbondingDelegationResponse, error) {
	del, op, st, err := s.pair(ctx, req.GetDelegatorAddr(), req.GetValidatorAddr())
	if err != nil {
		return nil, err
	}
	ubd := &stakingv1beta1.UnbondingDelegation{DelegatorAddress: accounts.Bech32(s.b.Prefix(), del), ValidatorAddress: s.valoper(op)}
	for _, e := range staking.Unbondings(st) {
		if e.Delegator == del && e.Operator == op {
			ubd.Entries = append(ubd.Entries, &stakingv1beta1.UnbondingDelegationEntry{
				CompletionTime: timestamppb.New(e.CompletionTime), InitialBalance: e.Amount.String(), Balance: e.Amount.String(),
			})
		}
	}
	if len(ubd.Entries) == 0 {
		return nil, status.Errorf(codes.NotFound, "unbonding delegation with delegator %s not found for validator %s", req.GetDelegatorAddr(), req.GetValidatorAddr())
	}
	return &stakingv1beta1.QueryUnbondingDelegationResponse{Unbond: ubd}, nil
}

func (s *stakingServer) Params(ctx context.Context, _ *stakingv1beta1.QueryParamsRequest) (*stakingv1beta1.QueryParamsResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryParamsResponse{Params: &stakingv1beta1.Params{
		UnbondingTime: durationpb.New(staking.UnbondingTime(st)), MaxValidators: maxValidators, MaxEntries: maxEntries,
		HistoricalEntries: historicalEntries, BondDenom: s.b.Denom(), MinCommissionRate: legacyDec(new(big.Int)),
	}}, nil
}

// Pool: the bonded tokens are the bonded pool's balance, the not-bonded
// ones the unbonding pool's (tokens waiting for their unbonding time).
func (s *stakingServer) Pool(ctx context.Context, _ *stakingv1beta1.QueryPoolRequest) (*stakingv1beta1.QueryPoolResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryPoolResponse{Pool: &stakingv1beta1.Pool{
		BondedTokens: st.GetBalance(staking.BondedPool).Dec(), NotBondedTokens: st.GetBalance(staking.UnbondingPool).Dec(),
	}}, nil
}
