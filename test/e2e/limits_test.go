package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// loopCode runs until it is out of gas or stopped: JUMPDEST PUSH0 JUMP.
const loopCode = "0x5b5f56"

// gasLeftCode returns the gas left when GAS runs.
const gasLeftCode = "0x5a5f5260205ff3"

// TestJSONRPCBounds checks each bound of the [json-rpc] section of app.toml
// on a node restarted with tight values: gas-cap, evm-timeout, http-timeout,
// txfee-cap, allow-unprotected-txs, batch-response-max-size, cors-origins,
// ws-origins and max-open-connections.
func TestJSONRPCBounds(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	key := devKeys[6]
	to := common.HexToAddress("0x00000000000000000000000000000000000000b0")

	// Default: unprotected (pre-EIP-155) transactions are refused over RPC.
	unprotected := func(nonce uint64) *types.Transaction {
		tx, err := types.SignTx(types.NewTransaction(nonce, to, big.NewInt(1), 21000, gwei(10), nil), types.HomesteadSigner{}, key.Private)
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	nonce, _ := n.Eth.PendingNonceAt(ctx(t), key.Address)
	if err := n.Eth.SendTransaction(ctx(t), unprotected(nonce)); err == nil || err.Error() != "only replay-protected (EIP-155) transactions allowed over RPC" {
		t.Fatalf("unprotected tx by default: %v", err)
	}

	n.Stop()
	setAppConfig(t, n, map[string]string{
		"gas-cap": "20000000000", "evm-timeout": `"300ms"`, "http-timeout": `"2s"`, "txfee-cap": "0.01",
		"allow-unprotected-txs": "true", "batch-response-max-size": "4096", "max-open-connections": "3",
		"cors-origins": `["https://app.example"]`, "ws-origins": `["https://app.example"]`,
	})
	n.Start("start")
	code := func(c string) map[string]any {
		return map[string]any{to.Hex(): map[string]any{"code": c}}
	}
	rpcErr := func(err error) (int, string) {
		var re rpc.Error
		if !errors.As(err, &re) {
			return 0, ""
		}
		return re.ErrorCode(), err.Error()
	}

	t.Run("gas-cap", func(t *testing.T) {
		var out hexutil.Bytes
		err := n.RPC.Call(&out, "eth_call", map[string]any{"to": to, "gas": "0xffffffffff"}, "latest", code(gasLeftCode))
		// The gas limit is capped at 2e10: 21000 intrinsic and 2 for GAS are gone.
		if left := new(big.Int).SetBytes(out); err != nil || left.Int64() != 20_000_000_000-21000-2 {
			t.Fatalf("gas left under the cap = %v, %v", left, err)
		}
	})
	t.Run("evm-timeout", func(t *testing.T) {
		var out hexutil.Bytes
		err := n.RPC.Call(&out, "eth_call", map[string]any{"to": to}, "latest", code(loopCode))
		if c, msg := rpcErr(err); c != -32000 || msg != "execution aborted (timeout = 300ms)" {
			t.Fatalf("endless call: %v", err)
		}
	})
	t.Run("http-timeout", func(t *testing.T) {
		// Under Osaka eth_estimateGas searches at most EIP-7825's 2^24 gas
		// (go-ethereum's rule), even with a block gas limit of 2e10: an
		// endless loop is answered at once.
		var gas hexutil.Uint64
		err := n.RPC.Call(&gas, "eth_estimateGas", map[string]any{"to": to}, "latest", code(loopCode), map[string]any{"gasLimit": "0x4a817c800"})
		if _, msg := rpcErr(err); msg != "gas required exceeds allowance (16777216)" {
			t.Fatalf("endless estimate: %v", err)
		}
		// A trace has no evm-timeout, only its own limit (60 s asked here):
		// the HTTP deadline ends the request. 4e9 gas is seconds of the loop,
		// which go-ethereum's tracer runs to the end (it stops the EVM on
		// its own deadline, not on the request's), so no more is asked.
		deploy := n.send(t, key.Private, txOpts{Gas: 100_000, Data: common.FromHex("0x600380600b6000396000f3" + loopCode[2:])})
		loop := n.WaitReceipt(t, deploy.Hash()).ContractAddress
		var trace json.RawMessage
		err = n.RPC.Call(&trace, "debug_traceCall", map[string]any{"to": loop, "gas": "0xee6b2800"}, "latest", map[string]any{"tracer": "callTracer", "timeout": "60s"})
		if c, msg := rpcErr(err); c != -32002 || msg != "request timed out" {
			t.Fatalf("endless trace: %v", err)
		}
		if err := n.RPC.Call(&gas, "eth_blockNumber"); err != nil {
			t.Fatalf("server after a timed-out request: %v", err)
		}
	})
	t.Run("txfee-cap", func(t *testing.T) {
		tx := n.signTx(t, key.Private, txOpts{To: &to, Value: big.NewInt(1), Gas: 1_000_000, FeeCap: gwei(100)})
		err := n.Eth.SendTransaction(ctx(t), tx)
		if err == nil || err.Error() != "tx fee (0.10 ether) exceeds the configured cap (0.01 ether)" {
			t.Fatalf("tx over the fee cap: %v", err)
		}
	})
	t.Run("allow-unprotected-txs", func(t *testing.T) {
		nonce, _ := n.Eth.PendingNonceAt(ctx(t), key.Address)
		tx := unprotected(nonce)
		if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
			t.Fatalf("unprotected tx allowed by config: %v", err)
		}
		if r := n.WaitReceipt(t, tx.Hash()); r.Status != 1 {
			t.Fatal("unprotected tx failed")
		}
	})
	t.Run("batch-response-max-size", func(t *testing.T) {
		batch := make([]rpc.BatchElem, 20)
		for i := range batch {
			batch[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{"0x0", true}, Result: new(json.RawMessage)}
		}
		if err := n.RPC.BatchCall(batch); err != nil {
			t.Fatal(err)
		}
		ok, tooLarge := 0, 0
		for _, e := range batch {
			switch c, msg := rpcErr(e.Error); {
			case e.Error == nil:
				ok++
			case c == -32003 && msg == "response too large":
				tooLarge++
			default:
				t.Fatalf("batch element error: %v", e.Error)
			}
		}
		if ok == 0 || tooLarge == 0 || ok+tooLarge != 20 {
			t.Fatalf("batch of 20 blocks under a 4 KiB response limit: %d answered, %d too large", ok, tooLarge)
		}
	})
	t.Run("cors-origins", func(t *testing.T) {
		for origin, allowed := range map[string]bool{"https://app.example": true, "https://evil.example": false} {
			req, _ := http.NewRequest(http.MethodOptions, "http://"+n.HTTP, nil)
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Access-Control-Allow-Origin"); (got == origin) != allowed {
				t.Errorf("preflight from %s: Access-Control-Allow-Origin %q", origin, got)
			}
		}
	})
	t.Run("ws-origins", func(t *testing.T) {
		for origin, allowed := range map[string]bool{"https://app.example": true, "https://evil.example": false} {
			c, err := rpc.DialOptions(ctx(t), "ws://"+n.WS, rpc.WithHeader("Origin", origin))
			if (err == nil) != allowed {
				t.Errorf("WebSocket from %s: %v", origin, err)
			}
			if err == nil {
				c.Close()
			}
		}
	})
	t.Run("max-open-connections", func(t *testing.T) {
		n.RPC.Close() // free the harness client's connection slot
		http.DefaultClient.CloseIdleConnections()
		const body = `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
		ask := func(c net.Conn, wait time.Duration) error {
			req := "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: " + itoa(len(body)) + "\r\n\r\n" + body
			if _, err := c.Write([]byte(req)); err != nil {
				return err
			}
			c.SetReadDeadline(time.Now().Add(wait))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				return err
			}
			resp.Body.Close()
			return nil
		}
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for i := 0; i < 4; i++ {
			c, err := net.Dial("tcp", n.HTTP)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
		}
		for i := 0; i < 3; i++ {
			if err := ask(conns[i], 10*time.Second); err != nil {
				t.Fatalf("connection %d of 3: %v", i, err)
			}
		}
		var ne net.Error
		if err := ask(conns[3], 500*time.Millisecond); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("a 4th connection over the limit of 3 was served: %v", err)
		}
		conns[0].Close()
		conns[3].SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conns[3]), nil)
		if err != nil || !strings.HasPrefix(resp.Status, "200") {
			t.Fatalf("the 4th connection after one closed: %v", err)
		}
		resp.Body.Close()
	})
}
