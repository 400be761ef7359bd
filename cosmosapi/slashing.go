package cosmosapi

import (
	"context"
	"encoding/binary"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
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

// defaultPageLimit is the SDK's page size when a request names none.
const defaultPageLimit = 100

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
	positions, res, err := paginate(slashing.SigningInfoCount(st), req.GetPagination())
	if err != nil {
		return nil, err
	}
	out := []*slashingv1beta1.ValidatorSigningInfo{}
	for _, i := range positions {
		for _, info := range slashing.SigningInfos(st, i, 1) {
			out = append(out, s.info(info))
		}
	}
	return &slashingv1beta1.QuerySigningInfosResponse{Info: out, Pagination: res}, nil
}

// paginate picks the positions of a page over a list of n items, as the
// SDK's pagination reads a PageRequest: a key (the position of the page's
// first item, as the previous page's next_key gave it) or an offset, a
// limit (100 by default), reverse order, and the total when count_total
// asks for it on an offset page.
func paginate(n uint64, req *queryv1beta1.PageRequest) ([]uint64, *queryv1beta1.PageResponse, error) {
	if len(req.GetKey()) > 0 && req.GetOffset() > 0 {
		return nil, nil, invalid("either offset or key is expected, got both")
	}
	limit := req.GetLimit()
	if limit == 0 {
		limit = defaultPageLimit
	}
	start := req.GetOffset()
	if key := req.GetKey(); len(key) > 0 {
		if len(key) != 8 {
			return nil, nil, invalid("invalid pagination key %x", key)
		}
		start = binary.BigEndian.Uint64(key)
	}
	var out []uint64
	for k := start; k < n && uint64(len(out)) < limit; k++ {
		if req.GetReverse() {
			out = append(out, n-1-k)
		} else {
			out = append(out, k)
		}
	}
	res := &queryv1beta1.PageResponse{}
	if next := start + uint64(len(out)); next < n {
		res.NextKey = binary.BigEndian.AppendUint64(nil, next)
	}
	if req.GetCountTotal() && len(req.GetKey()) == 0 {
		res.Total = n
	}
	return out, res, nil
}
