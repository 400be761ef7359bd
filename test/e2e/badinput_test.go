package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// rawCall posts body to the node's JSON-RPC and returns the HTTP status and
// the decoded response.
func rawCall(t *testing.T, n *Node, body []byte) (int, json.RawMessage) {
	t.Helper()
	resp, err := http.Post("http://"+n.HTTP, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

type rpcErrResp struct {
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestBadInputGetsTheRightError(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0", "--json-rpc.api", "eth,net")
	addr := `"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"`
	cases := []struct {
		params string
		method string
		code   int
		msg    string // substring of the message
	}{
		// QUANTITY: no prefix, empty, leading zeros.
		{`[` + addr + `, "ff"]`, "eth_getBalance", -32602, "invalid argument 1"},
		{`[` + addr + `, "0x"]`, "eth_getBalance", -32602, "invalid argument 1"},
		{`[` + addr + `, "0x0400"]`, "eth_getBalance", -32602, "invalid argument 1"},
		{`["0x0400", false]`, "eth_getBlockByNumber", -32602, "invalid argument 0"},
		// DATA: odd length, no prefix.
		{`["0xf0f0f"]`, "eth_sendRawTransaction", -32602, "invalid argument 0"},
		{`["004200"]`, "eth_sendRawTransaction", -32602, "invalid argument 0"},
		{`[{"to": ` + addr + `, "input": "0xf0f0f"}, "latest"]`, "eth_call", -32602, "invalid argument 0"},
		// Addresses and hashes of the wrong size.
		{`["0x1234", "latest"]`, "eth_getBalance", -32602, "invalid argument 0"},
		{`["0x1234"]`, "eth_getTransactionByHash", -32602, "invalid argument 0"},
		{`["0x1234", false]`, "eth_getBlockByHash", -32602, "invalid argument 0"},
		// Wrong parameter counts and types.
		{`[]`, "eth_getBalance", -32602, "missing value for required argument 0"},
		{`[` + addr + `, "latest", 1, 2]`, "eth_getBalance", -32602, "too many arguments"},
		{`[true]`, "eth_getTransactionReceipt", -32602, "invalid argument 0"},
		// Unknown methods and namespaces not enabled.
		{`[]`, "eth_noSuchMethod", -32601, "does not exist"},
		{`[]`, "web3_clientVersion", -32601, "does not exist"},
	}
	for _, c := range cases {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, c.method, c.params)
		_, out := rawCall(t, n, []byte(body))
		var r rpcErrResp
		if err := json.Unmarshal(out, &r); err != nil || r.Error == nil || r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.msg) {
			t.Errorf("%s %s: %s; want code %d with %q", c.method, c.params, out, c.code, c.msg)
		}
	}
	// Malformed JSON and a request that is not an object.
	for body, code := range map[string]int{`{"jsonrpc":"2.0","id":1,"method":`: -32700, `[1]`: -32600, `{"jsonrpc":"2.0","id":1}`: -32600} {
		_, out := rawCall(t, n, []byte(body))
		var r rpcErrResp
		if strings.HasPrefix(body, "[") {
			var batch []rpcErrResp
			_ = json.Unmarshal(out, &batch)
			if len(batch) == 1 {
				r = batch[0]
			}
		} else {
			_ = json.Unmarshal(out, &r)
		}
		if r.Error == nil || r.Error.Code != code {
			t.Errorf("body %s: %s; want code %d", body, out, code)
		}
	}
	// A batch over the limit (1,000) is refused whole.
	items := make([]string, 1001)
	for i := range items {
		items[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_chainId","params":[]}`, i)
	}
	_, out := rawCall(t, n, []byte("["+strings.Join(items, ",")+"]"))
	if !strings.Contains(string(out), "batch too large") {
		t.Errorf("oversized batch: %.200s", out)
	}
	// A body over the limit (5 MiB) gets HTTP 413.
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x%s"]}`, strings.Repeat("00", 3<<20))
	if status, _ := rawCall(t, n, []byte(big)); status != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: HTTP %d, want 413", status)
	}
	// The server still answers.
	if id, err := n.Eth.ChainID(ctx(t)); err != nil || id.Int64() != 31337 {
		t.Fatalf("after bad input: chain id %v, %v", id, err)
	}
}
