package cosmosapi

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/ethereum/go-ethereum/core/state"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// HeightKey names the block height to read at (in a request's metadata or
// HTTP header) and the height read (in the response's), as on Cosmos nodes.
const HeightKey = "x-cosmos-block-height"

// Height carries a call's requested height in and the height it read out;
// every surface puts one in the context before calling a service.
type Height struct {
	Want int64 // 0: the latest
	Read int64 // set by the service that opened a state (see Opened)
	// Opened tells that Read was set: a fresh chain's state is read at
	// height 0, which is reported too.
	Opened bool
}

// read records the height a service read at.
func (h *Height) read(at int64) { h.Read, h.Opened = at, true }

type heightKey struct{}

// WithHeight returns ctx carrying h.
func WithHeight(ctx context.Context, h *Height) context.Context {
	return context.WithValue(ctx, heightKey{}, h)
}

// ParseHeight parses a height header or metadata value ("" = latest).
func ParseHeight(v string) (*Height, error) {
	if v == "" {
		return &Height{}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return nil, status.Errorf(codes.InvalidArgument, "invalid %s %q: want a block height", HeightKey, v)
	}
	return &Height{Want: n}, nil
}

func heightOf(ctx context.Context) *Height {
	if h, ok := ctx.Value(heightKey{}).(*Height); ok {
		return h
	}
	return &Height{}
}

// openState opens the state at the context's height and records the height
// read.
func openState(ctx context.Context, b Backend) (*state.StateDB, error) {
	h := heightOf(ctx)
	st, at, err := b.StateAt(h.Want)
	switch {
	case errors.Is(err, ErrHeight):
		return nil, status.Error(codes.InvalidArgument, err.Error())
	case err != nil:
		return nil, status.Error(codes.Internal, err.Error())
	}
	h.read(at)
	return st, nil
}

func invalid(format string, args ...any) error {
	return status.Error(codes.InvalidArgument, fmt.Sprintf(format, args...))
}
