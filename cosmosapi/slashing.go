package cosmosapi

import (
	"context"

	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/slashing"
)

type slashingServer struct {
	slashingv1beta1.UnimplementedQueryServer
	b Backend
}

// legacyDecBytes is the protobuf form of a cosmos.Dec bytes field: the
// integer value × 10^18 in decimal ASCII, as LegacyDec.Marshal writes it.
func legacyDecBytes(d dec.Dec) []byte { return []byte(d.Raw().String()) }

func (s *slashingServer) Params(ctx context.Context, _ *slashingv1beta1.QueryParamsRequest) (*slashingv1beta1.QueryParamsResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	p := slashing.GetParams(st)
	return &slashingv1beta1.QueryParamsResponse{Params: &slashingv1beta1.Params{
		SignedBlocksWindow:      p.SignedBlocksWindow,
		MinSignedPerWindow:      legacyDecBytes(p.MinSignedPerWindow),
		DowntimeJailDuration:    durationpb.New(p.DowntimeJailDuration),
		SlashFractionDoubleSign: legacyDecBytes(p.SlashFractionDoubleSign),
		SlashFractionDowntime:   legacyDecBytes(p.SlashFractionDowntime),
	}}, nil
}

func (s *slashingServer) info(i slashing.SigningInfo) *slashingv1beta1.ValidatorSigningInfo {
	cons, _ := accounts.NewPrefixes(s.b.Prefix()).Encode(accounts.KindConsensus, i.Address[:])
	return &slashingv1beta1.ValidatorSigningInfo{
		Address: cons, StartHeight: i.StartHeight, IndexOffset: i.IndexOffset,
		JailedUntil: timestamppb.New(i.JailedUntil), Tombstoned: i.Tombstoned, MissedBlocksCounter: i.MissedBlocksCounter,
	}
}

// parseValcons parses a CometBFT address (embervalcons1… or 0x…).
func (s *slashingServer) parseValcons(v string) (common.Address, error) {
	if v == "" {
		return common.Address{}, invalid("invalid request")
	}
	if len(v) > 2 && (v[:2] == "0x" || v[:2] == "0X") {
		return parseAccount(s.b, v)
	}
	kind, b, err := accounts.NewPrefixes(s.b.Prefix()).Decode(v)
	if err != nil || kind != accounts.KindConsensus {
		return common.Address{}, invalid("invalid consensus address %q: want %svalcons1… or 0x…", v, s.b.Prefix())
	}
	return common.BytesToAddress(b), nil
}

func (s *slashingServer) SigningInfo(ctx context.Context, req *slashingv1beta1.QuerySigningInfoRequest) (*slashingv1beta1.QuerySigningInfoResponse, error) {
	cons, err := s.parseValcons(req.GetConsAddress())
	if err != nil {
		return nil, err
	}
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	info, ok := slashing.GetSigningInfo(st, cons)
	if !ok {
		return nil, status.Errorf(codes.NotFound, "SigningInfo not found for validator %s", req.GetConsAddress())
	}
	return &slashingv1beta1.QuerySigningInfoResponse{ValSigningInfo: s.info(info)}, nil
}

func (s *slashingServer) SigningInfos(ctx context.Context, req *slashingv1beta1.QuerySigningInfosRequest) (*slashingv1beta1.QuerySigningInfosResponse, error) {
	st, err := openState(ctx, s.b)
	if err != nil {
		return nil, err
	}
	all := slashing.SigningInfos(st, 0, slashing.SigningInfoCount(st))
	items := make([]keyed[*slashingv1beta1.ValidatorSigningInfo], len(all))
	for i, info := range all { // the SDK's store orders them by consensus address
		items[i] = keyed[*slashingv1beta1.ValidatorSigningInfo]{key: info.Address, item: s.info(info)}
	}
	out, res, err := paginate(items, req.GetPagination())
	if err != nil {
		return nil, err
	}
	return &slashingv1beta1.QuerySigningInfosResponse{Info: out, Pagination: res}, nil
}
