package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Endpoints Blockscout serves from its microservices or its config, which
// this chain answers without them.

// dataAvailability is /api/v1/<da_layer>/blob and …/l2BatchMetadata: this
// chain posts no data to a data-availability layer, so every layer's
// lookups are NOT_FOUND in the gRPC gateway's shape.
func (h *handlers) dataAvailability(r *request) (any, error) {
	return nil, rpcNotFound("no " + r.PathValue("layer") + " data-availability layer on this chain")
}

// accountAbstraction is /proxy/account-abstraction/status: no ERC-4337
// indexer runs here, so both entry-point versions say not enabled.
func (h *handlers) accountAbstraction(*request) (any, error) {
	return accountAbstractionStatus{}, nil
}

// jsonRPCURL is /api/v2/config/json-rpc-url: where wallets reach the chain.
func (h *handlers) jsonRPCURL(*request) (any, error) {
	var out jsonRPCURL
	if h.b.JSONRPCURL != "" {
		out.URL = &h.b.JSONRPCURL
	}
	return out, nil
}

// ---- /api/eth-rpc: the pages' same-origin way to the node's JSON-RPC ----

// The node's JSON-RPC usually listens on loopback, so a browser on another
// machine cannot reach the URL /config/json-rpc-url names. The contract
// pages' reads go to POST /api/eth-rpc (Blockscout's path for its ETH RPC
// API) on the explorer's own port instead, which forwards the few
// read-only methods those pages use and refuses the rest: the explorer is
// public, the node's JSON-RPC (personal_*, debug_*, admin_*) need not be.

// ethRPCMethods are the methods the proxy forwards.
var ethRPCMethods = map[string]bool{
	"eth_call":        true,
	"eth_estimateGas": true,
	"eth_chainId":     true,
	"eth_blockNumber": true,
	// The address page's balance of an address not indexed yet, and its
	// nonce (Etherscan's "Nonce"): both read-only.
	"eth_getBalance":          true,
	"eth_getTransactionCount": true,
	// The gas tracker's fee history.
	"eth_feeHistory": true,
}

const (
	// ethRPCMaxBody bounds a request: an eth_call's calldata with array
	// arguments fits many times over.
	ethRPCMaxBody = 128 << 10
	// ethRPCMaxAnswer bounds what is read back from the node: an eth_call
	// can return a large blob, but not an unbounded one.
	ethRPCMaxAnswer = 4 << 20
	// JSON-RPC 2.0 error codes.
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcParseError     = -32700
	rpcServerError    = -32000
)

// ethRPCClient calls the node; a call that hangs does not hold the page.
var ethRPCClient = &http.Client{Timeout: 15 * time.Second}

// ethRPCRequest is one JSON-RPC request as the proxy accepts it; only these
// fields go on to the node.
type ethRPCRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// ethRPCError is the answer to a request the proxy does not forward.
type ethRPCError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   ethRPCErrorBody `json:"error"`
}

type ethRPCErrorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (h *handlers) serviceRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/eth-rpc", h.ethRPC)
	mux.HandleFunc("/api/eth-rpc", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", http.MethodPost)
		writeRPCError(w, http.StatusMethodNotAllowed, nil, rpcInvalidRequest, "POST a JSON-RPC request to "+r.URL.Path)
	})
}

// ethRPC is POST /api/eth-rpc.
func (h *handlers) ethRPC(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, ethRPCMaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcInvalidRequest, fmt.Sprintf("request body larger than %d bytes", ethRPCMaxBody))
			return
		}
		writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest, "reading the request: "+err.Error())
		return
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		writeRPCError(w, http.StatusOK, nil, rpcInvalidRequest, "batches are not accepted here: send one request at a time")
		return
	}
	var req ethRPCRequest
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&req); err != nil {
		writeRPCError(w, http.StatusOK, nil, rpcParseError, "not a JSON-RPC request: "+err.Error())
		return
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		writeRPCError(w, http.StatusOK, req.ID, rpcInvalidRequest, `want {"jsonrpc":"2.0","id":…,"method":…,"params":[…]}`)
		return
	}
	if !ethRPCMethods[req.Method] {
		writeRPCError(w, http.StatusOK, req.ID, rpcMethodNotFound, "method "+req.Method+" is not available through the explorer: it forwards eth_call, eth_estimateGas, eth_chainId and eth_blockNumber")
		return
	}
	upstream := upstreamURL(h.b.JSONRPCURL)
	if upstream == "" {
		writeRPCError(w, http.StatusServiceUnavailable, req.ID, rpcServerError, "this explorer knows no JSON-RPC endpoint to forward to")
		return
	}
	out, err := json.Marshal(req)
	if err != nil {
		writeRPCError(w, http.StatusInternalServerError, req.ID, rpcServerError, "encoding the request: "+err.Error())
		return
	}
	call, err := http.NewRequestWithContext(r.Context(), http.MethodPost, upstream, bytes.NewReader(out))
	if err != nil {
		writeRPCError(w, http.StatusInternalServerError, req.ID, rpcServerError, "the JSON-RPC endpoint: "+err.Error())
		return
	}
	call.Header.Set("Content-Type", "application/json")
	res, err := ethRPCClient.Do(call)
	if err != nil {
		// The upstream address stays out of the answer: it is the node's
		// private listener.
		h.log.Debug("eth-rpc proxy", "method", req.Method, "err", err)
		writeRPCError(w, http.StatusBadGateway, req.ID, rpcServerError, "the node's JSON-RPC did not answer")
		return
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, ethRPCMaxAnswer+1))
	if err != nil {
		writeRPCError(w, http.StatusBadGateway, req.ID, rpcServerError, "the node's JSON-RPC answer broke off")
		return
	}
	if len(answer) > ethRPCMaxAnswer {
		writeRPCError(w, http.StatusBadGateway, req.ID, rpcServerError, fmt.Sprintf("the node's answer is larger than %d bytes", ethRPCMaxAnswer))
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(res.StatusCode)
	_, _ = w.Write(answer)
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	writeJSON(w, status, ethRPCError{JSONRPC: "2.0", ID: id, Error: ethRPCErrorBody{Code: code, Message: msg}})
}

// upstreamURL is where the proxy dials the node: the configured URL, with
// an all-interfaces listener (0.0.0.0, ::) reached on loopback.
func upstreamURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsUnspecified() {
		u.Host = net.JoinHostPort("127.0.0.1", u.Port())
	}
	return u.String()
}
