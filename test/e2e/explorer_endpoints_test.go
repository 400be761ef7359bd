package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/internal/wait"
)

// generatedSpec is the OpenAPI spec generated from Blockscout's backend
// 11.2.7, for the responses the hand-written YAML gets wrong.
const generatedSpec = "testdata/blockscout-api-v2-generated-11.2.7-default.yaml"

// sendSigned submits signed transactions in one JSON-RPC batch.
func (n *Node) sendSigned(t *testing.T, txs []*types.Transaction) {
	t.Helper()
	batch := make([]rpc.BatchElem, len(txs))
	for i, tx := range txs {
		raw, _ := tx.MarshalBinary()
		batch[i] = rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(raw)}, Result: new(common.Hash)}
	}
	if err := n.RPC.BatchCall(batch); err != nil {
		t.Fatal(err)
	}
	for _, el := range batch {
		if el.Error != nil {
			t.Fatal(el.Error)
		}
	}
}

// TestExplorerEndpoints covers the endpoints of issue 9's second part on a
// plain `emberd dev` (no explorer flag: dev homes run it; an empty block
// every 20 ms so that the validator's blocks span pages): 60 transfers to
// 60 new addresses (top holders span two pages), a token deploy and 55 token
// transfers (its logs span two pages), each response validated against the
// spec and its values against the chain.
func TestExplorerEndpoints(t *testing.T) {
	t.Parallel()
	testExplorerEndpoints(t)
}

// TestExplorerEndpointsPostgres runs the same on a PostgreSQL store.
func TestExplorerEndpointsPostgres(t *testing.T) {
	t.Parallel()
	testExplorerEndpoints(t, "--explorer.db", pgDSN(t))
}

func testExplorerEndpoints(t *testing.T, extra ...string) {
	n := StartDev(t, append([]string{"--empty-block-interval", "20ms"}, extra...)...)
	s := loadBlockscoutSchemas(t)
	funder, tokenOwner := devKeys[6], devKeys[7]

	nonce, err := n.Eth.PendingNonceAt(ctx(t), funder.Address)
	if err != nil {
		t.Fatal(err)
	}
	var txs []*types.Transaction
	for i := 0; i < 60; i++ {
		to := common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("holder-%d", i)))[:20])
		txs = append(txs, n.signTx(t, funder.Private, txOpts{Nonce: ptr(nonce + uint64(i)), To: &to, Value: big.NewInt(int64(1e15) * int64(i+1))}))
	}
	n.sendSigned(t, txs)

	token := contracts.MustLoad("EmberToken")
	ctorArgs, _ := token.ABI.Pack("", big.NewInt(1_000_000))
	deploy := n.send(t, tokenOwner.Private, txOpts{Gas: 3_000_000, Data: append(append([]byte{}, token.Bytecode...), ctorArgs...)})
	receipts, _ := n.waitAll(t, append(txs, deploy))
	tokenAddr := receipts[deploy.Hash()].ContractAddress
	nonce, _ = n.Eth.PendingNonceAt(ctx(t), tokenOwner.Address)
	var calls []*types.Transaction
	for i := 0; i < 55; i++ {
		input, _ := token.ABI.Pack("transfer", txs[i].To(), big.NewInt(int64(i+1)))
		calls = append(calls, n.signTx(t, tokenOwner.Private, txOpts{Nonce: ptr(nonce + uint64(i)), To: &tokenAddr, Gas: 200_000, Data: input}))
	}
	n.sendSigned(t, calls)
	callReceipts, last := n.waitAll(t, calls)
	n.waitIndexed(t, last)

	t.Run("holders", func(t *testing.T) { checkTopAddresses(t, n, s) })
	t.Run("logs", func(t *testing.T) { checkAddressLogs(t, n, s, tokenAddr, receipts[deploy.Hash()], calls, callReceipts) })
	t.Run("blocks-validated", func(t *testing.T) { checkBlocksValidated(t, n, s) })
	t.Run("balance-by-day", func(t *testing.T) { checkBalanceByDay(t, n, *txs[59].To()) })
	t.Run("charts", func(t *testing.T) { checkCharts(t, n, s) })
	t.Run("withdrawals", func(t *testing.T) { checkWithdrawals(t, n, s, funder.Address) })
	t.Run("services", func(t *testing.T) { checkServiceEndpoints(t, n, s) })
	t.Run("errors", func(t *testing.T) { checkEndpointErrors(t, n, s, funder.Address) })
}

// checkTopAddresses follows /addresses to the end: every indexed address
// once, richest first, balances equal to the chain's, total supply their sum.
func checkTopAddresses(t *testing.T, n *Node, s *blockscoutSchemas) {
	v := pathValidator(t, s, "/addresses", specAddressesFix)
	var all []map[string]any
	var supply string
	next := "/api/v2/addresses"
	for pages := 0; next != ""; pages++ {
		if pages > 100 {
			t.Fatal("/addresses: more than 100 pages")
		}
		var p struct {
			explorerPage
			TotalSupply  string `json:"total_supply"`
			ExchangeRate any    `json:"exchange_rate"`
		}
		body := n.explorerBody(t, next)
		v(t, next, body)
		json.Unmarshal(body, &p)
		if len(p.Items) > 50 || p.ExchangeRate != nil {
			t.Fatalf("%s: %d items, exchange rate %v", next, len(p.Items), p.ExchangeRate)
		}
		if supply != "" && p.TotalSupply != supply {
			t.Fatalf("total supply changed between pages: %s, %s", supply, p.TotalSupply)
		}
		supply = p.TotalSupply
		all = append(all, p.Items...)
		next = nextPage("/api/v2/addresses", p.NextPageParams)
	}
	var st map[string]any
	n.explorerJSON(t, s, "StatsResponse", "/api/v2/stats", &st)
	if fmt.Sprint(len(all)) != st["total_addresses"] || len(all) < 62 {
		t.Fatalf("%d holders listed, stats count %v addresses", len(all), st["total_addresses"])
	}
	seen, sum, prev := map[string]bool{}, new(big.Int), (*big.Int)(nil)
	for i, item := range all {
		hash := item["hash"].(string)
		bal, _ := new(big.Int).SetString(item["coin_balance"].(string), 10)
		if seen[hash] || (prev != nil && bal.Cmp(prev) > 0) {
			t.Fatalf("holder %d %s (%s) repeated or out of order after %s", i, hash, bal, prev)
		}
		seen[hash], prev = true, bal
		sum.Add(sum, bal)
		at := new(big.Int).SetUint64(uint64(item["block_number_balance_updated_at"].(float64)))
		chain, err := n.Eth.BalanceAt(ctx(t), common.HexToAddress(hash), at)
		if err != nil || chain.Cmp(bal) != 0 {
			t.Fatalf("holder %s: explorer %s, chain %s at %s (%v)", hash, bal, chain, at, err)
		}
	}
	// Genesis accounts count whether or not they ever transacted: every
	// prefunded dev account is listed.
	for _, k := range devKeys {
		if !seen[strings.ToLower(k.Address.Hex())] && !seen[k.Address.Hex()] {
			t.Fatalf("prefunded %s missing from /addresses", k.Address.Hex())
		}
	}
	if want := weiToCoins(sum); supply != want {
		t.Fatalf("total_supply %s, listed balances sum to %s", supply, want)
	}
}

// weiToCoins spells wei in whole coins exactly, as total_supply does.
func weiToCoins(wei *big.Int) string {
	r := new(big.Rat).SetFrac(wei, new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
	return strings.TrimSuffix(strings.TrimRight(r.FloatString(18), "0"), ".")
}

func checkAddressLogs(t *testing.T, n *Node, s *blockscoutSchemas, token common.Address, deploy *types.Receipt,
	calls []*types.Transaction, receipts map[common.Hash]*types.Receipt) {
	want := append([]*types.Log{}, deploy.Logs...)
	for _, c := range calls {
		want = append(want, receipts[c.Hash()].Logs...)
	}
	sort.Slice(want, func(i, j int) bool { // newest first: (block, index) descending
		if want[i].BlockNumber != want[j].BlockNumber {
			return want[i].BlockNumber > want[j].BlockNumber
		}
		return want[i].Index > want[j].Index
	})
	got := n.followPages(t, s, "Log", "/api/v2/addresses/"+token.Hex()+"/logs")
	if len(got) != len(want) || len(got) <= 50 {
		t.Fatalf("%d logs listed, receipts have %d", len(got), len(want))
	}
	for i, l := range got {
		w := want[i]
		if l["transaction_hash"] != w.TxHash.Hex() || l["index"] != float64(w.Index) || l["block_number"] != float64(w.BlockNumber) ||
			l["data"] != hexutil.Encode(w.Data) || l["address"].(map[string]any)["hash"] != token.Hex() {
			t.Fatalf("log %d = %v, want %+v", i, l, w)
		}
	}
	var empty explorerPage
	n.explorerJSON(t, s, "page:Log", "/api/v2/addresses/"+devKeys[6].Address.Hex()+"/logs", &empty)
	if len(empty.Items) != 0 || empty.NextPageParams != nil {
		t.Fatalf("logs of an account: %v", empty)
	}
}

// checkBlocksValidated waits for more than a page of (empty) blocks, then
// lists the validator's: exactly the chain's blocks with its coinbase, from
// the newest down, each once.
func checkBlocksValidated(t *testing.T, n *Node, s *blockscoutSchemas) {
	head := n.waitHeight(t, 60)
	n.waitIndexed(t, head.Number.Uint64())
	miner := head.Coinbase
	blocks := n.followPages(t, s, "Block", "/api/v2/addresses/"+miner.Hex()+"/blocks-validated")
	top := uint64(blocks[0]["height"].(float64))
	var want []uint64
	for h := int64(top); h >= 0; h-- {
		hdr, err := n.Eth.HeaderByNumber(ctx(t), big.NewInt(h))
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Coinbase == miner {
			want = append(want, uint64(h))
		}
	}
	if len(blocks) != len(want) || len(blocks) <= 50 {
		t.Fatalf("%d blocks validated up to %d, the chain has %d with coinbase %s", len(blocks), top, len(want), miner.Hex())
	}
	for i, b := range blocks {
		if b["height"] != float64(want[i]) || b["miner"].(map[string]any)["hash"] != miner.Hex() {
			t.Fatalf("validated block %d = height %v miner %v, want %d", i, b["height"], b["miner"], want[i])
		}
	}
	var other explorerPage
	n.explorerJSON(t, s, "page:Block", "/api/v2/addresses/"+devKeys[6].Address.Hex()+"/blocks-validated", &other)
	if len(other.Items) != 0 {
		t.Fatalf("a non-validator validated %d blocks", len(other.Items))
	}
}

// checkBalanceByDay: everything happened today, so one point, today, at the
// address's balance. Shape per the generated spec (see specByDay).
func checkBalanceByDay(t *testing.T, n *Node, addr common.Address) {
	v := generatedValidator(t, "/v2/addresses/{address_hash_param}/coin-balance-history-by-day")
	path := "/api/v2/addresses/" + addr.Hex() + "/coin-balance-history-by-day"
	body := n.explorerBody(t, path)
	v(t, path, body)
	var got struct {
		Items []map[string]any `json:"items"`
		Days  int              `json:"days"`
	}
	json.Unmarshal(body, &got)
	bal, _ := n.Eth.BalanceAt(ctx(t), addr, nil)
	today := time.Now().UTC().Format("2006-01-02")
	if got.Days != 10 || len(got.Items) != 1 || got.Items[0]["date"] != today || got.Items[0]["value"] != bal.String() {
		t.Fatalf("by day = %s, want %s at %s", body, today, bal)
	}
}

// checkCharts: the daily counts add up to the chain's transactions; the
// market chart has no prices and the supply /addresses reports.
func checkCharts(t *testing.T, n *Node, s *blockscoutSchemas) {
	var blocks explorerPage
	n.explorerJSON(t, s, "page:Block", "/api/v2/blocks", &blocks)
	top := uint64(blocks.Items[0]["height"].(float64))
	path := "/api/v2/stats/charts/transactions"
	body := n.explorerBody(t, path)
	pathValidator(t, s, "/stats/charts/transactions", nil)(t, path, body)
	var chart struct {
		ChartData []struct {
			Date  string `json:"date"`
			Count uint64 `json:"transactions_count"`
		} `json:"chart_data"`
	}
	json.Unmarshal(body, &chart)
	total := uint64(0)
	for i, d := range chart.ChartData {
		total += d.Count
		if i > 0 && d.Date >= chart.ChartData[i-1].Date {
			t.Fatalf("chart dates not newest first: %s", body)
		}
	}
	if want := n.chainTxCount(t, top); total != uint64(want) || chart.ChartData[0].Date != time.Now().UTC().Format("2006-01-02") {
		t.Fatalf("chart counts %d txs, chain has %d up to %d: %s", total, want, top, body)
	}
	path = "/api/v2/stats/charts/market"
	body = n.explorerBody(t, path)
	pathValidator(t, s, "/stats/charts/market", nil)(t, path, body)
	var market map[string]any
	json.Unmarshal(body, &market)
	var holders map[string]any
	n.explorerJSON(t, nil, "", "/api/v2/addresses", &holders)
	if len(market["chart_data"].([]any)) != 0 || market["available_supply"] != holders["total_supply"] {
		t.Fatalf("market chart %s, total supply %v", body, holders["total_supply"])
	}
}

func checkWithdrawals(t *testing.T, n *Node, s *blockscoutSchemas, addr common.Address) {
	for _, path := range []string{"/api/v2/withdrawals", "/api/v2/blocks/1/withdrawals",
		"/api/v2/blocks/" + blockHash(t, n, 1).Hex() + "/withdrawals", "/api/v2/addresses/" + addr.Hex() + "/withdrawals"} {
		var p explorerPage
		n.explorerJSON(t, s, "page:Withdrawal", path, &p)
		if len(p.Items) != 0 || p.NextPageParams != nil {
			t.Fatalf("%s = %v", path, p)
		}
	}
}

// checkServiceEndpoints: health in both shapes, the absent DA layers and
// account-abstraction indexer, the JSON-RPC URL.
func checkServiceEndpoints(t *testing.T, n *Node, s *blockscoutSchemas) {
	for path, want := range map[string]string{
		"/api/health": "SERVING", "/health": "SERVING", "/health?service=": "SERVING",
		"/health?service=indexer": "SERVING", "/api/health?service=api": "SERVING",
	} {
		var h map[string]any
		n.explorerJSON(t, s, "v1HealthCheckResponse", path, &h)
		if h["status"] != want {
			t.Fatalf("%s = %v", path, h)
		}
	}
	var h map[string]any
	n.explorerJSON(t, nil, "", "/api/health", &h)
	if h["healthy"] != true || h["metadata"] == nil {
		t.Fatalf("/api/health lost Blockscout's fields: %v", h)
	}
	for _, path := range []string{"/health?service=nope", "/api/health?service=blockscout",
		"/api/v1/celestia/blob?height=1&commitment=0x00", "/api/v1/celestia/l2BatchMetadata?height=1",
		"/api/v1/eigenda/blob", "/api/v1/avail/l2BatchMetadata"} {
		status, body := n.explorerGet(t, path)
		if status != http.StatusNotFound {
			t.Fatalf("%s = %d %s, want 404", path, status, body)
		}
		s.validate(t, "rpcStatus", path, body)
		var st map[string]any
		json.Unmarshal(body, &st)
		if st["code"] != float64(5) || st["message"] == "" {
			t.Fatalf("%s = %s, want code 5 (NOT_FOUND) and a message", path, body)
		}
	}
	var aa map[string]any
	n.explorerJSON(t, s, "v1IndexerStatus", "/proxy/account-abstraction/status", &aa)
	for _, v := range []string{"v06", "v07"} {
		if aa[v].(map[string]any)["enabled"] != false || aa["finished_past_indexing"] != false {
			t.Fatalf("account abstraction status = %v", aa)
		}
	}
	var cfg map[string]any
	n.explorerJSON(t, nil, "", "/api/v2/config/json-rpc-url", &cfg)
	if len(cfg) != 1 || cfg["json_rpc_url"] != "http://"+n.HTTP {
		t.Fatalf("json-rpc-url = %v, want http://%s", cfg, n.HTTP)
	}
}

func checkEndpointErrors(t *testing.T, n *Node, s *blockscoutSchemas, addr common.Address) {
	unknown := common.BytesToAddress(crypto.Keccak256([]byte("never seen"))[:20]).Hex()
	for path, want := range map[string]int{
		"/api/v2/addresses?fetched_coin_balance=abc&hash=" + addr.Hex():        http.StatusUnprocessableEntity,
		"/api/v2/addresses?fetched_coin_balance=1&hash=0x12":                   http.StatusUnprocessableEntity,
		"/api/v2/addresses?sort=transactions_count":                            http.StatusUnprocessableEntity,
		"/api/v2/addresses/0xzz/logs":                                          http.StatusUnprocessableEntity,
		"/api/v2/addresses/" + addr.Hex() + "/logs?block_number=1":             http.StatusUnprocessableEntity,
		"/api/v2/addresses/" + addr.Hex() + "/blocks-validated?block_number=x": http.StatusUnprocessableEntity,
		"/api/v2/addresses/0x12/coin-balance-history-by-day":                   http.StatusUnprocessableEntity,
		"/api/v2/addresses/0x12/withdrawals":                                   http.StatusUnprocessableEntity,
		"/api/v2/blocks/abc/withdrawals":                                       http.StatusUnprocessableEntity,
		"/api/v2/blocks/99999999/withdrawals":                                  http.StatusNotFound,
		"/api/v2/addresses/" + unknown + "/logs":                               http.StatusNotFound,
		"/api/v2/addresses/" + unknown + "/withdrawals":                        http.StatusNotFound,
		"/api/v2/addresses/" + unknown + "/coin-balance-history-by-day":        http.StatusNotFound,
		"/api/v2/addresses/" + unknown + "/blocks-validated":                   http.StatusNotFound,
	} {
		status, body := n.explorerGet(t, path)
		if status != want || !strings.Contains(string(body), `"message":`) {
			t.Fatalf("GET %s = %d %s, want %d with a message", path, status, body, want)
		}
	}
}

// waitHeight waits until the chain reaches block number and returns its
// newest header.
func (n *Node) waitHeight(t testing.TB, number uint64) *types.Header {
	t.Helper()
	return wait.For(t, 90*time.Second, fmt.Sprintf("block %d", number), func() (*types.Header, error) {
		head, err := n.Eth.HeaderByNumber(ctx(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		return head, wait.Check(head.Number.Uint64() >= number, "head %d", head.Number)
	})
}

// explorerBody fetches path and requires 200.
func (n *Node) explorerBody(t *testing.T, path string) []byte {
	t.Helper()
	status, body := n.explorerGet(t, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	return body
}

// nextPage appends next_page_params to base, or "" on the last page.
func nextPage(base string, params map[string]any) string {
	if params == nil {
		return ""
	}
	q := make([]string, 0, len(params))
	for k, v := range params {
		if str, ok := v.(string); ok {
			q = append(q, k+"="+str)
		} else {
			b, _ := json.Marshal(v)
			q = append(q, k+"="+string(b))
		}
	}
	return base + "?" + strings.Join(q, "&")
}

// specAddressesFix corrects the /addresses response of the YAML as
// blockscout-fields.md and the generated backend spec (FloatStringNullable)
// have it: exchange_rate is null without a price source, and
// next_page_params null on the last page like every list.
func specAddressesFix(schema map[string]any) {
	props := schema["properties"].(map[string]any)
	props["exchange_rate"].(map[string]any)["nullable"] = true
	props["next_page_params"].(map[string]any)["nullable"] = true
}

type validator func(t *testing.T, path string, body []byte)

// pathValidator validates against the 200 response of a path in the YAML,
// corrected by fix (nil: as written); its $refs resolve to the corrected
// components loadBlockscoutSchemas compiled.
func pathValidator(t *testing.T, s *blockscoutSchemas, specPath string, fix func(map[string]any)) validator {
	doc := readSpec(t, blockscoutSpec)
	schema := response200(t, doc, specPath)
	if fix != nil {
		fix(schema)
	}
	url := "file:///path" + strings.ReplaceAll(specPath, "/", "-") + ".json"
	return compileResponse(t, s.c, url, rebaseRefs(toJSONSchema(schema), "file:///blockscout.json"))
}

// generatedValidator validates against the 200 response of a path in the
// spec generated from Blockscout's backend. It is used for
// /coin-balance-history-by-day, where the YAML has a bare array of numbers
// but the backend and blockscout-fields.md ("{items:[{date, value}], days}")
// agree on an object with decimal-string values.
func generatedValidator(t *testing.T, specPath string) validator {
	doc := readSpec(t, generatedSpec)
	comps := toJSONSchema(map[string]any{"components": doc["components"]})
	buf, _ := json.Marshal(comps)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("file:///generated.json", inst); err != nil {
		t.Fatal(err)
	}
	return compileResponse(t, c, "file:///generated-path.json", rebaseRefs(toJSONSchema(response200(t, doc, specPath)), "file:///generated.json"))
}

func readSpec(t *testing.T, file string) map[string]any {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func response200(t *testing.T, doc map[string]any, path string) map[string]any {
	op, ok := doc["paths"].(map[string]any)[path].(map[string]any)
	if !ok {
		t.Fatalf("spec has no path %s", path)
	}
	r := op["get"].(map[string]any)["responses"].(map[string]any)
	ok200, ok := r["200"].(map[string]any)
	if !ok {
		t.Fatalf("spec path %s has no 200 response", path)
	}
	return ok200["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
}

// rebaseRefs points local $refs (#/components/...) at the document base.
func rebaseRefs(v any, base string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if ref, ok := x.(string); ok && k == "$ref" && strings.HasPrefix(ref, "#/") {
				v[k] = base + ref
			} else {
				v[k] = rebaseRefs(x, base)
			}
		}
	case []any:
		for i := range v {
			v[i] = rebaseRefs(v[i], base)
		}
	}
	return v
}

func compileResponse(t *testing.T, c *jsonschema.Compiler, url string, schema any) validator {
	buf, _ := json.Marshal(schema)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource(url, inst); err != nil {
		t.Fatal(err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s: %v", url, err)
	}
	return func(t *testing.T, path string, body []byte) {
		t.Helper()
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: not JSON: %v", path, err)
		}
		if err := compiled.Validate(doc); err != nil {
			t.Fatalf("%s does not match its spec response: %v\n%s", path, err, body)
		}
	}
}
