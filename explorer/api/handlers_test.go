package api

import (
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/explorer"
)

// update rewrites the golden answers from what the handlers answer now:
// go test ./explorer/api -run TestHandlersGolden -update (then review the
// diff: the answers are Blockscout's shapes, byte for byte).
var update = flag.Bool("update", false, "rewrite testdata/golden from the current answers")

// fakeHandler serves the fake chain with a fixed clock, its index caught up
// with the head.
func fakeHandler(t *testing.T) http.Handler {
	t.Helper()
	st := newFakeStore()
	head := st.blocks[len(st.blocks)-1].Number
	return Handler(&Backend{
		Store:      st,
		Status:     func() (uint64, bool, uint64, bool) { return head, true, head, true },
		Prefix:     "ember",
		JSONRPCURL: "http://127.0.0.1:8545",
		Pending:    func() []explorer.PendingTx { return fakePending },
		Tracer:     fakeTracer{},
		Now:        func() time.Time { return time.Unix(int64(fakeTimeBase)+200, 0) },
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// fakeOperator is the miner's validator operator address, embervaloper1….
func fakeOperator() string {
	s, err := accounts.NewPrefixes("ember").Encode(accounts.KindValidator, fakeMiner[:])
	if err != nil {
		panic(err)
	}
	return s
}

// fakeAccountPub is an emberpub1… key: a bech32 of the chain that names no
// account, found as nothing.
func fakeAccountPub() string {
	s, err := accounts.NewPrefixes("ember").Encode(accounts.KindAccountPub, make([]byte, 33))
	if err != nil {
		panic(err)
	}
	return s
}

// fakePending is the pool: a transfer to Bob and a call of the token.
var fakePending = []explorer.PendingTx{
	{From: fakeAlice, Tx: types.NewTx(&types.DynamicFeeTx{Nonce: 59, GasTipCap: gweiOf(2), GasFeeCap: gweiOf(30), Gas: 21000,
		To: &fakeBob, Value: big.NewInt(9)})},
	{From: fakeBob, Tx: types.NewTx(&types.LegacyTx{Nonce: 0, GasPrice: gweiOf(9), Gas: 60000, To: &fakeToken,
		Value: new(big.Int), Data: common.FromHex("0xa9059cbb0000000000000000000000001111111111111111111111111111111111111111" +
			"0000000000000000000000000000000000000000000000000000000000000001")})},
}

func get(t *testing.T, h http.Handler, path string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.Bytes()
}

// goldenPaths are the requests whose exact answers are kept in
// testdata/golden: every list and object shape the handlers build over the
// store, first and later pages, and the error answers.
var goldenPaths = map[string]string{
	"blocks":                    "/api/v2/blocks",
	"blocks_page2":              "/api/v2/blocks?block_number=10&items_count=50",
	"block_by_number":           "/api/v2/blocks/7",
	"block_by_hash":             "/api/v2/blocks/" + hashOf("block", 4).Hex(),
	"block_txs":                 "/api/v2/blocks/4/transactions",
	"block_internal":            "/api/v2/blocks/7/internal-transactions",
	"block_withdrawals":         "/api/v2/blocks/7/withdrawals",
	"txs":                       "/api/v2/transactions",
	"txs_page2":                 "/api/v2/transactions?block_number=9&index=0&items_count=50",
	"tx_transfer":               "/api/v2/transactions/" + hashOf("tx", 4).Hex(),
	"tx_creation":               "/api/v2/transactions/" + hashOf("tx", 3).Hex(),
	"tx_failed":                 "/api/v2/transactions/" + hashOf("tx", 5).Hex(),
	"tx_1559":                   "/api/v2/transactions/" + hashOf("tx", 6).Hex(),
	"tx_internal_errors":        "/api/v2/transactions/" + hashOf("tx", 7).Hex(),
	"tx_logs":                   "/api/v2/transactions/" + hashOf("tx", 4).Hex() + "/logs",
	"tx_internal":               "/api/v2/transactions/" + hashOf("tx", 7).Hex() + "/internal-transactions",
	"tx_token_transfers":        "/api/v2/transactions/" + hashOf("tx", 4).Hex() + "/token-transfers",
	"address_eoa":               "/api/v2/addresses/" + fakeAlice.Hex(),
	"address_bob":               "/api/v2/addresses/" + fakeBob.Hex(),
	"address_contract":          "/api/v2/addresses/" + fakeToken.Hex(),
	"address_txs":               "/api/v2/addresses/" + fakeAlice.Hex() + "/transactions",
	"address_txs_to":            "/api/v2/addresses/" + fakeBob.Hex() + "/transactions?filter=to&block_number=20&index=0&items_count=50",
	"address_counters":          "/api/v2/addresses/" + fakeAlice.Hex() + "/counters",
	"address_tabs_counters":     "/api/v2/addresses/" + fakeBob.Hex() + "/tabs-counters",
	"address_balance_history":   "/api/v2/addresses/" + fakeAlice.Hex() + "/coin-balance-history",
	"address_balance_by_day":    "/api/v2/addresses/" + fakeAlice.Hex() + "/coin-balance-history-by-day",
	"address_logs":              "/api/v2/addresses/" + fakeToken.Hex() + "/logs",
	"address_blocks_validated":  "/api/v2/addresses/" + fakeMiner.Hex() + "/blocks-validated",
	"address_internal":          "/api/v2/addresses/" + fakeBob.Hex() + "/internal-transactions",
	"address_token_transfers":   "/api/v2/addresses/" + fakeBob.Hex() + "/token-transfers",
	"address_bech32":            "/api/v2/addresses/" + accounts.Bech32("ember", fakeAlice),
	"top_addresses":             "/api/v2/addresses",
	"internal_txs":              "/api/v2/internal-transactions",
	"main_page_blocks":          "/api/v2/main-page/blocks",
	"main_page_txs":             "/api/v2/main-page/transactions",
	"indexing_status":           "/api/v2/main-page/indexing-status",
	"stats":                     "/api/v2/stats",
	"tx_chart":                  "/api/v2/stats/charts/transactions",
	"search_block":              "/api/v2/search?q=7",
	"search_tx":                 "/api/v2/search?q=" + hashOf("tx", 4).Hex(),
	"search_address":            "/api/v2/search?q=" + fakeToken.Hex(),
	"search_token":              "/api/v2/search?q=fake",
	"search_native_tx":          "/api/v2/search?q=" + hashOf("native", 8).Hex()[2:],
	"check_redirect":            "/api/v2/search/check-redirect?q=" + hashOf("block", 2).Hex(),
	"check_redirect_none":       "/api/v2/search/check-redirect?q=nothing",
	"search_contract":           "/api/v2/search?q=faketok",
	"search_operator":           "/api/v2/search?q=" + fakeOperator(),
	"check_redirect_operator":   "/api/v2/search/check-redirect?q=" + fakeOperator(),
	"search_account_pub":        "/api/v2/search?q=" + fakeAccountPub(),
	"health":                    "/api/health",
	"token":                     "/api/v2/tokens/" + fakeToken.Hex(),
	"token_transfers":           "/api/v2/tokens/" + fakeToken.Hex() + "/transfers",
	"withdrawals":               "/api/v2/withdrawals",
	"market_chart":              "/api/v2/stats/charts/market",
	"json_rpc_url":              "/api/v2/config/json-rpc-url",
	"account_abstraction":       "/proxy/account-abstraction/status",
	"data_availability":         "/api/v1/celestia/blob",
	"health_service":            "/health?service=indexer",
	"health_unknown_service":    "/health?service=nothing",
	"token_counters":            "/api/v2/tokens/" + fakeToken.Hex() + "/counters",
	"token_holders":             "/api/v2/tokens/" + fakeToken.Hex() + "/holders",
	"address_token_balances":    "/api/v2/addresses/" + fakeBob.Hex() + "/token-balances",
	"address_tokens":            "/api/v2/addresses/" + fakeBob.Hex() + "/tokens",
	"tokens":                    "/api/v2/tokens",
	"smart_contracts":           "/api/v2/smart-contracts",
	"smart_contract_counters":   "/api/v2/smart-contracts/counters",
	"smart_contract":            "/api/v2/smart-contracts/" + fakeToken.Hex(),
	"smart_contract_eoa":        "/api/v2/smart-contracts/" + fakeAlice.Hex(),
	"methods_write":             "/api/v2/smart-contracts/" + fakeToken.Hex() + "/methods-write",
	"raw_trace":                 "/api/v2/transactions/" + hashOf("tx", 7).Hex() + "/raw-trace",
	"raw_trace_untraceable":     "/api/v2/transactions/" + hashOf("tx", 6).Hex() + "/raw-trace",
	"state_changes":             "/api/v2/transactions/" + hashOf("tx", 4).Hex() + "/state-changes",
	"state_changes_untraceable": "/api/v2/transactions/" + hashOf("tx", 7).Hex() + "/state-changes",
	"txs_pending":               "/api/v2/transactions?filter=pending",
	"tx_summary":                "/api/v2/transactions/" + hashOf("tx", 4).Hex() + "/summary",
	"tx_native":                 "/api/v2/transactions/" + hashOf("native", 8).Hex(),
	"tx_native_failed":          "/api/v2/transactions/" + hashOf("native", 9).Hex(),
	"block_native_txs":          "/api/v2/blocks/8/native-transactions",
	"address_native_txs":        "/api/v2/addresses/" + fakeAlice.Hex() + "/native-transactions",
	"native_txs":                "/api/v2/native-transactions",
	"native_txs_after":          "/api/v2/native-transactions?block_number=9&index=0&items_count=1",
	"native_txs_bad_cursor":     "/api/v2/native-transactions?block_number=x",
	"native_counters":           "/api/v2/native-transactions/counters",
	"err_bad_hash":              "/api/v2/transactions/0x12",
	"err_unknown_tx":            "/api/v2/transactions/" + hashOf("nothing", 0).Hex(),
	"err_bad_cursor":            "/api/v2/transactions?block_number=x",
	"err_unknown_route":         "/api/v2/nothing",
	"config_chain":              "/api/v2/config/chain",
}

// TestHandlersGolden checks every answer byte for byte against the one kept
// in testdata/golden.
func TestHandlersGolden(t *testing.T) {
	h := fakeHandler(t)
	for name, path := range goldenPaths {
		t.Run(name, func(t *testing.T) {
			code, body := get(t, h, path)
			got := append([]byte(strconv.Itoa(code)+"\n"), body...)
			file := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("GET %s\n got: %s\nwant: %s", path, got, want)
			}
		})
	}
}

// TestPagesWalk follows next_page_params from the first page to the last
// of each keyset-paged list and checks every item comes exactly once, in
// order, and items_count counts the items given before each page.
func TestPagesWalk(t *testing.T) {
	h := fakeHandler(t)
	for _, c := range []struct {
		path string
		key  string // the item field that identifies it
		want int    // items in the whole list
	}{
		{"/api/v2/blocks", "height", 60},
		{"/api/v2/transactions", "hash", 59},
		{"/api/v2/addresses/" + fakeAlice.Hex() + "/transactions", "hash", 59},
		{"/api/v2/addresses/" + fakeAlice.Hex() + "/coin-balance-history", "block_number", 59},
		{"/api/v2/addresses/" + fakeMiner.Hex() + "/blocks-validated", "height", 60},
	} {
		t.Run(c.path, func(t *testing.T) {
			seen := map[string]bool{}
			u, given := c.path, 0
			for pages := 0; ; pages++ {
				if pages > c.want {
					t.Fatal("pages never end")
				}
				code, body := get(t, h, u)
				if code != http.StatusOK {
					t.Fatalf("GET %s: %d %s", u, code, body)
				}
				var p struct {
					Items []map[string]any `json:"items"`
					Next  map[string]any   `json:"next_page_params"`
				}
				if err := json.Unmarshal(body, &p); err != nil {
					t.Fatal(err)
				}
				for _, it := range p.Items {
					id, _ := json.Marshal(it[c.key])
					if seen[string(id)] {
						t.Fatalf("%s %s given twice", c.key, id)
					}
					seen[string(id)] = true
				}
				given += len(p.Items)
				if p.Next == nil {
					break
				}
				if n, _ := p.Next["items_count"].(float64); int(n) != given {
					t.Fatalf("items_count %v after %d items", p.Next["items_count"], given)
				}
				q := url.Values{}
				for k, v := range p.Next {
					b, _ := json.Marshal(v)
					if s, ok := v.(string); ok {
						q.Set(k, s)
					} else {
						q.Set(k, string(b))
					}
				}
				u = c.path + "?" + q.Encode()
			}
			if len(seen) != c.want {
				t.Fatalf("%d items, want %d", len(seen), c.want)
			}
		})
	}
}
