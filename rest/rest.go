// Package rest serves the native, Cosmos-style REST endpoints: accounts and
// balances under the paths and JSON shapes the Cosmos SDK's gRPC gateway
// uses, so Cosmos wallets, scripts and explorers read them unchanged. Every
// address parameter takes either spelling (bech32 with the chain's prefix,
// or 0x hex).
package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/rs/cors"

	"github.com/emberchain/ember/accounts"
)

// Backend is what the endpoints read.
type Backend interface {
	// Prefix is the chain's bech32 account prefix.
	Prefix() string
	// Denom is the base denomination of the native token.
	Denom() string
	// StateAt opens the state after block height (0 = the latest) and
	// reports the height it opened.
	StateAt(height int64) (accounts.AccountState, int64, error)
}

// ErrHeight marks a requested height the node cannot serve.
var ErrHeight = errors.New("invalid height")

// gRPC status codes the gateway reports in its error body.
const (
	codeInvalidArgument = 3
	codeNotFound        = 5
	codeUnimplemented   = 12
	codeInternal        = 13
)

// heightHeader selects the block height to read at, as on Cosmos nodes; the
// answer carries the height read in heightResponse.
const (
	heightHeader   = "x-cosmos-block-height"
	heightResponse = "Grpc-Metadata-X-Cosmos-Block-Height"
)

// Handler returns the REST routes.
func Handler(b Backend) http.Handler {
	h := &handler{b: b}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /cosmos/auth/v1beta1/accounts/{address}", h.account)
	mux.HandleFunc("GET /cosmos/auth/v1beta1/account_info/{address}", h.accountInfo)
	mux.HandleFunc("GET /cosmos/auth/v1beta1/bech32", h.bech32Prefix)
	mux.HandleFunc("GET /cosmos/bank/v1beta1/balances/{address}", h.balances)
	mux.HandleFunc("GET /cosmos/bank/v1beta1/spendable_balances/{address}", h.balances)
	mux.HandleFunc("GET /cosmos/bank/v1beta1/balances/{address}/by_denom", h.balanceByDenom)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			writeError(w, http.StatusMethodNotAllowed, codeUnimplemented, "Method Not Allowed")
			return
		}
		writeError(w, http.StatusNotFound, codeNotFound, "Not Found")
	})
	return cors.New(cors.Options{AllowedOrigins: []string{"*"}, AllowedMethods: []string{http.MethodGet}, AllowedHeaders: []string{"*"}}).Handler(mux)
}

type handler struct{ b Backend }

// errorBody is the gateway's error shape.
type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

func writeError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, errorBody{Code: code, Message: msg, Details: []any{}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"code":13,"message":"encode response","details":[]}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// read parses the address and opens the requested state; on failure it has
// already written the error.
func (h *handler) read(w http.ResponseWriter, r *http.Request) (common.Address, accounts.AccountState, bool) {
	addr, err := accounts.ParseAddress(h.b.Prefix(), r.PathValue("address"))
	if err != nil {
		writeError(w, http.StatusBadRequest, codeInvalidArgument, err.Error())
		return common.Address{}, nil, false
	}
	var height int64
	if v := r.Header.Get(heightHeader); v != "" {
		if height, err = strconv.ParseInt(v, 10, 64); err != nil || height < 0 {
			writeError(w, http.StatusBadRequest, codeInvalidArgument, fmt.Sprintf("invalid %s header %q: want a block height", heightHeader, v))
			return common.Address{}, nil, false
		}
	}
	st, at, err := h.b.StateAt(height)
	switch {
	case errors.Is(err, ErrHeight):
		writeError(w, http.StatusBadRequest, codeInvalidArgument, err.Error())
		return common.Address{}, nil, false
	case err != nil:
		writeError(w, http.StatusInternalServerError, codeInternal, err.Error())
		return common.Address{}, nil, false
	}
	w.Header().Set(heightResponse, strconv.FormatInt(at, 10))
	return addr, st, true
}

func (h *handler) lookup(w http.ResponseWriter, r *http.Request) (*accounts.EthAccount, bool) {
	addr, st, ok := h.read(w, r)
	if !ok {
		return nil, false
	}
	acc, found := accounts.LookupAccount(st, h.b.Prefix(), addr)
	if !found {
		writeError(w, http.StatusNotFound, codeNotFound, fmt.Sprintf("account %s not found", accounts.Bech32(h.b.Prefix(), addr)))
		return nil, false
	}
	return acc, true
}

func (h *handler) account(w http.ResponseWriter, r *http.Request) {
	if acc, ok := h.lookup(w, r); ok {
		writeJSON(w, http.StatusOK, struct {
			Account *accounts.EthAccount `json:"account"`
		}{acc})
	}
}

func (h *handler) accountInfo(w http.ResponseWriter, r *http.Request) {
	if acc, ok := h.lookup(w, r); ok {
		writeJSON(w, http.StatusOK, struct {
			Info accounts.BaseAccount `json:"info"`
		}{acc.BaseAccount})
	}
}

func (h *handler) bech32Prefix(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"bech32_prefix": h.b.Prefix()})
}

// coin is a Cosmos coin: the amount is a decimal string.
type coin struct {
	Denom  string `json:"denom"`
	Amount string `json:"amount"`
}

type pageResponse struct {
	NextKey *string `json:"next_key"`
	Total   string  `json:"total"`
}

// balances lists the one native coin, omitted when zero as the bank
// module omits zero balances.
func (h *handler) balances(w http.ResponseWriter, r *http.Request) {
	addr, st, ok := h.read(w, r)
	if !ok {
		return
	}
	coins := []coin{}
	if bal := st.GetBalance(addr); !bal.IsZero() {
		coins = append(coins, coin{Denom: h.b.Denom(), Amount: bal.Dec()})
	}
	writeJSON(w, http.StatusOK, struct {
		Balances   []coin       `json:"balances"`
		Pagination pageResponse `json:"pagination"`
	}{coins, pageResponse{Total: strconv.Itoa(len(coins))}})
}

func (h *handler) balanceByDenom(w http.ResponseWriter, r *http.Request) {
	denom := r.URL.Query().Get("denom")
	if denom == "" {
		writeError(w, http.StatusBadRequest, codeInvalidArgument, "invalid denom")
		return
	}
	addr, st, ok := h.read(w, r)
	if !ok {
		return
	}
	amount := "0"
	if denom == h.b.Denom() {
		amount = st.GetBalance(addr).Dec()
	}
	writeJSON(w, http.StatusOK, struct {
		Balance coin `json:"balance"`
	}{coin{Denom: denom, Amount: amount}})
}

// Server is the REST listener.
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Start listens on addr and serves in the background.
func Start(addr string, b Backend, log *slog.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("REST listener on %s: %w", addr, err)
	}
	s := &Server{ln: ln, srv: &http.Server{
		Handler:           Handler(b),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 16,
	}}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("REST server stopped", "err", err)
		}
	}()
	log.Info("REST listening", "addr", ln.Addr().String())
	return s, nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Stop closes the listener and open connections.
func (s *Server) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	_ = s.srv.Close()
}
