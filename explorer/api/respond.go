package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"

	"github.com/emberchain/ember/explorer"
)

// handlers hold the backend every endpoint reads.
type handlers struct {
	b   *Backend
	log *slog.Logger

	supply   heightCache[*big.Int]
	gas      heightCache[gasSample]
	failures failureCache // revert.go
}

// request is one call: the HTTP request and its parsed path and query.
type request struct {
	*http.Request
}

// apiError is an error with the HTTP status Blockscout answers it with.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

// invalid is a 422 for malformed input, as Blockscout gives.
func invalid(msg string) error { return &apiError{status: http.StatusUnprocessableEntity, msg: msg} }

// errNotFound is Blockscout's 404.
var errNotFound = &apiError{status: http.StatusNotFound, msg: "Not found"}

// messageJSON is Blockscout's answer of a bare message (errors, "OK").
type messageJSON struct {
	Message string `json:"message"`
}

func message(msg string) messageJSON { return messageJSON{Message: msg} }

// rpcStatus is the gRPC gateway's error body.
type rpcStatus struct {
	Code    int       `json:"code"`
	Details emptyList `json:"details"`
	Message string    `json:"message"`
}

// statusError is an error in the gRPC-gateway shape (rpcStatus) that
// Blockscout's microservices answer with: the gRPC code and message.
type statusError struct {
	status int
	code   int // gRPC status code
	msg    string
}

func (e *statusError) Error() string { return e.msg }

// grpcNotFound is gRPC's NOT_FOUND, which the gateway serves as HTTP 404.
const grpcNotFound = 5

func rpcNotFound(msg string) error {
	return &statusError{status: http.StatusNotFound, code: grpcNotFound, msg: msg}
}

// corruptError is a stored value that does not decode: the database holds
// something the explorer never writes. It is answered as a 500 that names
// the value, so that the operator knows which row to repair (or which
// contract to verify again), and logged with the decoder's error; shown
// empty, it would read as a legitimate answer.
type corruptError struct {
	what string // "the ABI of verified contract 0x…"
	err  error
}

func (e *corruptError) Error() string { return "corrupt " + e.what + ": " + e.err.Error() }
func (e *corruptError) Unwrap() error { return e.err }

// corrupt is the error of a stored value, what, that failed to decode.
func corrupt(err error, format string, args ...any) error {
	return &corruptError{what: fmt.Sprintf(format, args...), err: err}
}

// serve adapts an endpoint to http: its value as JSON, or its error in
// Blockscout's shape. Store errors are logged, not shown; a corrupt stored
// value is logged and named.
func (h *handlers) serve(fn func(*request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := fn(&request{r})
		var (
			ae *apiError
			se *statusError
			ce *corruptError
		)
		switch {
		case err == nil:
			if f, ok := v.(*csvFile); ok { // csvexport.go
				writeCSV(w, f)
				return
			}
			writeJSON(w, http.StatusOK, v)
		case errors.As(err, &ae):
			writeJSON(w, ae.status, message(ae.msg))
		case errors.As(err, &se):
			writeJSON(w, se.status, rpcStatus{Code: se.code, Message: se.msg})
		case errors.Is(err, explorer.ErrNotFound):
			writeJSON(w, http.StatusNotFound, message("Not found"))
		case errors.As(err, &ce):
			h.log.Error("explorer API: corrupt stored data", "path", r.URL.Path, "err", err)
			writeJSON(w, http.StatusInternalServerError, message("Internal server error: corrupt stored data: "+ce.what))
		default:
			h.log.Error("explorer API", "path", r.URL.Path, "err", err)
			writeJSON(w, http.StatusInternalServerError, message("Internal server error"))
		}
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"message":"Internal server error"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
