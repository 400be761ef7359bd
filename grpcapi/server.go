// Package grpcapi serves the Cosmos services of package cosmosapi (auth,
// bank, staking, tx, tendermint) over gRPC, with server reflection. The
// height to read at comes in the x-cosmos-block-height metadata and the
// height read goes back in the response header, as on Cosmos nodes.
package grpcapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"

	"github.com/emberchain/ember/cosmosapi"
)

// HeightKey is the metadata key of the height (see cosmosapi.HeightKey).
const HeightKey = cosmosapi.HeightKey

// Server is the gRPC listener.
type Server struct {
	srv *grpc.Server
	ln  net.Listener
}

// Start listens on addr and serves in the background.
func Start(addr string, b cosmosapi.Backend, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("gRPC listener on %s: %w", addr, err)
	}
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(1<<20), grpc.MaxConcurrentStreams(256), grpc.UnaryInterceptor(withHeight))
	cosmosapi.Register(srv, b)
	reflection.Register(srv)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			log.Error("gRPC server stopped", "err", err)
		}
	}()
	log.Info("gRPC listening", "addr", ln.Addr().String())
	return &Server{srv: srv, ln: ln}, nil
}

// withHeight puts the metadata's height in the context and reports the
// height the call read in the response header.
func withHeight(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	var v string
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if vs := md.Get(HeightKey); len(vs) > 0 {
			v = vs[0]
		}
	}
	h, err := cosmosapi.ParseHeight(v)
	if err != nil {
		return nil, err
	}
	res, err := handler(cosmosapi.WithHeight(ctx, h), req)
	if h.Opened {
		_ = grpc.SetHeader(ctx, metadata.Pairs(HeightKey, strconv.FormatInt(h.Read, 10)))
	}
	return res, err
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Stop closes the listener and open connections.
func (s *Server) Stop() { s.srv.Stop() }
