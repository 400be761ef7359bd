package cosmosapi

import (
	"context"
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Router calls the registered services by gRPC method path
// ("/cosmos.bank.v1beta1.Query/Balance"), as the SDK's GRPCQueryRouter
// does for abci_query. It is a grpc.ServiceRegistrar, so Register fills it
// exactly as it fills the gRPC server.
type Router struct {
	methods map[string]route
	latest  func() int64 // the latest block height
}

type route struct {
	srv     any
	handler func(srv any, ctx context.Context, dec func(any) error, in grpc.UnaryServerInterceptor) (any, error)
}

// NewRouter returns an empty router; latest reports the chain's height,
// which answers carry when the method read no state (abci_query answers
// always name a height, and cosmjs refuses one without).
func NewRouter(latest func() int64) *Router {
	return &Router{methods: map[string]route{}, latest: latest}
}

// RegisterService implements grpc.ServiceRegistrar (unary methods only:
// the services have no streams).
func (r *Router) RegisterService(sd *grpc.ServiceDesc, ss any) {
	for _, m := range sd.Methods {
		r.methods["/"+sd.ServiceName+"/"+m.MethodName] = route{srv: ss, handler: m.Handler}
	}
}

// Has tells whether path is a registered method.
func (r *Router) Has(path string) bool {
	_, ok := r.methods[path]
	return ok
}

// Call runs the method at path; decode fills its request message.
func (r *Router) Call(ctx context.Context, path string, decode func(proto.Message) error) (proto.Message, error) {
	m, ok := r.methods[path]
	if !ok {
		return nil, status.Errorf(codes.Unimplemented, "unknown method %s", path)
	}
	res, err := m.handler(m.srv, ctx, func(v any) error {
		if err := decode(v.(proto.Message)); err != nil {
			return status.Errorf(codes.InvalidArgument, "decode %s: %v", proto.MessageName(v.(proto.Message)), err)
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return res.(proto.Message), nil
}

// ABCIQuery answers an abci_query whose path is a method path, with the
// protobuf request in req.Data and the protobuf response in the value; ok
// is false for other paths. Errors become the SDK's ABCI codes
// (codespace "sdk") with the gRPC status in the log, which is what cosmjs
// matches ("rpc error: code = NotFound" for an unknown account).
func (r *Router) ABCIQuery(ctx context.Context, req *abci.RequestQuery) (res *abci.ResponseQuery, ok bool) {
	if !r.Has(req.Path) {
		return nil, false
	}
	h := &Height{Want: req.Height}
	out, err := r.Call(WithHeight(ctx, h), req.Path, func(m proto.Message) error { return proto.Unmarshal(req.Data, m) })
	if !h.Opened {
		h.Read = r.latest()
	}
	if err == nil {
		var value []byte
		if value, err = (proto.MarshalOptions{Deterministic: true}).Marshal(out); err == nil {
			return &abci.ResponseQuery{Value: value, Height: h.Read}, true
		}
	}
	return abciError(err, h.Read), true
}

// SDK error codes (codespace "sdk") that gRPC codes map to, as baseapp's
// gRPCErrorToSDKError maps them.
const (
	sdkCodespace       = "sdk"
	sdkUnauthorized    = 4
	sdkUnknownRequest  = 6
	sdkInvalidRequest  = 18
	sdkKeyNotFound     = 38
	descUnauthorized   = "unauthorized"
	descUnknownRequest = "unknown request"
	descInvalidRequest = "invalid request"
	descKeyNotFound    = "key not found"
)

func abciError(err error, height int64) *abci.ResponseQuery {
	code, desc := uint32(sdkUnknownRequest), descUnknownRequest
	switch status.Code(err) {
	case codes.NotFound:
		code, desc = sdkKeyNotFound, descKeyNotFound
	case codes.InvalidArgument, codes.FailedPrecondition:
		code, desc = sdkInvalidRequest, descInvalidRequest
	case codes.Unauthenticated:
		code, desc = sdkUnauthorized, descUnauthorized
	}
	return &abci.ResponseQuery{Code: code, Codespace: sdkCodespace, Log: fmt.Sprintf("%v: %s", err, desc), Height: height}
}
