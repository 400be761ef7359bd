package rpc

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/golang-jwt/jwt/v4"
)

// PrivateNamespaces need authentication when enabled: they act with the
// node's keys (personal) or change how it runs (miner).
var PrivateNamespaces = []string{"personal", "miner"}

// JWTSecretFile is where a home keeps the HS256 secret, relative to it.
const JWTSecretFile = "config/jwt.hex"

// jwtMaxSkew is how far a token's iat may be from now, either way: the
// engine API's rule, which geth's authrpc enforces.
const jwtMaxSkew = 60 * time.Second

// authErrorCode is the JSON-RPC error code of a refused private call: the
// code Besu answers an unauthenticated call with.
const authErrorCode = -40100

// LoadJWTSecret reads a 32-byte secret written as hex (optional 0x,
// surrounding space ignored), as geth reads its jwtsecret file.
func LoadJWTSecret(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	secret := common.FromHex(strings.TrimSpace(string(raw)))
	if len(secret) != 32 {
		return nil, fmt.Errorf("JWT secret %s: %d bytes, want 32 (64 hex digits)", path, len(secret))
	}
	return secret, nil
}

// EnsureJWTSecret loads the secret at path, creating a random one (mode
// 0600) when the file does not exist.
func EnsureJWTSecret(path string) ([]byte, error) {
	secret, err := LoadJWTSecret(path)
	if !errors.Is(err, os.ErrNotExist) {
		return secret, err
	}
	secret = make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// O_EXCL: if another process created it meanwhile, use that one.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return LoadJWTSecret(path)
	}
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(hexutil.Encode(secret))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	return secret, nil
}

// NewJWT signs an HS256 token whose only claim is iat, as geth's
// node.NewJWTAuth makes them.
func NewJWT(secret []byte, iat time.Time) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		IssuedAt: jwt.NewNumericDate(iat),
	}).SignedString(secret)
}

// Auth enables the private namespaces.
type Auth struct {
	Secret []byte // HS256 key of the bearer tokens
}

// authenticator checks bearer tokens.
type authenticator struct {
	secret []byte
	now    func() time.Time // the clock, replaced in tests
}

func newAuthenticator(a Auth) *authenticator {
	return &authenticator{secret: a.Secret, now: time.Now}
}

// bearer returns the token of an "Authorization: Bearer" header. Other
// schemes (Basic, from a proxy in front) are not ours: no token.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return "", false
	}
	return strings.TrimSpace(h[7:]), true
}

// verify checks a token with geth's authrpc rules: HS256 with the secret,
// iat present and within jwtMaxSkew of now, exp (optional) not passed.
func (a *authenticator) verify(token string) error {
	var claims jwt.RegisteredClaims
	// Claim validation is off: RegisteredClaims would refuse an iat slightly
	// in the future, but clock drift either way is allowed.
	_, err := jwt.ParseWithClaims(token, &claims, func(*jwt.Token) (any, error) { return a.secret, nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithoutClaimsValidation())
	now := a.now()
	switch {
	case errors.Is(err, jwt.ErrSignatureInvalid): // HMAC mismatch, not a wrong algorithm
		return errors.New("invalid JWT: the signature does not match this node's secret")
	case err != nil:
		return fmt.Errorf("invalid JWT: %v", err)
	case !claims.VerifyExpiresAt(now, false):
		return errors.New("invalid JWT: token is expired (exp)")
	case claims.IssuedAt == nil:
		return errors.New("invalid JWT: no iat (issued-at) claim")
	case now.Sub(claims.IssuedAt.Time) > jwtMaxSkew:
		return fmt.Errorf("invalid JWT: stale token: iat %d is %s before the node's clock (at most %s allowed)",
			claims.IssuedAt.Unix(), now.Sub(claims.IssuedAt.Time).Round(time.Second), jwtMaxSkew)
	case claims.IssuedAt.Time.Sub(now) > jwtMaxSkew:
		return fmt.Errorf("invalid JWT: iat %d is %s after the node's clock (at most %s allowed)",
			claims.IssuedAt.Unix(), claims.IssuedAt.Time.Sub(now).Round(time.Second), jwtMaxSkew)
	}
	return nil
}

// errorResponse is a JSON-RPC error answer, fields in go-ethereum's order.
type errorResponse struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   errorObject     `json:"error"`
}

// refuse answers a request whose token is invalid: HTTP 401 with one
// JSON-RPC error saying why, for HTTP calls and WebSocket upgrades alike.
func refuse(w http.ResponseWriter, reason error) {
	body, _ := json.Marshal(errorResponse{Version: "2.0", ID: json.RawMessage("null"),
		Error: errorObject{Code: authErrorCode, Message: reason.Error()}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusUnauthorized)
	w.Write(body)
}

// privateGuard finds calls to private methods in unauthenticated HTTP
// bodies and answers them with an error instead of running them. It only
// words the error: the server such bodies go to has no private namespace
// registered, so a call it misses cannot run either.
type privateGuard struct {
	namespaces []string // the enabled private namespaces
}

// call is the part of a JSON-RPC request the guard reads.
type call struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	// invalid marks a batch item that is not an object (5, null, "x"):
	// go-ethereum's server answers it -32600 "invalid request" with id null.
	invalid bool
}

// isPrivate reports whether method belongs to a private namespace:
// go-ethereum's server takes the namespace up to the first "_".
func (g *privateGuard) isPrivate(method string) bool {
	ns, _, ok := strings.Cut(method, "_")
	return ok && slices.Contains(g.namespaces, ns)
}

// mentionsPrivate is a cheap pre-check: a body that does not even contain
// "<namespace>_" cannot call a private method (short of JSON escapes, which
// the server without private namespaces answers "method not found").
func (g *privateGuard) mentionsPrivate(body []byte) bool {
	for _, ns := range g.namespaces {
		if bytes.Contains(body, []byte(ns+"_")) {
			return true
		}
	}
	return false
}

// deny answers body if it calls a private method, and reports whether it
// did. A batch with any private call is refused whole, so that nothing of
// it runs: every call in it gets an error.
func (g *privateGuard) deny(w http.ResponseWriter, body []byte) bool {
	if !g.mentionsPrivate(body) {
		return false
	}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 {
		return false
	}
	if trimmed[0] != '[' {
		var c call
		if json.Unmarshal(body, &c) != nil || !g.isPrivate(c.Method) {
			return false
		}
		g.write(w, []call{c}, false)
		return true
	}
	var elems []json.RawMessage
	if json.Unmarshal(body, &elems) != nil {
		return false
	}
	calls := make([]call, len(elems))
	private := false
	for i, e := range elems {
		if t := bytes.TrimLeft(e, " \t\r\n"); len(t) == 0 || t[0] != '{' {
			calls[i] = call{ID: json.RawMessage("null"), invalid: true}
			continue
		}
		_ = json.Unmarshal(e, &calls[i]) // an element that does not decode is not a private call
		private = private || g.isPrivate(calls[i].Method)
	}
	if !private {
		return false
	}
	g.write(w, calls, true)
	return true
}

// write answers calls with errors. Notifications (no id) get no answer, as
// JSON-RPC wants; they are not run either.
func (g *privateGuard) write(w http.ResponseWriter, calls []call, batch bool) {
	var out [][]byte
	for _, c := range calls {
		if len(c.ID) == 0 {
			continue
		}
		obj := errorObject{Code: authErrorCode, Message: "not executed: this batch also calls private methods, which need authentication"}
		switch {
		case c.invalid:
			obj = errorObject{Code: -32600, Message: "invalid request"}
		case g.isPrivate(c.Method):
			obj.Message = g.message(c.Method)
		}
		enc, _ := json.Marshal(errorResponse{Version: "2.0", ID: c.ID, Error: obj})
		out = append(out, enc)
	}
	var body []byte
	switch {
	case len(out) == 0:
		// Only notifications: nothing to say.
	case batch:
		body = append(append([]byte("["), bytes.Join(out, []byte(","))...), ']')
	default:
		body = out[0]
	}
	writeJSON(w, body)
}

// message tells the client which header it lacks and what makes one, and
// nothing about the server: an unauthenticated caller must not learn where
// the node keeps its secret.
func (g *privateGuard) message(method string) string {
	ns, _, _ := strings.Cut(method, "_")
	return fmt.Sprintf("authentication required: %s is in the private %q namespace; send the header "+
		"'Authorization: Bearer <JWT>' ('emberd auth token' makes one)", method, ns)
}
