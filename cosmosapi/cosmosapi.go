// Package cosmosapi implements, once, the Cosmos SDK services that Cosmos
// clients (cosmjs, Keplr, Leap, grpcurl) call: cosmos.auth.v1beta1.Query,
// cosmos.bank.v1beta1.Query, cosmos.staking.v1beta1.Query,
// cosmos.slashing.v1beta1.Query, cosmos.distribution.v1beta1.Query,
// cosmos.mint.v1beta1.Query, cosmos.gov.v1.Query, cosmos.gov.v1beta1.Query,
// cosmos.tx.v1beta1.Service and cosmos.base.tendermint.v1beta1.Service, over
// the published protobuf types of cosmossdk.io/api. The same service values
// are registered on the gRPC server (package grpcapi), on the Router that
// abci_query dispatches to by method path with protobuf bytes, and on the
// REST gateway (package rest), so the three surfaces cannot disagree.
//
// Errors are gRPC status errors with the codes the SDK's keepers return
// (codes.NotFound for an unknown account, codes.InvalidArgument for a bad
// address, …); the Router and the gateway translate them as the SDK does.
package cosmosapi

import (
	"context"
	"errors"

	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/ethereum/go-ethereum/core/state"
	"google.golang.org/grpc"

	authv1beta1 "cosmossdk.io/api/cosmos/auth/v1beta1"
	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	cmtservice "cosmossdk.io/api/cosmos/base/tendermint/v1beta1"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	mintv1beta1 "cosmossdk.io/api/cosmos/mint/v1beta1"
	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	upgradev1beta1 "cosmossdk.io/api/cosmos/upgrade/v1beta1"
)

// Backend is what the services read and where they send transactions.
type Backend interface {
	// Prefix is the chain's bech32 account prefix.
	Prefix() string
	// Denom is the base denomination of the native token.
	Denom() string
	// Version is the node software's version.
	Version() string
	// StateAt opens the state after block height (0 = the latest) and
	// reports the height it opened; a height it cannot serve is ErrHeight.
	StateAt(height int64) (*state.StateDB, int64, error)
	// Simulate runs the checks of a native tx without its signature and
	// reports the gas it would use (see native.Simulate).
	Simulate(txBytes []byte) (gasWanted, gasUsed uint64, err error)
	// Comet is the consensus engine: blocks, the tx index, the mempool.
	Comet() Comet
}

// Comet is the part of CometBFT's RPC client the services use; the
// in-process rpc/client/local.Local satisfies it.
type Comet interface {
	Status(context.Context) (*ctypes.ResultStatus, error)
	Block(ctx context.Context, height *int64) (*ctypes.ResultBlock, error)
	Tx(ctx context.Context, hash []byte, prove bool) (*ctypes.ResultTx, error)
	TxSearch(ctx context.Context, query string, prove bool, page, perPage *int, orderBy string) (*ctypes.ResultTxSearch, error)
	BroadcastTxSync(ctx context.Context, tx cmttypes.Tx) (*ctypes.ResultBroadcastTx, error)
	BroadcastTxAsync(ctx context.Context, tx cmttypes.Tx) (*ctypes.ResultBroadcastTx, error)
}

// ErrHeight marks a requested height the node cannot serve.
var ErrHeight = errors.New("invalid height")

// Register registers every service on r: a *grpc.Server or a *Router.
func Register(r grpc.ServiceRegistrar, b Backend) {
	authv1beta1.RegisterQueryServer(r, &authServer{b: b})
	bankv1beta1.RegisterQueryServer(r, &bankServer{b: b})
	stakingv1beta1.RegisterQueryServer(r, &stakingServer{b: b})
	slashingv1beta1.RegisterQueryServer(r, &slashingServer{b: b})
	distrv1beta1.RegisterQueryServer(r, newDistributionServer(b))
	mintv1beta1.RegisterQueryServer(r, &mintServer{b: b})
	govv1.RegisterQueryServer(r, &govServer{b: b})
	govv1beta1.RegisterQueryServer(r, &govLegacyServer{b: b})
	upgradev1beta1.RegisterQueryServer(r, &upgradeServer{b: b})
	txv1beta1.RegisterServiceServer(r, &txServer{b: b})
	cmtservice.RegisterServiceServer(r, &cometServer{b: b})
}
