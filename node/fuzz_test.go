package node

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// FuzzJSONRPC posts arbitrary bodies to a running node's JSON-RPC: every one
// must get an HTTP answer, no method may crash (go-ethereum's server turns a
// panic into "method handler crashed"), and the node must keep serving.
func FuzzJSONRPC(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","latest"]}`,
		`{"jsonrpc":"2.0","id":"a","method":"eth_getBlockByNumber","params":["0x0",true]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000001","input":"0x00"},"latest"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"from":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266","value":"0x1"}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"earliest","topics":[null,["0x01"]]}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_feeHistory","params":["0x4","latest",[10,90]]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_getProof","params":["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",["0x0"],"latest"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x02f8"]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId"},{"jsonrpc":"2.0","id":2,"method":"net_version"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_newFilter","params":[{"address":["0x0000000000000000000000000000000000000001"]}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_createAccessList","params":[{"to":"0x0000000000000000000000000000000000000004","input":"0x1234"}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0x0000000000000000000000000000000000000009","input":"0x"},"latest",{"0x0000000000000000000000000000000000000001":{"movePrecompileToAddress":"0x0000000000000000000000000000000000000009"},"0x00000000000000000000000000000000000000aa":{"code":"0x6001600101","balance":"0x10","nonce":"0x2","stateDiff":{"0x0000000000000000000000000000000000000000000000000000000000000000":"0x0000000000000000000000000000000000000000000000000000000000000001"}}},{"number":"0x100","time":"0x5","gasLimit":"0x10000","baseFeePerGas":"0x0","blobBaseFee":"0x1"}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"to":"0x00000000000000000000000000000000000000aa"},"latest",{"0x00000000000000000000000000000000000000aa":{"code":"0x600160010160005260206000f3","state":{}}}]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_getStorageValues","params":[{"0x00000000000000000000000000000000000000aa":["0x0","0x01"]},"latest"]}`,
	} {
		f.Add([]byte(seed))
	}
	n := startDevNode(f)
	url := "http://" + n.JSONRPCAddr()
	client := &http.Client{}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("no answer to %q: %v", body, err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(out), "method handler crashed") {
			t.Fatalf("a method crashed on %q: %s", body, out)
		}
	})
}
