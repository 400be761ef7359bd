package cosmosapi

import (
	"context"
	"runtime"
	"runtime/debug"

	cmtservice "cosmossdk.io/api/cosmos/base/tendermint/v1beta1"
	p2ppb "cosmossdk.io/api/tendermint/p2p"
	typespb "cosmossdk.io/api/tendermint/types"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
)

// cometServer is cosmos.base.tendermint.v1beta1.Service over CometBFT.
type cometServer struct {
	cmtservice.UnimplementedServiceServer
	b Backend
}

// gogoMessage is a CometBFT (gogoproto) message.
type gogoMessage interface{ Marshal() ([]byte, error) }

// convert copies a CometBFT message into its published protobuf type by
// the bytes: the two are the same .proto.
func convert(in gogoMessage, out proto.Message) error {
	b, err := in.Marshal()
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	if err := proto.Unmarshal(b, out); err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	return nil
}

func cmtHash(tx []byte) []byte { return cmttypes.Tx(tx).Hash() }

func (s *cometServer) GetNodeInfo(ctx context.Context, _ *cmtservice.GetNodeInfoRequest) (*cmtservice.GetNodeInfoResponse, error) {
	st, err := s.b.Comet().Status(ctx)
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	info := &p2ppb.DefaultNodeInfo{}
	if err := convert(st.NodeInfo.ToProto(), info); err != nil {
		return nil, err
	}
	v := &cmtservice.VersionInfo{Name: "ember", AppName: "emberd", Version: s.b.Version(), GoVersion: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v.GitCommit = s.Value
			}
		}
		for _, d := range bi.Deps {
			v.BuildDeps = append(v.BuildDeps, &cmtservice.Module{Path: d.Path, Version: d.Version, Sum: d.Sum})
		}
	}
	return &cmtservice.GetNodeInfoResponse{DefaultNodeInfo: info, ApplicationVersion: v}, nil
}

func (s *cometServer) GetSyncing(ctx context.Context, _ *cmtservice.GetSyncingRequest) (*cmtservice.GetSyncingResponse, error) {
	st, err := s.b.Comet().Status(ctx)
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	return &cmtservice.GetSyncingResponse{Syncing: st.SyncInfo.CatchingUp}, nil
}

// block converts a CometBFT block into the service's two forms: the
// deprecated CometBFT one and the SDK one, whose header names the proposer
// by its bech32 consensus address.
func (s *cometServer) block(r *ctypes.ResultBlock) (*typespb.BlockID, *typespb.Block, *cmtservice.Block, error) {
	pb, err := r.Block.ToProto()
	if err != nil {
		return nil, nil, nil, status.Error(codes.Internal, err.Error())
	}
	id := &typespb.BlockID{}
	bid := r.BlockID.ToProto()
	if err := convert(&bid, id); err != nil {
		return nil, nil, nil, err
	}
	blk := &typespb.Block{}
	if err := convert(pb, blk); err != nil {
		return nil, nil, nil, err
	}
	proposer := pb.Header.ProposerAddress
	pb.Header.ProposerAddress = nil // bytes here, a bech32 string in the SDK form
	sdk := &cmtservice.Block{}
	if err := convert(pb, sdk); err != nil {
		return nil, nil, nil, err
	}
	sdk.Header.ProposerAddress, _ = accounts.NewPrefixes(s.b.Prefix()).Encode(accounts.KindConsensus, proposer)
	return id, blk, sdk, nil
}

func (s *cometServer) GetLatestBlock(ctx context.Context, _ *cmtservice.GetLatestBlockRequest) (*cmtservice.GetLatestBlockResponse, error) {
	r, err := s.b.Comet().Block(ctx, nil)
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	id, blk, sdk, err := s.block(r)
	if err != nil {
		return nil, err
	}
	heightOf(ctx).read(r.Block.Height)
	return &cmtservice.GetLatestBlockResponse{BlockId: id, Block: blk, SdkBlock: sdk}, nil
}

func (s *cometServer) GetBlockByHeight(ctx context.Context, req *cmtservice.GetBlockByHeightRequest) (*cmtservice.GetBlockByHeightResponse, error) {
	latest, err := s.b.Comet().Status(ctx)
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	h := req.GetHeight()
	if h < 1 {
		return nil, invalid("block height must be at least 1, got %d", h)
	}
	if h > latest.SyncInfo.LatestBlockHeight {
		return nil, invalid("requested block height is bigger then the chain length")
	}
	r, err := s.b.Comet().Block(ctx, &h)
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	id, blk, sdk, err := s.block(r)
	if err != nil {
		return nil, err
	}
	heightOf(ctx).read(h)
	return &cmtservice.GetBlockByHeightResponse{BlockId: id, Block: blk, SdkBlock: sdk}, nil
}
