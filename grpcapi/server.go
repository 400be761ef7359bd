// Package grpcapi serves the Cosmos query services over gRPC:
// cosmos.auth.v1beta1.Query (Account, AccountInfo, Bech32Prefix) and
// cosmos.bank.v1beta1.Query (Balance, AllBalances, SpendableBalances), with
// server reflection. It reads through the same Backend as the REST
// endpoints (package rest), so both answer the same data; the service stubs
// and messages are the published cosmossdk.io/api types.
package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"

	authv1beta1 "cosmossdk.io/api/cosmos/auth/v1beta1"
	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	secp256k1pb "cosmossdk.io/api/cosmos/crypto/secp256k1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/rest"
)

// HeightKey is the metadata key that selects the height to read at (in a
// request) and reports the height read (in the response header), as on
// Cosmos nodes.
const HeightKey = "x-cosmos-block-height"

// Server is the gRPC listener.
type Server struct {
	srv *grpc.Server
	ln  net.Listener
}

// Start listens on addr and serves in the background.
func Start(addr string, b rest.Backend, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("gRPC listener on %s: %w", addr, err)
	}
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(1<<20), grpc.MaxConcurrentStreams(256))
	q := &queries{b: b}
	authv1beta1.RegisterQueryServer(srv, &authServer{q: q})
	bankv1beta1.RegisterQueryServer(srv, &bankServer{q: q})
	reflection.Register(srv)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			log.Error("gRPC server stopped", "err", err)
		}
	}()
	log.Info("gRPC listening", "addr", ln.Addr().String())
	return &Server{srv: srv, ln: ln}, nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Stop closes the listener and open connections.
func (s *Server) Stop() { s.srv.Stop() }

type queries struct{ b rest.Backend }

// read parses the address and opens the state at the height the metadata
// names (latest without), reporting the height read in the header.
func (q *queries) read(ctx context.Context, address string) (common.Address, accountsState, error) {
	addr, err := accounts.ParseAddress(q.b.Prefix(), address)
	if err != nil {
		return common.Address{}, nil, status.Error(codes.InvalidArgument, err.Error())
	}
	var height int64
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(HeightKey); len(v) > 0 {
			if height, err = strconv.ParseInt(v[0], 10, 64); err != nil || height < 0 {
				return common.Address{}, nil, status.Errorf(codes.InvalidArgument, "invalid %s %q: want a block height", HeightKey, v[0])
			}
		}
	}
	st, at, err := q.b.StateAt(height)
	switch {
	case errors.Is(err, rest.ErrHeight):
		return common.Address{}, nil, status.Error(codes.InvalidArgument, err.Error())
	case err != nil:
		return common.Address{}, nil, status.Error(codes.Internal, err.Error())
	}
	_ = grpc.SetHeader(ctx, metadata.Pairs(HeightKey, strconv.FormatInt(at, 10)))
	return addr, st, nil
}

type accountsState = accounts.AccountState

func (q *queries) lookup(ctx context.Context, address string) (*accounts.EthAccount, error) {
	addr, st, err := q.read(ctx, address)
	if err != nil {
		return nil, err
	}
	acc, ok := accounts.LookupAccount(st, q.b.Prefix(), addr)
	if !ok {
		return nil, status.Errorf(codes.NotFound, "account %s not found", accounts.Bech32(q.b.Prefix(), addr))
	}
	return acc, nil
}

// baseAccount is the protobuf form of the account's Cosmos part.
func baseAccount(acc *accounts.EthAccount) (*authv1beta1.BaseAccount, error) {
	num, err := strconv.ParseUint(acc.BaseAccount.AccountNumber, 10, 64)
	if err != nil {
		return nil, err
	}
	seq, err := strconv.ParseUint(acc.BaseAccount.Sequence, 10, 64)
	if err != nil {
		return nil, err
	}
	ba := &authv1beta1.BaseAccount{Address: acc.BaseAccount.Address, AccountNumber: num, Sequence: seq}
	if pk := acc.BaseAccount.PubKey; pk != nil {
		v, err := proto.Marshal(&secp256k1pb.PubKey{Key: pk.Key})
		if err != nil {
			return nil, err
		}
		ba.PubKey = &anypb.Any{TypeUrl: pk.Type, Value: v}
	}
	return ba, nil
}

// PackEthAccount encodes an account as the Any of an
// ethermint.types.v1.EthAccount: {BaseAccount base_account = 1; string
// code_hash = 2}. Ethermint's Go types are not published for
// google.golang.org/protobuf, so this two-field wrapper is written with
// protowire around the published BaseAccount.
func PackEthAccount(acc *accounts.EthAccount) (*anypb.Any, error) {
	ba, err := baseAccount(acc)
	if err != nil {
		return nil, err
	}
	inner, err := proto.MarshalOptions{Deterministic: true}.Marshal(ba)
	if err != nil {
		return nil, err
	}
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, inner)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, acc.CodeHash)
	return &anypb.Any{TypeUrl: accounts.EthAccountType, Value: b}, nil
}

// UnpackEthAccount decodes the value of an EthAccount Any.
func UnpackEthAccount(a *anypb.Any) (*authv1beta1.BaseAccount, string, error) {
	if a.GetTypeUrl() != accounts.EthAccountType {
		return nil, "", fmt.Errorf("type %q, want %s", a.GetTypeUrl(), accounts.EthAccountType)
	}
	b := a.Value
	ba := &authv1beta1.BaseAccount{}
	var codeHash string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return nil, "", fmt.Errorf("malformed EthAccount")
		}
		b = b[n:]
		v, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return nil, "", fmt.Errorf("malformed EthAccount")
		}
		b = b[m:]
		switch num {
		case 1:
			if err := proto.Unmarshal(v, ba); err != nil {
				return nil, "", err
			}
		case 2:
			codeHash = string(v)
		}
	}
	return ba, codeHash, nil
}

type authServer struct {
	authv1beta1.UnimplementedQueryServer
	q *queries
}

func (s *authServer) Account(ctx context.Context, req *authv1beta1.QueryAccountRequest) (*authv1beta1.QueryAccountResponse, error) {
	acc, err := s.q.lookup(ctx, req.GetAddress())
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
	acc, err := s.q.lookup(ctx, req.GetAddress())
	if err != nil {
		return nil, err
	}
	ba, err := baseAccount(acc)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &authv1beta1.QueryAccountInfoResponse{Info: ba}, nil
}

func (s *authServer) Bech32Prefix(context.Context, *authv1beta1.Bech32PrefixRequest) (*authv1beta1.Bech32PrefixResponse, error) {
	return &authv1beta1.Bech32PrefixResponse{Bech32Prefix: s.q.b.Prefix()}, nil
}

type bankServer struct {
	bankv1beta1.UnimplementedQueryServer
	q *queries
}

func (s *bankServer) Balance(ctx context.Context, req *bankv1beta1.QueryBalanceRequest) (*bankv1beta1.QueryBalanceResponse, error) {
	if req.GetDenom() == "" {
		return nil, status.Error(codes.InvalidArgument, "invalid denom")
	}
	addr, st, err := s.q.read(ctx, req.GetAddress())
	if err != nil {
		return nil, err
	}
	amount := "0"
	if req.Denom == s.q.b.Denom() {
		amount = st.GetBalance(addr).Dec()
	}
	return &bankv1beta1.QueryBalanceResponse{Balance: &basev1beta1.Coin{Denom: req.Denom, Amount: amount}}, nil
}

// coins lists the native coin, omitted when zero as the bank module does.
func (s *bankServer) coins(ctx context.Context, address string) ([]*basev1beta1.Coin, error) {
	addr, st, err := s.q.read(ctx, address)
	if err != nil {
		return nil, err
	}
	var out []*basev1beta1.Coin
	if bal := st.GetBalance(addr); !bal.IsZero() {
		out = append(out, &basev1beta1.Coin{Denom: s.q.b.Denom(), Amount: bal.Dec()})
	}
	return out, nil
}

func (s *bankServer) AllBalances(ctx context.Context, req *bankv1beta1.QueryAllBalancesRequest) (*bankv1beta1.QueryAllBalancesResponse, error) {
	coins, err := s.coins(ctx, req.GetAddress())
	if err != nil {
		return nil, err
	}
	return &bankv1beta1.QueryAllBalancesResponse{Balances: coins, Pagination: &queryv1beta1.PageResponse{Total: uint64(len(coins))}}, nil
}

func (s *bankServer) SpendableBalances(ctx context.Context, req *bankv1beta1.QuerySpendableBalancesRequest) (*bankv1beta1.QuerySpendableBalancesResponse, error) {
	coins, err := s.coins(ctx, req.GetAddress())
	if err != nil {
		return nil, err
	}
	return &bankv1beta1.QuerySpendableBalancesResponse{Balances: coins, Pagination: &queryv1beta1.PageResponse{Total: uint64(len(coins))}}, nil
}
