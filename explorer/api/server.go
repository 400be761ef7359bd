// Package api serves the explorer database over HTTP in the shapes of
// Blockscout's API v2 (/api/v2/...), so Blockscout's front end and the tools
// written against it work unchanged.
package api

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/rs/cors"

	"github.com/emberchain/ember/explorer"
)

// Status reports the indexer's progress: the last indexed block and the
// chain's head, each with whether it exists yet.
type Status func() (indexed uint64, indexedOK bool, head uint64, headOK bool)

// Backend is what the handlers read.
type Backend struct {
	Store   explorer.Store
	Status  Status
	Prefix  string                      // bech32 prefix the search box accepts (ember1…)
	Pending func() []explorer.PendingTx // nil when no pool is visible
	Now     func() time.Time            // clock for "today"; nil = time.Now
	// JSONRPCURL is the chain's JSON-RPC endpoint that /config/json-rpc-url
	// tells wallets; "" answers null.
	JSONRPCURL string
	// Info is the Cosmos side's facts /config/chain tells wallets.
	Info ChainInfo
	// RefetchMetadata wakes the NFT metadata fetcher after an instance was
	// queued again; nil when none runs.
	RefetchMetadata func()
	// Tracer re-executes transactions for raw traces and state changes;
	// nil when the source cannot (those endpoints then answer empty).
	Tracer explorer.Tracer
	// Chain reads code and storage and runs calls at the head, for
	// verification, proxies and token facts; nil when the source cannot.
	Chain explorer.ChainReader
	// Solc is the solc binary ([explorer] solc) verification compiles with
	// for partial matches; "" = metadata matches only.
	Solc string
}

// PageSize is Blockscout's page length.
const PageSize = 50

// Handler routes every endpoint, with CORS open to any origin (the API is
// public and read-only).
func Handler(b *Backend, log *slog.Logger) http.Handler {
	if b.Now == nil {
		b.Now = time.Now
	}
	h := &handlers{b: b, log: log}
	mux := http.NewServeMux()
	routes := map[string]func(*request) (any, error){
		"/api/v2/blocks":                                h.blocks,
		"/api/v2/blocks/{id}":                           h.block,
		"/api/v2/blocks/{id}/transactions":              h.blockTxs,
		"/api/v2/transactions":                          h.txs,
		"/api/v2/transactions/{hash}":                   h.tx,
		"/api/v2/transactions/{hash}/logs":              h.txLogs,
		"/api/v2/addresses/{hash}":                      h.address,
		"/api/v2/addresses/{hash}/transactions":         h.addressTxs,
		"/api/v2/addresses/{hash}/transactions/csv":     h.addressTxsCSV,
		"/api/v2/addresses/{hash}/token-transfers/csv":  h.addressTransfersCSV,
		"/api/v2/addresses/{hash}/counters":             h.addressCounters,
		"/api/v2/addresses/{hash}/coin-balance-history": h.coinBalanceHistory,
		"/api/v2/main-page/blocks":                      h.mainPageBlocks,
		"/api/v2/main-page/transactions":                h.mainPageTxs,
		"/api/v2/main-page/indexing-status":             h.indexingStatus,
		"/api/v2/stats":                                 h.stats,
		"/api/v2/search":                                h.search,
		"/api/v2/search/check-redirect":                 h.checkRedirect,
		"/api/health":                                   h.health,

		"/api/v2/withdrawals":                                  h.withdrawals,
		"/api/v2/blocks/{id}/withdrawals":                      h.blockWithdrawals,
		"/api/v2/addresses":                                    h.topAddresses,
		"/api/v2/addresses/{hash}/withdrawals":                 h.addressWithdrawals,
		"/api/v2/addresses/{hash}/logs":                        h.addressLogs,
		"/api/v2/addresses/{hash}/blocks-validated":            h.blocksValidated,
		"/api/v2/addresses/{hash}/coin-balance-history-by-day": h.coinBalanceByDay,
		"/api/v2/stats/charts/transactions":                    h.txChart,
		"/api/v2/stats/charts/market":                          h.marketChart,
		"/api/v2/config/json-rpc-url":                          h.jsonRPCURL,
		"/api/v2/config/chain":                                 h.chainConfig,
		"/health":                                              h.health,
		"/api/v1/{layer}/blob":                                 h.dataAvailability,
		"/api/v1/{layer}/l2BatchMetadata":                      h.dataAvailability,
		"/proxy/account-abstraction/status":                    h.accountAbstraction,

		"/api/v2/internal-transactions":                     h.internalTxs,
		"/api/v2/transactions/{hash}/internal-transactions": h.txInternalTxs,
		"/api/v2/blocks/{id}/internal-transactions":         h.blockInternalTxs,
		"/api/v2/transactions/{hash}/raw-trace":             h.rawTrace,
		"/api/v2/transactions/{hash}/state-changes":         h.stateChanges,
		"/api/v2/addresses/{hash}/internal-transactions":    h.addressInternalTxs,
		"/api/v2/addresses/{hash}/tabs-counters":            h.addressTabsCounters,
	}
	for path, fn := range routes {
		mux.Handle("GET "+path, h.serve(fn))
	}
	h.tokenRoutes(mux) // tokens.go
	h.contractRoutes(mux)
	h.emberRoutes(mux)   // ember.go: validators, revert reasons
	h.govRoutes(mux)     // gov.go: proposals
	h.stakingRoutes(mux) // staking.go: an account's delegations, unbondings, rewards
	h.nativeRoutes(mux)  // native.go: native transactions
	h.serviceRoutes(mux) // services.go: the JSON-RPC proxy
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, message("Not found"))
	})
	return cors.New(cors.Options{
		AllowedOrigins: []string{"*"},
		AllowedMethods: []string{http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPatch, http.MethodPost},
		AllowedHeaders: []string{"*"},
	}).Handler(mux)
}
