// Package rest is the Cosmos SDK's REST gateway for the services of
// package cosmosapi: the paths and JSON shapes the SDK's grpc-gateway
// serves (/cosmos/bank/v1beta1/balances/{address}, POST
// /cosmos/tx/v1beta1/txs, …), so Keplr, Leap, cosmjs's REST users and
// scripts work unchanged. Each route names a service method; path and query
// parameters fill its request (a POST body is its request in protobuf
// JSON), and the answer is written as the gateway writes it (see marshal).
// Every address parameter takes either spelling (bech32 with the chain's
// prefix, or 0x hex).
package rest

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"time"

	"github.com/rs/cors"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/cosmosapi"
	"github.com/emberchain/ember/httpserve"
)

// heightResponse is the header that reports the height read, as the
// gateway forwards the gRPC header.
const heightResponse = "Grpc-Metadata-X-Cosmos-Block-Height"

// maxBody bounds a POST body (a tx of at most 128 KiB, base64 in JSON).
const maxBody = 1 << 20

// route is a gateway path: the method it calls and its path parameters.
type route struct {
	pattern string // net/http pattern
	method  string // gRPC method path
	params  []string
}

var routes = []route{
	{"GET /cosmos/auth/v1beta1/accounts", "/cosmos.auth.v1beta1.Query/Accounts", nil},
	{"GET /cosmos/auth/v1beta1/accounts/{address}", "/cosmos.auth.v1beta1.Query/Account", []string{"address"}},
	{"GET /cosmos/auth/v1beta1/account_info/{address}", "/cosmos.auth.v1beta1.Query/AccountInfo", []string{"address"}},
	{"GET /cosmos/auth/v1beta1/bech32", "/cosmos.auth.v1beta1.Query/Bech32Prefix", nil},
	{"GET /cosmos/auth/v1beta1/params", "/cosmos.auth.v1beta1.Query/Params", nil},
	{"GET /cosmos/bank/v1beta1/balances/{address}", "/cosmos.bank.v1beta1.Query/AllBalances", []string{"address"}},
	{"GET /cosmos/bank/v1beta1/balances/{address}/by_denom", "/cosmos.bank.v1beta1.Query/Balance", []string{"address"}},
	{"GET /cosmos/bank/v1beta1/spendable_balances/{address}", "/cosmos.bank.v1beta1.Query/SpendableBalances", []string{"address"}},
	{"GET /cosmos/bank/v1beta1/spendable_balances/{address}/by_denom", "/cosmos.bank.v1beta1.Query/SpendableBalanceByDenom", []string{"address"}},
	{"GET /cosmos/bank/v1beta1/supply", "/cosmos.bank.v1beta1.Query/TotalSupply", nil},
	{"GET /cosmos/bank/v1beta1/supply/by_denom", "/cosmos.bank.v1beta1.Query/SupplyOf", nil},
	{"GET /cosmos/bank/v1beta1/denoms_metadata", "/cosmos.bank.v1beta1.Query/DenomsMetadata", nil},
	{"GET /cosmos/bank/v1beta1/denoms_metadata/{denom}", "/cosmos.bank.v1beta1.Query/DenomMetadata", []string{"denom"}},
	{"GET /cosmos/staking/v1beta1/validators", "/cosmos.staking.v1beta1.Query/Validators", nil},
	{"GET /cosmos/staking/v1beta1/validators/{validator_addr}", "/cosmos.staking.v1beta1.Query/Validator", []string{"validator_addr"}},
	{"GET /cosmos/staking/v1beta1/validators/{validator_addr}/delegations", "/cosmos.staking.v1beta1.Query/ValidatorDelegations", []string{"validator_addr"}},
	{"GET /cosmos/staking/v1beta1/validators/{validator_addr}/unbonding_delegations", "/cosmos.staking.v1beta1.Query/ValidatorUnbondingDelegations", []string{"validator_addr"}},
	{"GET /cosmos/staking/v1beta1/validators/{validator_addr}/delegations/{delegator_addr}", "/cosmos.staking.v1beta1.Query/Delegation", []string{"validator_addr", "delegator_addr"}},
	{"GET /cosmos/staking/v1beta1/validators/{validator_addr}/delegations/{delegator_addr}/unbonding_delegation", "/cosmos.staking.v1beta1.Query/UnbondingDelegation", []string{"validator_addr", "delegator_addr"}},
	{"GET /cosmos/staking/v1beta1/delegations/{delegator_addr}", "/cosmos.staking.v1beta1.Query/DelegatorDelegations", []string{"delegator_addr"}},
	{"GET /cosmos/staking/v1beta1/delegators/{delegator_addr}/unbonding_delegations", "/cosmos.staking.v1beta1.Query/DelegatorUnbondingDelegations", []string{"delegator_addr"}},
	{"GET /cosmos/staking/v1beta1/delegators/{delegator_addr}/redelegations", "/cosmos.staking.v1beta1.Query/Redelegations", []string{"delegator_addr"}},
	{"GET /cosmos/staking/v1beta1/delegators/{delegator_addr}/validators", "/cosmos.staking.v1beta1.Query/DelegatorValidators", []string{"delegator_addr"}},
	{"GET /cosmos/staking/v1beta1/delegators/{delegator_addr}/validators/{validator_addr}", "/cosmos.staking.v1beta1.Query/DelegatorValidator", []string{"delegator_addr", "validator_addr"}},
	{"GET /cosmos/staking/v1beta1/historical_info/{height}", "/cosmos.staking.v1beta1.Query/HistoricalInfo", []string{"height"}},
	{"GET /cosmos/staking/v1beta1/params", "/cosmos.staking.v1beta1.Query/Params", nil},
	{"GET /cosmos/staking/v1beta1/pool", "/cosmos.staking.v1beta1.Query/Pool", nil},
	{"GET /cosmos/slashing/v1beta1/params", "/cosmos.slashing.v1beta1.Query/Params", nil},
	{"GET /cosmos/slashing/v1beta1/signing_infos", "/cosmos.slashing.v1beta1.Query/SigningInfos", nil},
	{"GET /cosmos/slashing/v1beta1/signing_infos/{cons_address}", "/cosmos.slashing.v1beta1.Query/SigningInfo", []string{"cons_address"}},

	{"GET /cosmos/upgrade/v1beta1/current_plan", "/cosmos.upgrade.v1beta1.Query/CurrentPlan", nil},
	{"GET /cosmos/upgrade/v1beta1/applied_plan/{name}", "/cosmos.upgrade.v1beta1.Query/AppliedPlan", []string{"name"}},
	{"GET /cosmos/upgrade/v1beta1/module_versions", "/cosmos.upgrade.v1beta1.Query/ModuleVersions", nil},
	{"GET /cosmos/upgrade/v1beta1/authority", "/cosmos.upgrade.v1beta1.Query/Authority", nil},

	{"GET /cosmos/distribution/v1beta1/params", "/cosmos.distribution.v1beta1.Query/Params", nil},
	{"GET /cosmos/distribution/v1beta1/validators/{validator_address}", "/cosmos.distribution.v1beta1.Query/ValidatorDistributionInfo", []string{"validator_address"}},
	{"GET /cosmos/distribution/v1beta1/validators/{validator_address}/outstanding_rewards", "/cosmos.distribution.v1beta1.Query/ValidatorOutstandingRewards", []string{"validator_address"}},
	{"GET /cosmos/distribution/v1beta1/validators/{validator_address}/commission", "/cosmos.distribution.v1beta1.Query/ValidatorCommission", []string{"validator_address"}},
	{"GET /cosmos/distribution/v1beta1/validators/{validator_address}/slashes", "/cosmos.distribution.v1beta1.Query/ValidatorSlashes", []string{"validator_address"}},
	{"GET /cosmos/distribution/v1beta1/delegators/{delegator_address}/rewards/{validator_address}", "/cosmos.distribution.v1beta1.Query/DelegationRewards", []string{"delegator_address", "validator_address"}},
	{"GET /cosmos/distribution/v1beta1/delegators/{delegator_address}/rewards", "/cosmos.distribution.v1beta1.Query/DelegationTotalRewards", []string{"delegator_address"}},
	{"GET /cosmos/distribution/v1beta1/delegators/{delegator_address}/validators", "/cosmos.distribution.v1beta1.Query/DelegatorValidators", []string{"delegator_address"}},
	{"GET /cosmos/distribution/v1beta1/delegators/{delegator_address}/withdraw_address", "/cosmos.distribution.v1beta1.Query/DelegatorWithdrawAddress", []string{"delegator_address"}},
	{"GET /cosmos/distribution/v1beta1/community_pool", "/cosmos.distribution.v1beta1.Query/CommunityPool", nil},
	{"GET /cosmos/mint/v1beta1/params", "/cosmos.mint.v1beta1.Query/Params", nil},
	{"GET /cosmos/mint/v1beta1/inflation", "/cosmos.mint.v1beta1.Query/Inflation", nil},
	{"GET /cosmos/mint/v1beta1/annual_provisions", "/cosmos.mint.v1beta1.Query/AnnualProvisions", nil},
	{"GET /cosmos/gov/v1/constitution", "/cosmos.gov.v1.Query/Constitution", nil},
	{"GET /cosmos/gov/v1/params/{params_type}", "/cosmos.gov.v1.Query/Params", []string{"params_type"}},
	{"GET /cosmos/gov/v1/proposals", "/cosmos.gov.v1.Query/Proposals", nil},
	{"GET /cosmos/gov/v1/proposals/{proposal_id}", "/cosmos.gov.v1.Query/Proposal", []string{"proposal_id"}},
	{"GET /cosmos/gov/v1/proposals/{proposal_id}/deposits", "/cosmos.gov.v1.Query/Deposits", []string{"proposal_id"}},
	{"GET /cosmos/gov/v1/proposals/{proposal_id}/deposits/{depositor}", "/cosmos.gov.v1.Query/Deposit", []string{"proposal_id", "depositor"}},
	{"GET /cosmos/gov/v1/proposals/{proposal_id}/tally", "/cosmos.gov.v1.Query/TallyResult", []string{"proposal_id"}},
	{"GET /cosmos/gov/v1/proposals/{proposal_id}/votes", "/cosmos.gov.v1.Query/Votes", []string{"proposal_id"}},
	{"GET /cosmos/gov/v1/proposals/{proposal_id}/votes/{voter}", "/cosmos.gov.v1.Query/Vote", []string{"proposal_id", "voter"}},
	{"GET /cosmos/gov/v1beta1/params/{params_type}", "/cosmos.gov.v1beta1.Query/Params", []string{"params_type"}},
	{"GET /cosmos/gov/v1beta1/proposals", "/cosmos.gov.v1beta1.Query/Proposals", nil},
	{"GET /cosmos/gov/v1beta1/proposals/{proposal_id}", "/cosmos.gov.v1beta1.Query/Proposal", []string{"proposal_id"}},
	{"GET /cosmos/gov/v1beta1/proposals/{proposal_id}/deposits", "/cosmos.gov.v1beta1.Query/Deposits", []string{"proposal_id"}},
	{"GET /cosmos/gov/v1beta1/proposals/{proposal_id}/deposits/{depositor}", "/cosmos.gov.v1beta1.Query/Deposit", []string{"proposal_id", "depositor"}},
	{"GET /cosmos/gov/v1beta1/proposals/{proposal_id}/tally", "/cosmos.gov.v1beta1.Query/TallyResult", []string{"proposal_id"}},
	{"GET /cosmos/gov/v1beta1/proposals/{proposal_id}/votes", "/cosmos.gov.v1beta1.Query/Votes", []string{"proposal_id"}},
	{"GET /cosmos/gov/v1beta1/proposals/{proposal_id}/votes/{voter}", "/cosmos.gov.v1beta1.Query/Vote", []string{"proposal_id", "voter"}},
	{"POST /cosmos/tx/v1beta1/simulate", "/cosmos.tx.v1beta1.Service/Simulate", nil},
	{"POST /cosmos/tx/v1beta1/txs", "/cosmos.tx.v1beta1.Service/BroadcastTx", nil},
	{"GET /cosmos/tx/v1beta1/txs", "/cosmos.tx.v1beta1.Service/GetTxsEvent", nil},
	{"GET /cosmos/tx/v1beta1/txs/{hash}", "/cosmos.tx.v1beta1.Service/GetTx", []string{"hash"}},
	{"GET /cosmos/base/tendermint/v1beta1/node_info", "/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo", nil},
	{"GET /cosmos/base/tendermint/v1beta1/syncing", "/cosmos.base.tendermint.v1beta1.Service/GetSyncing", nil},
	{"GET /cosmos/base/tendermint/v1beta1/blocks/latest", "/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock", nil},
	{"GET /cosmos/base/tendermint/v1beta1/blocks/{height}", "/cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight", []string{"height"}},
}

// Handler returns the REST routes over the services in r.
func Handler(r *cosmosapi.Router) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range routes {
		mux.Handle(rt.pattern, &endpoint{r: r, route: rt})
	}
	return cors.New(cors.Options{AllowedOrigins: []string{"*"}, AllowedMethods: []string{http.MethodGet, http.MethodPost}, AllowedHeaders: []string{"*"}}).Handler(gatewayErrors{mux})
}

// gatewayErrors writes the mux's own refusals (no such path: 404; path
// served for another method: 405) in the gateway's error shape.
type gatewayErrors struct{ mux *http.ServeMux }

func (g gatewayErrors) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h, pattern := g.mux.Handler(req)
	if pattern != "" {
		g.mux.ServeHTTP(w, req) // sets the path values
		return
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", rec.Header().Get("Allow"))
		writeError(w, status.Error(codes.Unimplemented, "Method Not Allowed"), http.StatusMethodNotAllowed)
		return
	}
	writeError(w, status.Error(codes.NotFound, "Not Found"), http.StatusNotFound)
}

type endpoint struct {
	r     *cosmosapi.Router
	route route
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	h, err := cosmosapi.ParseHeight(req.Header.Get(cosmosapi.HeightKey))
	if err != nil {
		writeError(w, err, 0)
		return
	}
	var body []byte
	if req.Method == http.MethodPost {
		if body, err = io.ReadAll(http.MaxBytesReader(w, req.Body, maxBody)); err != nil {
			writeError(w, status.Errorf(codes.InvalidArgument, "request body: %v", err), 0)
			return
		}
	}
	res, err := e.r.Call(cosmosapi.WithHeight(req.Context(), h), e.route.method, func(m proto.Message) error {
		return e.fill(m, req, body)
	})
	if err != nil {
		writeError(w, err, 0)
		return
	}
	out, err := marshal(res)
	if err != nil {
		writeError(w, status.Error(codes.Internal, err.Error()), 0)
		return
	}
	if h.Opened {
		w.Header().Set(heightResponse, strconv.FormatInt(h.Read, 10))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// fill builds the request: the POST body in protobuf JSON, then the path
// and query parameters.
func (e *endpoint) fill(m proto.Message, req *http.Request, body []byte) error {
	if len(body) > 0 {
		if err := protojson.Unmarshal(body, m); err != nil {
			return err
		}
	}
	for _, p := range e.route.params {
		if err := populate(m.ProtoReflect(), p, []string{req.PathValue(p)}); err != nil {
			return err
		}
	}
	for k, vs := range req.URL.Query() {
		if err := populate(m.ProtoReflect(), k, vs); err != nil {
			return err
		}
	}
	return nil
}

// errorBody is the gateway's error shape.
type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// httpStatus is grpc-gateway's HTTPStatusFromCode.
func httpStatus(c codes.Code) int {
	switch c {
	case codes.OK:
		return http.StatusOK
	case codes.Canceled:
		return 499
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return http.StatusBadRequest
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case codes.NotFound:
		return http.StatusNotFound
	case codes.AlreadyExists, codes.Aborted:
		return http.StatusConflict
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.Unimplemented:
		return http.StatusNotImplemented
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// writeError writes a gRPC status error as the gateway does; httpCode 0
// takes the status's HTTP code.
func writeError(w http.ResponseWriter, err error, httpCode int) {
	st := status.Convert(err)
	if httpCode == 0 {
		httpCode = httpStatus(st.Code())
	}
	body, _ := json.Marshal(errorBody{Code: int(st.Code()), Message: st.Message(), Details: []any{}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpCode)
	w.Write(body)
}

// Start listens on addr and serves in the background.
func Start(addr string, r *cosmosapi.Router, log *slog.Logger) (*httpserve.Server, error) {
	return httpserve.Start("REST", addr, &http.Server{
		Handler:           Handler(r),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 16,
	}, time.Second, log)
}
