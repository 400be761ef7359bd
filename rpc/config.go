// Package rpc serves the Ethereum JSON-RPC over HTTP and WebSocket with
// go-ethereum's rpc server. The namespaces themselves live in sub-packages
// (rpc/eth, rpc/netapi, rpc/web3, rpc/personal, ...); this package owns
// transport, limits, which namespaces are enabled and the authentication of
// the private ones (auth.go).
package rpc

import (
	"fmt"
	"strings"
	"time"
)

// Config is the [json-rpc] section of app.toml.
type Config struct {
	Enable    bool    `toml:"enable"`     // serve JSON-RPC at all
	Address   string  `toml:"address"`    // HTTP listen address (WebSocket upgrades are accepted here too)
	WSAddress string  `toml:"ws-address"` // dedicated WebSocket listen address; empty = none
	API       APIList `toml:"api"`        // enabled namespaces

	GasCap     uint64   `toml:"gas-cap"`     // gas limit cap for eth_call / eth_estimateGas; 0 = none
	EVMTimeout Duration `toml:"evm-timeout"` // time limit of one eth_call; 0 = none
	TxFeeCap   float64  `toml:"txfee-cap"`   // max fee (ether) of a tx sent through RPC; 0 = none

	AllowUnprotectedTxs bool `toml:"allow-unprotected-txs"` // accept legacy txs without EIP-155 replay protection

	// DevClientVersion: on a dev chain, web3_clientVersion starts with
	// web3.DevPrefix, so that tools gating dev-only features on the client
	// version (hardhat-network-helpers) serve the chain. No effect elsewhere.
	DevClientVersion bool `toml:"dev-client-version"`
	// DevAnswerMined: on `emberd dev`, eth_sendRawTransaction and
	// eth_sendTransaction answer once the transaction is mined (automine),
	// as on Hardhat Network and anvil; false: at admission, as elsewhere.
	DevAnswerMined bool `toml:"dev-answer-mined"`

	HTTPTimeout        Duration `toml:"http-timeout"`         // read/write timeout of one HTTP request
	HTTPIdleTimeout    Duration `toml:"http-idle-timeout"`    // keep-alive idle timeout
	MaxOpenConnections int      `toml:"max-open-connections"` // concurrent connections per listener; 0 = unlimited

	MaxBodySize          int `toml:"max-body-size"`           // bytes of one HTTP request body
	BatchRequestLimit    int `toml:"batch-request-limit"`     // requests in one batch
	BatchResponseMaxSize int `toml:"batch-response-max-size"` // bytes of one batch response

	CORSOrigins []string `toml:"cors-origins"` // allowed HTTP CORS origins
	WSOrigins   []string `toml:"ws-origins"`   // allowed WebSocket origins
	// VHosts are the host names a request's Host header may name, on the
	// HTTP and the WebSocket port (hosts.go); IP addresses always pass and
	// "*" lets every name through.
	VHosts []string `toml:"vhosts"`

	BlockRangeCap     uint64   `toml:"block-range-cap"`    // blocks one eth_getLogs may span; 0 = none
	LogsCap           int      `toml:"logs-cap"`           // logs one eth_getLogs may return; 0 = none
	FilterCap         int      `toml:"filter-cap"`         // polling filters that may exist at once
	FilterTimeout     Duration `toml:"filter-timeout"`     // a filter not polled this long is removed
	SubscriptionCap   int      `toml:"subscription-cap"`   // eth_subscribe subscriptions per WebSocket connection
	NotificationQueue int      `toml:"notification-queue"` // undelivered notifications per subscription before its connection is closed

	TraceMaxTimeout  Duration `toml:"trace-max-timeout"` // cap on a debug_trace* request's "timeout" (default 5s); 0 = none
	TraceConcurrency int      `toml:"trace-concurrency"` // debug_trace* requests running at once; others wait
}

// DefaultConfig is what `emberd init` writes. Addresses follow the spec:
// HTTP on 127.0.0.1:8545, WebSocket on 0.0.0.0:8546.
func DefaultConfig() Config {
	return Config{
		Enable:               true,
		Address:              "127.0.0.1:8545",
		WSAddress:            "0.0.0.0:8546",
		API:                  APIList{"eth", "net", "web3"},
		GasCap:               50_000_000,
		EVMTimeout:           Duration(5 * time.Second),
		TxFeeCap:             1,
		DevClientVersion:     true,
		DevAnswerMined:       true,
		HTTPTimeout:          Duration(30 * time.Second),
		HTTPIdleTimeout:      Duration(120 * time.Second),
		MaxBodySize:          5 * 1024 * 1024,
		BatchRequestLimit:    1000,
		BatchResponseMaxSize: 25 * 1024 * 1024,
		CORSOrigins:          []string{"*"},
		WSOrigins:            []string{"*"},
		VHosts:               []string{"localhost"},
		BlockRangeCap:        10_000,
		LogsCap:              10_000,
		FilterCap:            200,
		FilterTimeout:        Duration(5 * time.Minute),
		SubscriptionCap:      100,
		NotificationQueue:    10_000,
		TraceMaxTimeout:      Duration(time.Minute),
		TraceConcurrency:     2,
	}
}

// Duration is a time.Duration written as a string ("5s") in TOML.
type Duration time.Duration

// UnmarshalText parses "5s", "1m30s", ...
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// MarshalText writes the duration as Go formats it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Std is the time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// APIList is the list of enabled namespaces. In TOML it is written as a
// comma-separated string ("eth,net,web3", as Evmos writes it) and read from
// either that or an array of strings.
type APIList []string

// UnmarshalTOML accepts "eth,net" or ["eth", "net"].
func (l *APIList) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*l = ParseAPIList(v)
	case []any:
		out := make(APIList, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("api: %v is not a namespace name", e)
			}
			out = append(out, s)
		}
		*l = out
	default:
		return fmt.Errorf("api: want a comma-separated string or an array of strings, got %T", v)
	}
	return nil
}

// MarshalText writes the comma-separated form.
func (l APIList) MarshalText() ([]byte, error) { return []byte(strings.Join(l, ",")), nil }

// ParseAPIList splits "eth, net,web3" into names, dropping empty ones.
func ParseAPIList(s string) APIList {
	var out APIList
	for _, ns := range strings.Split(s, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}
