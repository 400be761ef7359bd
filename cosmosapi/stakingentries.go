package cosmosapi

import (
	"context"

	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/emberchain/ember/staking"
)

// ubd is del's unbonding delegation from op as the SDK answers it.
func (s *stakingServer) ubd(st *state.StateDB, del, op common.Address) *stakingv1beta1.UnbondingDelegation {
	out := &stakingv1beta1.UnbondingDelegation{DelegatorAddress: s.acc(del), ValidatorAddress: s.valoper(op)}
	for _, e := range staking.UnbondingEntries(st, del, op) {
		out.Entries = append(out.Entries, &stakingv1beta1.UnbondingDelegationEntry{
			CreationHeight: e.CreationHeight, CompletionTime: timestamppb.New(e.CompletionTime),
			InitialBalance: e.InitialBalance.String(), Balance: e.Balance.String(), UnbondingId: e.UnbondingID,
		})
	}
	return out
}

func (s *stakingServer) UnbondingDelegation(ctx context.Context, req *stakingv1beta1.QueryUnbondingDelegationRequest) (*stakingv1beta1.QueryUnbondingDelegationResponse, error) {
	del, op, st, err := s.pair(ctx, req.GetDelegatorAddr(), req.GetValidatorAddr())
	if err != nil {
		return nil, err
	}
	ubd := s.ubd(st, del, op)
	if len(ubd.Entries) == 0 {
		return nil, status.Errorf(codes.NotFound, "unbonding delegation with delegator %s not found for validator %s", req.GetDelegatorAddr(), req.GetValidatorAddr())
	}
	return &stakingv1beta1.QueryUnbondingDelegationResponse{Unbond: ubd}, nil
}

func (s *stakingServer) ValidatorUnbondingDelegations(ctx context.Context, req *stakingv1beta1.QueryValidatorUnbondingDelegationsRequest) (*stakingv1beta1.QueryValidatorUnbondingDelegationsResponse, error) {
	v, st, err := s.openValidator(ctx, req.GetValidatorAddr())
	if err != nil {
		return nil, err
	}
	var items []keyed[*stakingv1beta1.UnbondingDelegation]
	for _, del := range staking.UnbondingDelegators(st, v.Operator) {
		items = append(items, keyed[*stakingv1beta1.UnbondingDelegation]{del, s.ubd(st, del, v.Operator)})
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryValidatorUnbondingDelegationsResponse{UnbondingResponses: out, Pagination: page}, nil
}

func (s *stakingServer) DelegatorUnbondingDelegations(ctx context.Context, req *stakingv1beta1.QueryDelegatorUnbondingDelegationsRequest) (*stakingv1beta1.QueryDelegatorUnbondingDelegationsResponse, error) {
	del, err := s.parseDelegator(req.GetDelegatorAddr())
	if err != nil {
		return nil, err
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	var items []keyed[*stakingv1beta1.UnbondingDelegation]
	for _, op := range staking.UnbondingValidators(st, del) {
		items = append(items, keyed[*stakingv1beta1.UnbondingDelegation]{op, s.ubd(st, del, op)})
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryDelegatorUnbondingDelegationsResponse{UnbondingResponses: out, Pagination: page}, nil
}

// redelegation is red as the SDK answers it: each entry with its balance,
// the tokens its destination shares hold now (truncated).
func (s *stakingServer) redelegation(st *state.StateDB, red staking.Redelegation) *stakingv1beta1.RedelegationResponse {
	dst, _ := staking.Get(st, red.Dst)
	out := &stakingv1beta1.RedelegationResponse{Redelegation: &stakingv1beta1.Redelegation{
		DelegatorAddress: s.acc(red.Delegator), ValidatorSrcAddress: s.valoper(red.Src), ValidatorDstAddress: s.valoper(red.Dst)}}
	for _, e := range red.Entries {
		entry := &stakingv1beta1.RedelegationEntry{CreationHeight: e.CreationHeight, CompletionTime: timestamppb.New(e.CompletionTime),
			InitialBalance: e.InitialBalance.String(), SharesDst: legacyDec(e.SharesDst)}
		out.Redelegation.Entries = append(out.Redelegation.Entries, entry)
		bal := "0"
		if dst != nil {
			bal = dst.TokensFromShares(e.SharesDst).TruncateInt().String()
		}
		out.Entries = append(out.Entries, &stakingv1beta1.RedelegationEntryResponse{RedelegationEntry: entry, Balance: bal})
	}
	return out
}

// Redelegations: a delegator's redelegations, filtered by source and
// destination when given, or every redelegation from a source.
func (s *stakingServer) Redelegations(ctx context.Context, req *stakingv1beta1.QueryRedelegationsRequest) (*stakingv1beta1.QueryRedelegationsResponse, error) {
	var del, src, dst common.Address
	var err error
	if req.GetDelegatorAddr() != "" {
		if del, err = s.parseDelegator(req.GetDelegatorAddr()); err != nil {
			return nil, err
		}
	}
	if req.GetSrcValidatorAddr() != "" {
		if src, err = s.parseValoper(req.GetSrcValidatorAddr()); err != nil {
			return nil, err
		}
	}
	if req.GetDstValidatorAddr() != "" {
		if dst, err = s.parseValoper(req.GetDstValidatorAddr()); err != nil {
			return nil, err
		}
	}
	if req.GetDelegatorAddr() == "" && req.GetSrcValidatorAddr() == "" {
		return nil, invalid("delegator address cannot be empty")
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	var reds []staking.Redelegation
	if req.GetDelegatorAddr() == "" {
		for _, r := range staking.RedelegationsFrom(st, src) {
			if dst == (common.Address{}) || r.Dst == dst {
				reds = append(reds, r)
			}
		}
	} else {
		reds = staking.Redelegations(st, del, src, dst)
	}
	if len(reds) == 0 && req.GetDelegatorAddr() != "" && req.GetSrcValidatorAddr() != "" && req.GetDstValidatorAddr() != "" {
		return nil, status.Errorf(codes.NotFound, "redelegation not found for delegator address %s from validator address %s", req.GetDelegatorAddr(), req.GetSrcValidatorAddr())
	}
	var items []keyed[*stakingv1beta1.RedelegationResponse]
	for _, r := range reds {
		key := r.Delegator
		if req.GetDelegatorAddr() != "" {
			key = r.Dst
			if req.GetSrcValidatorAddr() == "" {
				key = r.Src
			}
		}
		items = append(items, keyed[*stakingv1beta1.RedelegationResponse]{key, s.redelegation(st, r)})
	}
	out, page, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &stakingv1beta1.QueryRedelegationsResponse{RedelegationResponses: out, Pagination: page}, nil
}
