package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/emberchain/ember/internal/wait"
)

// cometSpec is CometBFT v0.38's RPC OpenAPI spec (testdata/README.md).
const cometSpec = "testdata/cometbft-rpc-openapi.yaml"

// cometStatus is the part of /status the tests read.
type cometStatus struct {
	NodeInfo struct {
		ID      string `json:"id"`
		Network string `json:"network"`
	} `json:"node_info"`
	SyncInfo struct {
		LatestBlockHash   string `json:"latest_block_hash"`
		LatestBlockHeight string `json:"latest_block_height"`
		CatchingUp        bool   `json:"catching_up"`
	} `json:"sync_info"`
}

// jsonUint is CometBFT's JSON spelling of a 64-bit integer: a decimal string.
func jsonUint(u uint64) string { return strconv.FormatUint(u, 10) }

// testCometRPC exercises CometBFT's RPC of a live network: the responses
// against the OpenAPI spec, the URI and JSON-RPC POST forms of /block and
// /tx_search, and WebSocket subscriptions.
func testCometRPC(t *testing.T, nw *Network) {
	n := nw.Nodes[1]
	// Three transfers to a fresh recipient, in three blocks, and one to
	// another address.
	recipient := common.HexToAddress("0x00000000000000000000000000000000000C0A11")
	other := common.HexToAddress("0x00000000000000000000000000000000000C0A12")
	var txs []*types.Transaction
	var receipts []*types.Receipt
	for i := 0; i < 3; i++ {
		tx := n.send(t, devKeys[2].Private, txOpts{To: &recipient, Value: big.NewInt(int64(100 + i))})
		txs = append(txs, tx)
		receipts = append(receipts, n.WaitReceipt(t, tx.Hash()))
	}
	n.WaitReceipt(t, n.send(t, devKeys[2].Private, txOpts{To: &other, Value: big.NewInt(1)}).Hash())
	query := fmt.Sprintf("ethereum.recipient='%s'", strings.ToLower(recipient.Hex()))
	// CometBFT indexes asynchronously after the commit: wait until all three
	// are found.
	waitTxSearch(t, n, query, 3)

	t.Run("Schemas", func(t *testing.T) { checkCometSchemas(t, n, query, receipts[0].BlockNumber.Uint64()) })
	t.Run("Block", func(t *testing.T) { checkCometBlock(t, n, receipts[1]) })
	t.Run("TxSearch", func(t *testing.T) { checkCometTxSearch(t, n, query, txs, receipts) })
	t.Run("WebSocket", func(t *testing.T) { checkCometWebSocket(t, nw) })
}

// cometURI GETs path?params from the node's CometBFT RPC and returns the
// whole body.
func (n *Node) cometURI(t *testing.T, path string, params url.Values) []byte {
	t.Helper()
	u := "http://" + n.CometRPC + "/" + path
	if len(params) > 0 {
		u += "?" + params.Encode()
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// cometPost POSTs a JSON-RPC request to / and returns the whole body.
func (n *Node) cometPost(t *testing.T, body string) []byte {
	t.Helper()
	resp, err := http.Post("http://"+n.CometRPC+"/", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cometEnvelope is a CometBFT JSON-RPC response.
type cometEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    string `json:"data"`
	} `json:"error"`
}

func decodeEnvelope(t *testing.T, body []byte) cometEnvelope {
	t.Helper()
	var env cometEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("not a JSON-RPC response: %v: %s", err, body)
	}
	return env
}

// cometResult decodes a successful response's result into v.
func cometResult(t *testing.T, body []byte, v any) {
	t.Helper()
	env := decodeEnvelope(t, body)
	if env.Error != nil {
		t.Fatalf("error %+v", *env.Error)
	}
	if err := json.Unmarshal(env.Result, v); err != nil {
		t.Fatalf("result: %v: %s", err, env.Result)
	}
}

func waitTxSearch(t *testing.T, n *Node, query string, want int) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, fmt.Sprintf("tx_search %s to find %d txs", query, want), func() error {
		var res txSearchResult
		n.CometGet(t, "tx_search", url.Values{"query": {strconv.Quote(query)}}, &res)
		return wait.Check(len(res.Txs) == want, "%d txs", len(res.Txs))
	})
}

// cometBlock is the part of /block the tests read.
type cometBlock struct {
	BlockID struct {
		Hash string `json:"hash"`
	} `json:"block_id"`
	Block struct {
		Header struct {
			ChainID  string `json:"chain_id"`
			Height   string `json:"height"`
			DataHash string `json:"data_hash"`
		} `json:"header"`
		Data struct {
			Txs []string `json:"txs"`
		} `json:"data"`
	} `json:"block"`
}

// checkCometBlock: /block by URI and by JSON-RPC POST (params by name and by
// position) answer the same block, the one holding the tx.
func checkCometBlock(t *testing.T, n *Node, r *types.Receipt) {
	h := r.BlockNumber.String()
	uri := n.cometURI(t, "block", url.Values{"height": {h}})
	named := n.cometPost(t, `{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":"`+h+`"}}`)
	positional := n.cometPost(t, `{"jsonrpc":"2.0","id":"b","method":"block","params":["`+h+`"]}`)
	var a, b, c cometBlock
	cometResult(t, uri, &a)
	cometResult(t, named, &b)
	cometResult(t, positional, &c)
	if a.Block.Header.Height != h || a.Block.Header.ChainID != "ember_9000-1" || len(a.Block.Data.Txs) != 1 {
		t.Fatalf("/block?height=%s: %+v", h, a)
	}
	if !jsonEqual(decodeEnvelope(t, uri).Result, decodeEnvelope(t, named).Result) || !jsonEqual(decodeEnvelope(t, uri).Result, decodeEnvelope(t, positional).Result) {
		t.Fatalf("URI and POST forms differ:\n%s\n%s\n%s", uri, named, positional)
	}
	if env := decodeEnvelope(t, positional); string(env.ID) != `"b"` {
		t.Fatalf("string id answered as %s", env.ID)
	}
	// The block's tx is the raw EVM envelope.
	raw, _ := base64.StdEncoding.DecodeString(a.Block.Data.Txs[0])
	var tx types.Transaction
	if err := tx.UnmarshalBinary(raw); err != nil || tx.Hash() != r.TxHash {
		t.Fatalf("block tx decodes to %s (%v), want %s", tx.Hash(), err, r.TxHash)
	}
	// The CometBFT block hash is not the EVM block hash; both are kept.
	if strings.EqualFold(a.BlockID.Hash, r.BlockHash.Hex()[2:]) {
		t.Fatal("CometBFT block hash equals the EVM hash")
	}
	// Bad heights are errors, not panics.
	for _, c := range []struct{ height, want string }{
		{"abc", "error converting http params to arguments"},
		{"99999999", "must be less than or equal to the current blockchain height"},
		{"-1", "height must be greater than 0"},
	} {
		env := decodeEnvelope(t, n.cometURI(t, "block", url.Values{"height": {c.height}}))
		if env.Error == nil || !strings.Contains(env.Error.Message+" "+env.Error.Data, c.want) {
			t.Errorf("/block?height=%s: error %+v, want %q", c.height, env.Error, c.want)
		}
	}
}

// txSearchPage is a tx_search result with the fields paging and proofs need.
type txSearchPage struct {
	Txs []struct {
		Hash   string `json:"hash"`
		Height string `json:"height"`
		Index  uint32 `json:"index"`
		Tx     string `json:"tx"`
		Proof  *struct {
			RootHash string `json:"root_hash"`
			Data     string `json:"data"`
		} `json:"proof"`
	} `json:"txs"`
	TotalCount string `json:"total_count"`
}

// checkCometTxSearch: tx_search by EVM tx hash and by recipient, with
// prove, page, per_page and order_by, in the URI and JSON-RPC POST forms.
func checkCometTxSearch(t *testing.T, n *Node, query string, txs []*types.Transaction, receipts []*types.Receipt) {
	cometHash := func(tx *types.Transaction) string {
		raw, _ := tx.MarshalBinary()
		h := sha256.Sum256(raw)
		return strings.ToUpper(hex.EncodeToString(h[:]))
	}
	// By EVM hash, spelled as emitted: tx.Hash().Hex(), lowercase 0x hex.
	var one txSearchPage
	cometResult(t, n.cometURI(t, "tx_search", url.Values{"query": {`"ethereum_tx.ethereumTxHash='` + txs[0].Hash().Hex() + `'"`}}), &one)
	if one.TotalCount != "1" || len(one.Txs) != 1 || one.Txs[0].Hash != cometHash(txs[0]) || one.Txs[0].Height != receipts[0].BlockNumber.String() {
		t.Fatalf("by ethereumTxHash: %+v", one)
	}
	// Values match exactly: the address in uppercase hex finds nothing.
	var none txSearchPage
	upper := "0x" + strings.ToUpper(query[len("ethereum.recipient='0x"):len(query)-1])
	cometResult(t, n.cometURI(t, "tx_search", url.Values{"query": {`"ethereum.recipient='` + upper + `'"`}}), &none)
	if none.TotalCount != "0" || len(none.Txs) != 0 {
		t.Fatalf("checksummed recipient matched: %+v", none)
	}

	want := make([]string, len(txs)) // ascending (height, index)
	for i, tx := range txs {
		want[i] = cometHash(tx)
	}
	hashes := func(p txSearchPage) []string {
		var out []string
		for _, tx := range p.Txs {
			out = append(out, tx.Hash)
		}
		return out
	}
	type form struct {
		name string
		get  func(prove bool, page, perPage int, order string) []byte
	}
	forms := []form{
		{"URI", func(prove bool, page, perPage int, order string) []byte {
			return n.cometURI(t, "tx_search", url.Values{"query": {strconv.Quote(query)}, "prove": {strconv.FormatBool(prove)},
				"page": {strconv.Itoa(page)}, "per_page": {strconv.Itoa(perPage)}, "order_by": {strconv.Quote(order)}})
		}},
		{"POST", func(prove bool, page, perPage int, order string) []byte {
			params, _ := json.Marshal(map[string]any{"query": query, "prove": prove, "page": strconv.Itoa(page), "per_page": strconv.Itoa(perPage), "order_by": order})
			return n.cometPost(t, `{"jsonrpc":"2.0","id":2,"method":"tx_search","params":`+string(params)+`}`)
		}},
	}
	for _, f := range forms {
		var p1, p2, desc, proved txSearchPage
		cometResult(t, f.get(false, 1, 2, "asc"), &p1)
		cometResult(t, f.get(false, 2, 2, "asc"), &p2)
		cometResult(t, f.get(false, 1, 30, "desc"), &desc)
		cometResult(t, f.get(true, 1, 30, "asc"), &proved)
		got := append(hashes(p1), hashes(p2)...)
		if p1.TotalCount != "3" || p2.TotalCount != "3" || len(p1.Txs) != 2 || len(p2.Txs) != 1 || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%s: pages of 2 asc: %v + %v (total %s/%s), want %v", f.name, hashes(p1), hashes(p2), p1.TotalCount, p2.TotalCount, want)
		}
		if d := hashes(desc); len(d) != 3 || d[0] != want[2] || d[1] != want[1] || d[2] != want[0] {
			t.Fatalf("%s: desc %v, want the reverse of %v", f.name, d, want)
		}
		for _, tx := range p1.Txs {
			if tx.Proof != nil && tx.Proof.RootHash != "" {
				t.Fatalf("%s: prove=false gave a proof %+v", f.name, tx.Proof)
			}
		}
		for i, tx := range proved.Txs {
			var blk cometBlock
			cometResult(t, n.cometURI(t, "block", url.Values{"height": {tx.Height}}), &blk)
			raw, _ := txs[i].MarshalBinary()
			if tx.Proof == nil || tx.Proof.RootHash != blk.Block.Header.DataHash || tx.Proof.Data != base64.StdEncoding.EncodeToString(raw) ||
				tx.Tx != base64.StdEncoding.EncodeToString(raw) || tx.Height != receipts[i].BlockNumber.String() || tx.Index != uint32(receipts[i].TransactionIndex) {
				t.Fatalf("%s: proved tx %d: %+v, block data_hash %s", f.name, i, tx, blk.Block.Header.DataHash)
			}
		}
	}
	// Bad input is an error.
	for _, c := range []struct {
		params url.Values
		want   string
	}{
		// A query that does not parse is an "Internal error" (-32603) in
		// CometBFT v0.38, not invalid params.
		{url.Values{"query": {`"ethereum.recipient=="`}}, "got = operator, wanted number, timestamp, datestamp or string"},
		{url.Values{"query": {strconv.Quote(query)}, "page": {"9"}}, "page should be within [1, 1] range, given 9"},
		{url.Values{"query": {strconv.Quote(query)}, "order_by": {`"sideways"`}}, "expected order_by to be either `asc` or `desc` or empty"},
	} {
		env := decodeEnvelope(t, n.cometURI(t, "tx_search", c.params))
		if env.Error == nil || !strings.Contains(env.Error.Message+" "+env.Error.Data, c.want) {
			t.Errorf("tx_search %v: error %+v, want %q", c.params, env.Error, c.want)
		}
	}
}

// checkCometSchemas validates /block, /tx_search, /status and /validators
// against the spec's 200 responses. Where CometBFT v0.38's real output and
// the spec disagree, cometSpecFixes says how; each fix is checked to still
// be needed.
func checkCometSchemas(t *testing.T, n *Node, query string, height uint64) {
	h := jsonUint(height)
	bodies := map[string][]byte{
		"/block":      n.cometURI(t, "block", url.Values{"height": {h}}),
		"/tx_search":  n.cometURI(t, "tx_search", url.Values{"query": {strconv.Quote(query)}, "prove": {"true"}}),
		"/status":     n.cometURI(t, "status", nil),
		"/validators": n.cometURI(t, "validators", nil),
	}
	for path, body := range bodies {
		if env := decodeEnvelope(t, body); env.Error != nil {
			t.Fatalf("%s: %+v", path, *env.Error)
		}
		asWritten := cometValidator(t, path, false)
		fixed := cometValidator(t, path, true)
		errWritten := asWritten(body)
		if err := fixed(body); err != nil {
			t.Errorf("%s does not match the spec (with the fixes of cometSpecFixes): %v\n%s", path, err, body)
		}
		if _, hasFix := cometSpecFixes[path]; hasFix != (errWritten != nil) {
			t.Errorf("%s: spec as written: %v; fixes listed: %v", path, errWritten, hasFix)
		} else if errWritten != nil {
			t.Logf("%s: CometBFT differs from the spec as written: %v", path, errWritten)
		}
	}
}

// cometSpecFixes are where CometBFT v0.38.26's output differs from
// cometbft-rpc-openapi.yaml (docs/network.md lists them); each function
// corrects the spec's component schemas for one path. /status and
// /validators match the spec as written.
var cometSpecFixes = map[string]func(schemas map[string]any){
	"/block": func(schemas map[string]any) {
		block := schemas["Block"].(map[string]any)["properties"].(map[string]any)
		// data is {txs: [base64…]}, not a bare array.
		block["data"] = obj(map[string]any{"txs": arrayOf(map[string]any{"type": "string"})}, "txs")
		// evidence is {evidence: […]}, not a bare array.
		block["evidence"] = obj(map[string]any{"evidence": arrayOf(map[string]any{"$ref": "#/components/schemas/Evidence"})}, "evidence")
		lastCommit := block["last_commit"].(map[string]any)["properties"].(map[string]any)
		// last_commit.height is a decimal string like every int64.
		lastCommit["height"] = map[string]any{"type": "string"}
		// signatures are CommitSigs, not Votes (no type, height, round,
		// block_id, validator_index); an absent validator's signature is null.
		lastCommit["signatures"] = arrayOf(obj(map[string]any{
			"block_id_flag":     map[string]any{"type": "integer"},
			"validator_address": map[string]any{"type": "string"},
			"timestamp":         map[string]any{"type": "string"},
			"signature":         map[string]any{"type": "string", "nullable": true},
		}, "block_id_flag", "validator_address", "timestamp", "signature"))
	},
	"/tx_search": func(schemas map[string]any) {
		tx := schemas["TxSearchResponse"].(map[string]any)["properties"].(map[string]any)["result"].(map[string]any)["properties"].(map[string]any)["txs"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)
		// tx_result has events [{type, attributes: [{key, value, index}]}]
		// (tags were renamed events in Tendermint v0.33).
		result := tx["tx_result"].(map[string]any)
		result["required"] = []any{"log", "gas_wanted", "gas_used", "events"}
		props := result["properties"].(map[string]any)
		delete(props, "tags")
		props["events"] = arrayOf(obj(map[string]any{
			"type":       map[string]any{"type": "string"},
			"attributes": arrayOf(map[string]any{"$ref": "#/components/schemas/Event"}),
		}, "type", "attributes"))
		// proof's keys are snake_case: root_hash, data, proof.
		old := tx["proof"].(map[string]any)["properties"].(map[string]any)
		tx["proof"] = obj(map[string]any{"root_hash": old["RootHash"], "data": old["Data"], "proof": old["Proof"]}, "root_hash", "data", "proof")
	},
}

// obj is an object schema with required properties.
func obj(props map[string]any, required ...string) map[string]any {
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	return map[string]any{"type": "object", "properties": props, "required": req}
}

func arrayOf(items any) map[string]any { return map[string]any{"type": "array", "items": items} }

// cometValidator compiles the 200 response of a spec path (with or without
// the fixes) into a function that validates a body.
func cometValidator(t *testing.T, path string, fix bool) func([]byte) error {
	t.Helper()
	doc := readSpec(t, cometSpec)
	components := doc["components"].(map[string]any)
	response := response200(t, doc, path)
	if f, ok := cometSpecFixes[path]; ok && fix {
		f(components["schemas"].(map[string]any))
	}
	converted := toJSONSchema(map[string]any{"components": components})
	buf, _ := json.Marshal(converted)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("file:///cometbft.json", inst); err != nil {
		t.Fatal(err)
	}
	buf, _ = json.Marshal(rebaseRefs(toJSONSchema(response), "file:///cometbft.json"))
	if inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(buf)); err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("file:///response.json", inst); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("file:///response.json")
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return func(body []byte) error {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			return err
		}
		return s.Validate(v)
	}
}
