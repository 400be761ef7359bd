package cosmosapi

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	abciv1beta1 "cosmossdk.io/api/cosmos/base/abci/v1beta1"
	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	abcipb "cosmossdk.io/api/tendermint/abci"
	abci "github.com/cometbft/cometbft/abci/types"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/native"
)

// Limits of GetTxsEvent, as the SDK's.
const (
	defaultTxsLimit = 100
	maxTxsLimit     = 100 // CometBFT's tx_search per_page cap
)

// sdkTxInMempoolCache is the SDK's code for a tx CometBFT already holds.
const sdkTxInMempoolCache = 19

type txServer struct {
	txv1beta1.UnimplementedServiceServer
	b Backend
}

// Simulate reports the gas a native tx uses, without its signature: what
// cosmjs and Keplr call before they sign to fill the gas limit.
func (s *txServer) Simulate(_ context.Context, req *txv1beta1.SimulateRequest) (*txv1beta1.SimulateResponse, error) {
	raw := req.GetTxBytes()
	if len(raw) == 0 && req.GetTx() != nil { // the deprecated field
		var err error
		if raw, err = proto.Marshal(req.GetTx()); err != nil {
			return nil, invalid("tx: %v", err)
		}
	}
	if len(raw) == 0 {
		return nil, invalid("empty txBytes is not allowed")
	}
	wanted, used, err := s.b.Simulate(raw)
	if err != nil {
		return nil, status.Errorf(codes.Unknown, "%v With gas wanted: '%d' and gas used: '%d' ", err, wanted, used)
	}
	return &txv1beta1.SimulateResponse{
		GasInfo: &abciv1beta1.GasInfo{GasWanted: wanted, GasUsed: used},
		Result:  &abciv1beta1.Result{},
	}, nil
}

// decodeTx is the Cosmos form of a native tx's bytes; an EVM tx (the chain
// carries both) has none and gives nil.
func decodeTx(raw []byte) *txv1beta1.Tx {
	if !native.IsNative(raw) {
		return nil
	}
	var txRaw txv1beta1.TxRaw
	if proto.Unmarshal(raw, &txRaw) != nil {
		return nil
	}
	tx := &txv1beta1.Tx{Body: &txv1beta1.TxBody{}, AuthInfo: &txv1beta1.AuthInfo{}, Signatures: txRaw.Signatures}
	if proto.Unmarshal(txRaw.BodyBytes, tx.Body) != nil || proto.Unmarshal(txRaw.AuthInfoBytes, tx.AuthInfo) != nil {
		return nil
	}
	return tx
}

// events converts CometBFT events to their published protobuf type.
func events(in []abci.Event) []*abcipb.Event {
	out := make([]*abcipb.Event, 0, len(in))
	for _, e := range in {
		pe := &abcipb.Event{Type_: e.Type}
		for _, a := range e.Attributes {
			pe.Attributes = append(pe.Attributes, &abcipb.EventAttribute{Key: a.Key, Value: a.Value, Index: a.Index})
		}
		out = append(out, pe)
	}
	return out
}

// blockTimes caches block times by height within one call.
type blockTimes struct {
	c     Comet
	times map[int64]string
}

func (b *blockTimes) at(ctx context.Context, height int64) string {
	if t, ok := b.times[height]; ok {
		return t
	}
	var t string
	if blk, err := b.c.Block(ctx, &height); err == nil {
		t = blk.Block.Time.UTC().Format(time.RFC3339)
	}
	b.times[height] = t
	return t
}

// txResponse is a committed tx as the SDK reports it, with its Cosmos form
// (nil for an EVM tx).
func txResponse(ctx context.Context, r *ctypes.ResultTx, times *blockTimes) (*txv1beta1.Tx, *abciv1beta1.TxResponse) {
	tx := decodeTx(r.Tx)
	res := &abciv1beta1.TxResponse{
		Height: r.Height, Txhash: strings.ToUpper(hex.EncodeToString(r.Hash)),
		Codespace: r.TxResult.Codespace, Code: r.TxResult.Code, Data: strings.ToUpper(hex.EncodeToString(r.TxResult.Data)),
		RawLog: r.TxResult.Log, Logs: []*abciv1beta1.ABCIMessageLog{}, Info: r.TxResult.Info,
		GasWanted: r.TxResult.GasWanted, GasUsed: r.TxResult.GasUsed,
		Timestamp: times.at(ctx, r.Height), Events: events(r.TxResult.Events),
	}
	if tx != nil {
		res.Tx, _ = anypb.New(tx)
		res.Tx.TypeUrl = "/" + string(proto.MessageName(tx))
	}
	return tx, res
}

func (s *txServer) GetTx(ctx context.Context, req *txv1beta1.GetTxRequest) (*txv1beta1.GetTxResponse, error) {
	hash, err := hex.DecodeString(strings.TrimPrefix(req.GetHash(), "0x"))
	if err != nil || len(hash) != 32 {
		return nil, invalid("invalid tx hash %q: want 32 bytes in hex", req.GetHash())
	}
	r, err := s.b.Comet().Tx(ctx, hash, false)
	if err != nil {
		return nil, status.Errorf(codes.NotFound, "tx not found: %s", strings.ToUpper(hex.EncodeToString(hash)))
	}
	tx, res := txResponse(ctx, r, &blockTimes{c: s.b.Comet(), times: map[int64]string{}})
	return &txv1beta1.GetTxResponse{Tx: tx, TxResponse: res}, nil
}

// GetTxsEvent searches CometBFT's tx index: query (SDK 0.50) or events
// (earlier SDKs, joined with AND), page from 1, limit at most 100.
func (s *txServer) GetTxsEvent(ctx context.Context, req *txv1beta1.GetTxsEventRequest) (*txv1beta1.GetTxsEventResponse, error) {
	query := req.GetQuery()
	if query == "" {
		for _, e := range req.GetEvents() {
			if !strings.Contains(e, "=") || strings.Count(strings.SplitN(e, "=", 2)[0], ".") == 0 {
				return nil, invalid("invalid event; event %s should be of the format: {eventType}.{eventAttribute}={value}", e)
			}
		}
		query = strings.Join(req.GetEvents(), " AND ")
	}
	if query == "" {
		return nil, invalid("query cannot be empty")
	}
	page, limit := int(req.GetPage()), int(req.GetLimit())
	if p := req.GetPagination(); p != nil && limit == 0 { // the deprecated pagination
		limit = int(p.Limit)
		if limit > 0 {
			page = int(p.Offset)/limit + 1
		}
	}
	if page == 0 {
		page = 1
	}
	if limit == 0 {
		limit = defaultTxsLimit
	}
	if limit > maxTxsLimit {
		return nil, invalid("limit %d is above %d", limit, maxTxsLimit)
	}
	order := ""
	switch req.GetOrderBy() {
	case txv1beta1.OrderBy_ORDER_BY_ASC:
		order = "asc"
	case txv1beta1.OrderBy_ORDER_BY_DESC:
		order = "desc"
	}
	found, err := s.b.Comet().TxSearch(ctx, query, false, &page, &limit, order)
	if err != nil {
		return nil, invalid("%v", err)
	}
	out := &txv1beta1.GetTxsEventResponse{Txs: []*txv1beta1.Tx{}, TxResponses: []*abciv1beta1.TxResponse{}, Total: uint64(found.TotalCount),
		Pagination: &queryv1beta1.PageResponse{Total: uint64(found.TotalCount)}}
	times := &blockTimes{c: s.b.Comet(), times: map[int64]string{}}
	for _, r := range found.Txs {
		tx, res := txResponse(ctx, r, times)
		if tx == nil {
			tx = &txv1beta1.Tx{} // an EVM tx: no Cosmos form
		}
		out.Txs = append(out.Txs, tx)
		out.TxResponses = append(out.TxResponses, res)
	}
	return out, nil
}

// BroadcastTx hands the tx to CometBFT's mempool (CheckTx) and reports the
// check, as BROADCAST_MODE_SYNC does; ASYNC does not wait for the check.
func (s *txServer) BroadcastTx(ctx context.Context, req *txv1beta1.BroadcastTxRequest) (*txv1beta1.BroadcastTxResponse, error) {
	if len(req.GetTxBytes()) == 0 {
		return nil, invalid("invalid empty tx")
	}
	var r *ctypes.ResultBroadcastTx
	var err error
	switch req.GetMode() {
	case txv1beta1.BroadcastMode_BROADCAST_MODE_SYNC:
		r, err = s.b.Comet().BroadcastTxSync(ctx, req.TxBytes)
	case txv1beta1.BroadcastMode_BROADCAST_MODE_ASYNC:
		r, err = s.b.Comet().BroadcastTxAsync(ctx, req.TxBytes)
	case txv1beta1.BroadcastMode_BROADCAST_MODE_BLOCK:
		return nil, invalid("unsupported return type BROADCAST_MODE_BLOCK; supported types: sync, async")
	default:
		return nil, invalid("%s: invalid broadcast mode", req.GetMode())
	}
	hash := strings.ToUpper(hex.EncodeToString(cmtHash(req.TxBytes)))
	if err != nil {
		if strings.Contains(err.Error(), "tx already exists in cache") {
			return &txv1beta1.BroadcastTxResponse{TxResponse: &abciv1beta1.TxResponse{Txhash: hash, Codespace: sdkCodespace, Code: sdkTxInMempoolCache,
				RawLog: fmt.Sprintf("%v: tx already in mempool", err), Logs: []*abciv1beta1.ABCIMessageLog{}, Events: []*abcipb.Event{}}}, nil
		}
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	return &txv1beta1.BroadcastTxResponse{TxResponse: &abciv1beta1.TxResponse{
		Txhash: hash, Codespace: r.Codespace, Code: r.Code, Data: strings.ToUpper(hex.EncodeToString(r.Data)), RawLog: r.Log,
		Logs: []*abciv1beta1.ABCIMessageLog{}, Events: []*abcipb.Event{},
	}}, nil
}
