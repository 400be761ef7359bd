package cosmosapi

import (
	"context"

	authv1beta1 "cosmossdk.io/api/cosmos/auth/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/native"
)

type authServer struct {
	authv1beta1.UnimplementedQueryServer
	b Backend
}

// parseAccount parses an account address in either spelling.
func parseAccount(b Backend, s string) (common.Address, error) {
	if s == "" {
		return common.Address{}, invalid("empty address string is not allowed")
	}
	a, err := accounts.ParseAddress(b.Prefix(), s)
	if err != nil {
		return common.Address{}, invalid("%v", err)
	}
	return a, nil
}

// read parses address and opens the state at the context's height.
func read(ctx context.Context, b Backend, address string) (common.Address, *state.StateDB, error) {
	addr, err := parseAccount(b, address)
	if err != nil {
		return common.Address{}, nil, err
	}
	st, err := openState(ctx, b)
	return addr, st, err
}

func (s *authServer) lookup(ctx context.Context, address string) (*accounts.EthAccount, error) {
	addr, st, err := read(ctx, s.b, address)
	if err != nil {
		return nil, err
	}
	acc, ok := accounts.LookupAccount(st, s.b.Prefix(), addr)
	if !ok {
		return nil, status.Errorf(codes.NotFound, "account %s not found", accounts.Bech32(s.b.Prefix(), addr))
	}
	return acc, nil
}

func (s *authServer) Account(ctx context.Context, req *authv1beta1.QueryAccountRequest) (*authv1beta1.QueryAccountResponse, error) {
	acc, err := s.lookup(ctx, req.GetAddress())
	if err != nil {
		return nil, err
	}
	a, err := PackEthAccount(acc)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &authv1beta1.QueryAccountResponse{Account: a}, nil
}

func (s *authServer) AccountInfo(ctx context.Context, req *authv1beta1.QueryAccountInfoRequest) (*authv1beta1.QueryAccountInfoResponse, error) {
	acc, err := s.lookup(ctx, req.GetAddress())
	if err != nil {
		return nil, err
	}
	ba, err := baseAccount(acc)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &authv1beta1.QueryAccountInfoResponse{Info: ba}, nil
}

// Accounts would list every account; the state keeps account numbers by
// address only (no preimages of the trie's keys), so it cannot enumerate.
func (s *authServer) Accounts(context.Context, *authv1beta1.QueryAccountsRequest) (*authv1beta1.QueryAccountsResponse, error) {
	return nil, status.Error(codes.Unimplemented, "listing all accounts is not supported: query one account by address")
}

func (s *authServer) Bech32Prefix(context.Context, *authv1beta1.Bech32PrefixRequest) (*authv1beta1.Bech32PrefixResponse, error) {
	return &authv1beta1.Bech32PrefixResponse{Bech32Prefix: s.b.Prefix()}, nil
}

// Params are the auth parameters the native transactions are held to.
func (s *authServer) Params(context.Context, *authv1beta1.QueryParamsRequest) (*authv1beta1.QueryParamsResponse, error) {
	return &authv1beta1.QueryParamsResponse{Params: &authv1beta1.Params{
		MaxMemoCharacters: native.MaxMemoChars, TxSigLimit: 1, TxSizeCostPerByte: native.GasPerByte,
		SigVerifyCostEd25519: 0, SigVerifyCostSecp256K1: 0,
	}}, nil
}
