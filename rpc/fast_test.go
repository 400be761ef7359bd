package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/rpc/eth"
	"github.com/emberchain/ember/rpc/netapi"
	"github.com/emberchain/ember/rpc/web3"
)

// testService has the method shapes of the real namespaces.
type testService struct{}

func (testService) BlockNumber() hexutil.Uint64 { return 0x1234 }
func (testService) ChainId() *hexutil.Big       { return nil }
func (testService) Version() string             { return "<ember & \u2028>" }
func (testService) GetBalance(a common.Address, b gethrpc.BlockNumberOrHash) (*hexutil.Big, error) {
	if n, ok := b.Number(); ok && n > 100 {
		return nil, errors.New("header not found")
	}
	return (*hexutil.Big)(a.Big()), nil
}
func (testService) Call(ctx context.Context, input hexutil.Bytes, b *gethrpc.BlockNumberOrHash) (hexutil.Bytes, error) {
	if len(input) == 0 {
		return nil, &dataErr{}
	}
	switch input[0] {
	case 0xff:
		panic("boom")
	case 0xfd: // the context it gets: Done nil, deadline set, 10 ms left
		at, ok := ctx.Deadline()
		return hexutil.Bytes{flag(ctx.Done() == nil), flag(ok), byte(max(time.Until(at), 0) / (10 * time.Millisecond))}, nil
	case 0xfe: // runs past its deadline
		if at, ok := ctx.Deadline(); ok {
			time.Sleep(time.Until(at) + 20*time.Millisecond)
		}
	}
	return input, nil
}

func flag(b bool) byte {
	if b {
		return 1
	}
	return 0
}
func (testService) GetCode() (*hexutil.Bytes, error) { return nil, nil }
func (testService) GetBlockByNumber(n gethrpc.BlockNumber, full bool) (json.RawMessage, error) {
	switch {
	case n > 100:
		return nil, errors.New("no such block")
	case n < 0:
		return nil, nil
	}
	return json.RawMessage(fmt.Sprintf(`{"number":%d,"full":%v}`, n, full)), nil
}
func (testService) EstimateGas(args eth.TransactionArgs) (hexutil.Uint64, error) {
	if args.Gas == nil || args.To == nil {
		return 0, errors.New("no gas or no to")
	}
	return *args.Gas + hexutil.Uint64(args.To[19]), nil
}

type dataErr struct{}

func (*dataErr) Error() string          { return "execution reverted: no" }
func (*dataErr) ErrorCode() int         { return 3 }
func (*dataErr) ErrorData() interface{} { return "0x1234" }

// TestFastPathAnswersLikeGeth serves each request through the fast path and
// through go-ethereum's server alone, and checks the answers are identical
// and that the fast path itself answered the requests it should.
func TestFastPathAnswersLikeGeth(t *testing.T) {
	geth := gethrpc.NewServer()
	if err := geth.RegisterName("eth", testService{}); err != nil {
		t.Fatal(err)
	}
	var fellBack int
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fellBack++; geth.ServeHTTP(w, r) })
	old := fastMethods
	fastMethods = []string{"eth_blockNumber", "eth_getBalance", "eth_call", "eth_getCode", "eth_estimateGas", "eth_chainId", "eth_version", "eth_getBlockByNumber"}
	defer func() { fastMethods = old }()
	fast := newFastPath(next, map[string][]any{"eth": {testService{}}}, 1<<20, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if len(fast.methods) != 8 {
		t.Fatalf("fast methods found: %d", len(fast.methods))
	}
	for name, m := range fast.methods {
		if plain := name == "eth_blockNumber" || name == "eth_chainId" || name == "eth_version"; (m.plain != nil) != plain {
			t.Errorf("%s: called without reflect = %v, want %v", name, m.plain != nil, plain)
		}
		if typed := name == "eth_getBalance" || name == "eth_getBlockByNumber"; (m.typed != nil) != typed {
			t.Errorf("%s: called with typed arguments = %v, want %v", name, m.typed != nil, typed)
		}
	}
	for _, c := range []struct {
		body string
		fast bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_version"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_version","params":[1]}`, false},
		{`{"jsonrpc":"2.0","id":"<a&b>\u00e9","method":"eth_blockNumber"}`, true},
		{`{ "jsonrpc" : "2.0" , "id" : 1e3 , "method" : "eth_blockNumber" , "params" : [ ] }`, true},
		{`{"jsonrpc":"2.0","id":"x","method":"eth_getBalance","params":["0x0000000000000000000000000000000000000007","latest"]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000007","0x1000"]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1",true]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x2",false]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1000",true]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["0x1"]}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":["0x"]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":["0xff"]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":["0x01","latest"]}`, true},
		{`{"jsonrpc":"2.0","id":null,"method":"eth_getCode"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"to":"0x0000000000000000000000000000000000000004","gas":"0x10"}]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"TO":"0x0000000000000000000000000000000000000004","gas":"0x10","accessList":[]}]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"gas":"0x10"}]}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"to":"0x04","gas":"0x10"}]}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"to":"0x0000000000000000000000000000000000000004","gas":"0x010"}]}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x07","latest"]}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000007"]}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":"0x01"}`, false},
		{`{"jsonrpc":"2.0","method":"eth_blockNumber"}`, false},
		{`[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}]`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"eth_unknown"}`, false},
	} {
		fellBack = 0
		got := serve(fast, c.body)
		if (fellBack == 0) != c.fast {
			t.Errorf("%s: fast path answered = %v, want %v", c.body, fellBack == 0, c.fast)
		}
		if want := serve(geth, c.body); got != want {
			t.Errorf("%s:\nfast %q\ngeth %q", c.body, got, want)
		}
	}
}

func serve(h http.Handler, body string) string {
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Body.String()
}

// TestFastPathBindsEmberMethods: the services Ember registers have the
// signatures plainCall and typedCall bind, so their busiest methods are
// called without reflect (a changed signature would fall back silently).
func TestFastPathBindsEmberMethods(t *testing.T) {
	services := map[string][]any{"eth": {&eth.API{}}, "net": {&netapi.API{}}, "web3": {&web3.API{}}}
	fast := newFastPath(http.NotFoundHandler(), services, 1<<20, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, name := range []string{"eth_blockNumber", "eth_chainId", "eth_baseFee", "net_version", "web3_clientVersion"} {
		if m := fast.methods[name]; m == nil || m.plain == nil {
			t.Errorf("%s: not called directly", name)
		}
	}
	for _, name := range []string{"eth_getBalance", "eth_getTransactionCount", "eth_getCode", "eth_getBlockByNumber", "eth_getBlockByHash", "eth_getTransactionReceipt"} {
		if m := fast.methods[name]; m == nil || m.typed == nil {
			t.Errorf("%s: not called with typed arguments", name)
		}
	}
}
