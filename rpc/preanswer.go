package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// maxMethodNameLength is go-ethereum's limit on a method name: its server
// answers a longer one -32600 "method name too long". No registered method
// is that long, so Ember answers such a call itself, as any unknown method.
const maxMethodNameLength = 2048

// preAnswer answers, before go-ethereum's server sees it, an HTTP body that
// calls a private method without authentication (the guard) or a single
// call whose method name is longer than go-ethereum accepts; it reports
// whether it answered.
func (f *fastPath) preAnswer(w http.ResponseWriter, body []byte) bool {
	if f.guard != nil && f.guard.deny(w, body) {
		return true
	}
	return answerLongMethod(w, body)
}

// answerLongMethod answers a single call to a method longer than
// maxMethodNameLength as JSON-RPC 2.0 wants and go-ethereum does for any
// unknown method: -32601 "the method … does not exist/is not available"
// (the body limit bounds the name). go-ethereum's server would answer -32600,
// as if the request object were malformed; it is not.
func answerLongMethod(w http.ResponseWriter, body []byte) bool {
	if len(body) <= maxMethodNameLength {
		return false
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false
	}
	var req struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
	}
	if json.Unmarshal(body, &req) != nil || req.Version != "2.0" || len(req.Method) <= maxMethodNameLength {
		return false
	}
	// Notifications get no answer; ids go-ethereum refuses and
	// subscriptions stay go-ethereum's.
	if len(req.ID) == 0 || req.ID[0] == '{' || req.ID[0] == '[' ||
		strings.HasSuffix(req.Method, "_subscribe") || strings.HasSuffix(req.Method, "_unsubscribe") {
		return false
	}
	enc, _ := json.Marshal(errorResponse{Version: "2.0", ID: req.ID,
		Error: errorObject{Code: -32601, Message: fmt.Sprintf("the method %s does not exist/is not available", req.Method)}})
	writeJSON(w, enc)
	return true
}

// writeJSON writes body as the JSON answer, status 200.
func writeJSON(w http.ResponseWriter, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}
