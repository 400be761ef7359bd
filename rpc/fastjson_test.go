package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

var scanSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`,
	`{"jsonrpc":"2.0","id":"a\"b\u00e9","method":"eth_getBalance","params":["0x01",{"blockHash":"0x02"}]}`,
	` { "id" : -1.5e+3 , "jsonrpc" : "2.0" , "method" : "eth_call" , "params" : [ { "to" : null , "a" : [ 1 , true , false ] } ] } `,
	`{"jsonrpc":"2.0","id":null,"method":"x","params":null}`,
	`{"jsonrpc":"2.0","ID":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`,
	`{"jsonrpc":"2.0","id":01,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x"} x`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":"0x01"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":[1,]}`,
	`{"jsonrpc":"2.0","id":"\x01","method":"x"}`,
	`{"jsonr\u0070c":"2.0","id":1,"method":"x"}`,
	`{}`, `[]`, `{"id":{"a":[[[[]]]]}}`, `{"id":"\ud800"}`, `{"id":1.}`, `{"id":-}`, `{"id":tru}`,
}

// FuzzScanCall checks scanCall against encoding/json: whatever it takes is
// valid JSON that json.Unmarshal decodes to the same request.
func FuzzScanCall(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got request
		if !scanCall(body, &got) {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("scanned invalid JSON %q", body)
		}
		var want request
		if err := json.Unmarshal(body, &want); err != nil {
			t.Fatalf("scanned %q, json.Unmarshal: %v", body, err)
		}
		if got.Version != want.Version || string(got.method) != want.Method || !bytes.Equal(got.ID, want.ID) ||
			(got.Params == nil) != (want.Params == nil) || len(got.Params) != len(want.Params) {
			t.Fatalf("%q: scanned %+v, encoding/json %+v", body, got, want)
		}
		for i := range got.Params {
			if !bytes.Equal(got.Params[i], want.Params[i]) {
				t.Fatalf("%q: param %d %q, encoding/json %q", body, i, got.Params[i], want.Params[i])
			}
		}
	})
}

// TestScanCallTakes checks which seeds the scanner takes (the others are
// encoding/json's).
func TestScanCallTakes(t *testing.T) {
	for i, s := range scanSeeds {
		var req request
		if got, want := scanCall([]byte(s), &req), i < 4 || i == 12 || i == 14 || i == 15; got != want {
			t.Errorf("%s: scanned %v, want %v", s, got, want)
		}
	}
}

// TestDecodeScannedLikeUnmarshal checks argument decoding without
// encoding/json's validation pass gives what json.Unmarshal gives, null and
// errors included, for the argument types of the fast methods.
func TestDecodeScannedLikeUnmarshal(t *testing.T) {
	types := []reflect.Type{
		reflect.TypeFor[common.Address](), reflect.TypeFor[common.Hash](), reflect.TypeFor[hexutil.Bytes](),
		reflect.TypeFor[*hexutil.Bytes](), reflect.TypeFor[hexutil.Uint64](), reflect.TypeFor[gethrpc.BlockNumber](),
		reflect.TypeFor[gethrpc.BlockNumberOrHash](), reflect.TypeFor[*gethrpc.BlockNumberOrHash](), reflect.TypeFor[bool](),
		reflect.TypeFor[*bool](), reflect.TypeFor[string](), reflect.TypeFor[map[string]any](),
	}
	raws := []string{`null`, `true`, `false`, `"latest"`, `"pending"`, `"earliest"`, `"safe"`, `"finalized"`, `"Latest"`, `"0x1"`, `"0x01"`, `"0x"`, `"0x0000000000000000000000000000000000000007"`,
		`{"blockHash":"0x0000000000000000000000000000000000000000000000000000000000000001"}`, `{"blockNumber":"0x1"}`, `1`, `"abc"`, `[]`}
	for _, typ := range types {
		for _, raw := range raws {
			got, gotOK := newArgType(typ).decodeScanned([]byte(raw))
			want := reflect.New(typ)
			wantOK := json.Unmarshal([]byte(raw), want.Interface()) == nil
			if gotOK != wantOK {
				t.Errorf("%v %s: ok %v, json.Unmarshal ok %v", typ, raw, gotOK, wantOK)
				continue
			}
			if gotOK && !reflect.DeepEqual(got.Interface(), want.Elem().Interface()) {
				t.Errorf("%v %s: %#v, json.Unmarshal %#v", typ, raw, got.Interface(), want.Elem().Interface())
			}
		}
	}
}

// TestEncodeResultLikeMarshal checks results encode as json.Marshal
// encodes them.
func TestEncodeResultLikeMarshal(t *testing.T) {
	large := hexutil.Big(*new(big.Int).Lsh(common.Big1, 200))
	var nilBig *hexutil.Big
	for _, v := range []any{hexutil.Uint64(0), hexutil.Uint64(1 << 60), &large, large, nilBig, hexutil.Bytes{1, 2}, hexutil.Bytes(nil),
		common.HexToAddress("0x07"), common.Hash{1}, hexutil.Uint(7), "a<b", 7, nil, []string{"x"}, gethrpc.BlockNumber(-2)} {
		got, err := encodeResult(v)
		want, werr := json.Marshal(v)
		if string(got) != string(want) || (err == nil) != (werr == nil) {
			t.Errorf("%T %v: %s %v, json.Marshal %s %v", v, v, got, err, want, werr)
		}
	}
}

// BenchmarkFastAnswer is the fast path's own cost per request (the socket
// work and the method aside).
func BenchmarkFastAnswer(b *testing.B) {
	old := fastMethods
	fastMethods = []string{"eth_blockNumber", "eth_getBalance", "eth_call"}
	defer func() { fastMethods = old }()
	f := newFastPath(nil, map[string][]any{"eth": {testService{}}}, 1<<20, nil)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x0000000000000000000000000000000000000007","latest"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_call","params":["0x0102","latest"]}`,
	} {
		b.Run(body[34:48], func(b *testing.B) {
			var out bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				out.Reset()
				if ok, _, err := f.answer(context.Background(), []byte(body), &out); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
