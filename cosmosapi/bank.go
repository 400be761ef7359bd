package cosmosapi

import (
	"context"
	"math/big"
	"strings"

	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type bankServer struct {
	bankv1beta1.UnimplementedQueryServer
	b Backend
}

func (s *bankServer) Balance(ctx context.Context, req *bankv1beta1.QueryBalanceRequest) (*bankv1beta1.QueryBalanceResponse, error) {
	if req.GetDenom() == "" {
		return nil, invalid("invalid denom")
	}
	addr, st, err := read(ctx, s.b, req.GetAddress())
	if err != nil {
		return nil, err
	}
	return &bankv1beta1.QueryBalanceResponse{Balance: s.balance(st, addr, req.Denom)}, nil
}

func (s *bankServer) SpendableBalanceByDenom(ctx context.Context, req *bankv1beta1.QuerySpendableBalanceByDenomRequest) (*bankv1beta1.QuerySpendableBalanceByDenomResponse, error) {
	res, err := s.Balance(ctx, &bankv1beta1.QueryBalanceRequest{Address: req.GetAddress(), Denom: req.GetDenom()})
	if err != nil {
		return nil, err
	}
	return &bankv1beta1.QuerySpendableBalanceByDenomResponse{Balance: res.Balance}, nil
}

// balance is addr's amount of denom: the native coin is the only one.
func (s *bankServer) balance(st *state.StateDB, addr common.Address, denom string) *basev1beta1.Coin {
	amount := "0"
	if denom == s.b.Denom() {
		amount = st.GetBalance(addr).Dec()
	}
	return &basev1beta1.Coin{Denom: denom, Amount: amount}
}

// coins lists the native coin, omitted when zero as the bank module does.
func (s *bankServer) coins(ctx context.Context, address string) ([]*basev1beta1.Coin, *queryv1beta1.PageResponse, error) {
	addr, st, err := read(ctx, s.b, address)
	if err != nil {
		return nil, nil, err
	}
	out := []*basev1beta1.Coin{}
	if bal := st.GetBalance(addr); !bal.IsZero() {
		out = append(out, &basev1beta1.Coin{Denom: s.b.Denom(), Amount: bal.Dec()})
	}
	return out, &queryv1beta1.PageResponse{Total: uint64(len(out))}, nil
}

func (s *bankServer) AllBalances(ctx context.Context, req *bankv1beta1.QueryAllBalancesRequest) (*bankv1beta1.QueryAllBalancesResponse, error) {
	coins, page, err := s.coins(ctx, req.GetAddress())
	if err != nil {
		return nil, err
	}
	return &bankv1beta1.QueryAllBalancesResponse{Balances: coins, Pagination: page}, nil
}

func (s *bankServer) SpendableBalances(ctx context.Context, req *bankv1beta1.QuerySpendableBalancesRequest) (*bankv1beta1.QuerySpendableBalancesResponse, error) {
	coins, page, err := s.coins(ctx, req.GetAddress())
	if err != nil {
		return nil, err
	}
	return &bankv1beta1.QuerySpendableBalancesResponse{Balances: coins, Pagination: page}, nil
}

// supply is the sum of every balance in the state. The chain keeps no
// running total (fees burn, genesis allocates), so this walks the account
// trie: linear in the number of accounts.
func (s *bankServer) supply(ctx context.Context) (*big.Int, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	sum := &supplySum{total: new(big.Int)}
	if _, err := st.DumpToCollector(sum, &state.DumpConfig{SkipCode: true, SkipStorage: true}); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	if sum.err != nil {
		return nil, status.Error(codes.Internal, sum.err.Error())
	}
	return sum.total, nil
}

type supplySum struct {
	total *big.Int
	err   error
}

func (s *supplySum) OnRoot(common.Hash) {}

func (s *supplySum) OnAccount(_ *common.Address, a state.DumpAccount) {
	v, ok := new(big.Int).SetString(a.Balance, 10)
	if !ok && s.err == nil {
		s.err = status.Errorf(codes.Internal, "balance %q in the state dump", a.Balance)
		return
	}
	s.total.Add(s.total, v)
}

func (s *bankServer) TotalSupply(ctx context.Context, _ *bankv1beta1.QueryTotalSupplyRequest) (*bankv1beta1.QueryTotalSupplyResponse, error) {
	total, err := s.supply(ctx)
	if err != nil {
		return nil, err
	}
	return &bankv1beta1.QueryTotalSupplyResponse{
		Supply:     []*basev1beta1.Coin{{Denom: s.b.Denom(), Amount: total.String()}},
		Pagination: &queryv1beta1.PageResponse{Total: 1},
	}, nil
}

func (s *bankServer) SupplyOf(ctx context.Context, req *bankv1beta1.QuerySupplyOfRequest) (*bankv1beta1.QuerySupplyOfResponse, error) {
	if req.GetDenom() == "" {
		return nil, invalid("invalid denom")
	}
	if req.Denom != s.b.Denom() {
		return &bankv1beta1.QuerySupplyOfResponse{Amount: &basev1beta1.Coin{Denom: req.Denom, Amount: "0"}}, nil
	}
	total, err := s.supply(ctx)
	if err != nil {
		return nil, err
	}
	return &bankv1beta1.QuerySupplyOfResponse{Amount: &basev1beta1.Coin{Denom: req.Denom, Amount: total.String()}}, nil
}

// metadata describes the native coin: the base denomination has 18
// decimals; its display unit drops the "a" (atto) prefix (aember → ember).
func (s *bankServer) metadata() *bankv1beta1.Metadata {
	base := s.b.Denom()
	display := strings.TrimPrefix(base, "a")
	if display == "" {
		display = base
	}
	units := []*bankv1beta1.DenomUnit{{Denom: base, Exponent: 0}}
	if display != base {
		units = append(units, &bankv1beta1.DenomUnit{Denom: display, Exponent: 18})
	}
	return &bankv1beta1.Metadata{
		Description: "The native token of the chain, also its EVM balance unit (wei = " + base + ")",
		DenomUnits:  units, Base: base, Display: display, Name: display, Symbol: strings.ToUpper(display),
	}
}

func (s *bankServer) DenomMetadata(_ context.Context, req *bankv1beta1.QueryDenomMetadataRequest) (*bankv1beta1.QueryDenomMetadataResponse, error) {
	if req.GetDenom() == "" {
		return nil, invalid("invalid denom")
	}
	if req.Denom != s.b.Denom() {
		return nil, status.Errorf(codes.NotFound, "client metadata for denom %s", req.Denom)
	}
	return &bankv1beta1.QueryDenomMetadataResponse{Metadata: s.metadata()}, nil
}

func (s *bankServer) DenomsMetadata(context.Context, *bankv1beta1.QueryDenomsMetadataRequest) (*bankv1beta1.QueryDenomsMetadataResponse, error) {
	return &bankv1beta1.QueryDenomsMetadataResponse{Metadatas: []*bankv1beta1.Metadata{s.metadata()}, Pagination: &queryv1beta1.PageResponse{Total: 1}}, nil
}
