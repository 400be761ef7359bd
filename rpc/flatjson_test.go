package rpc

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/rpc/eth"
)

// edgeFields holds the fields decodeFlat must read as encoding/json does
// or leave to it; the call object itself is eth.TransactionArgs.
type edgeFields struct {
	Untagged *hexutil.Uint64
	Skipped  *hexutil.Uint64 `json:"-"`
	hidden   *hexutil.Uint64 // unexported: never decoded
	Dashed   *hexutil.Uint64 `json:"a-b"` // a name outside plainName: left to encoding/json
	List     []int           `json:"list"`
	Plain    string          `json:"plain"`
}

var (
	argsType = reflect.TypeFor[eth.TransactionArgs]()
	edgeType = reflect.TypeFor[edgeFields]()
)

// flatSeeds are objects and whether decodeFlat takes them, into
// TransactionArgs or edgeFields; the others are encoding/json's.
var flatSeeds = []struct {
	typ   reflect.Type
	body  string
	taken bool
}{
	{argsType, `{"to":"0x0000000000000000000000000000000000000004","data":"0x1234"}`, true},
	{argsType, ` { "from" : "0x00000000000000000000000000000000000000aa" , "gas" : "0x5208" , "value" : "0x0" , "input" : "0x" } `, true},
	{argsType, `{"maxFeePerGas":"0x3b9aca00","maxPriorityFeePerGas":"0x1","chainId":"0x539","nonce":"0x7"}`, true},
	{argsType, `{}`, true},
	{argsType, `{"To":"0x0000000000000000000000000000000000000004"}`, false},
	{argsType, `{"to":"0x0000000000000000000000000000000000000004","to":"0x0000000000000000000000000000000000000005"}`, false},
	{argsType, `{"to":null}`, false},
	{argsType, `{"gas":21000}`, false},
	{argsType, `{"gas":"0x01"}`, false},
	{argsType, `{"gas":"0x1","accessList":[]}`, false},
	{argsType, `{"unknown":"0x1"}`, false},
	{argsType, `{"data":"0x\u0031"}`, false},
	{argsType, `{"d\u0061ta":"0x12"}`, false},
	{argsType, `{"value":"0x1"} x`, false},
	{argsType, `{"value":"0x1",}`, false},
	{argsType, `[]`, false},
	{edgeType, `{"Untagged":"0x1"}`, true},
	{edgeType, `{"Skipped":"0x1"}`, false},
	{edgeType, `{"hidden":"0x1"}`, false},
	{edgeType, `{"a-b":"0x1"}`, false},
	{edgeType, `{"list":[1]}`, false},
	{edgeType, `{"plain":"x"}`, false},
}

// TestDecodeFlatTakes checks which objects the fast decoder takes and that
// it decodes them as encoding/json does.
func TestDecodeFlatTakes(t *testing.T) {
	for _, c := range flatSeeds {
		got, ok := decodeFlat([]byte(c.body), c.typ)
		if ok != c.taken {
			t.Errorf("%v %s: taken %v, want %v", c.typ, c.body, ok, c.taken)
			continue
		}
		if ok {
			checkLikeUnmarshal(t, []byte(c.body), got)
		}
	}
}

// FuzzDecodeFlat checks decodeFlat against encoding/json: whatever it takes
// json.Unmarshal decodes to the same struct.
func FuzzDecodeFlat(f *testing.F) {
	for _, c := range flatSeeds {
		f.Add([]byte(c.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, typ := range []reflect.Type{argsType, edgeType} {
			if got, ok := decodeFlat(body, typ); ok {
				checkLikeUnmarshal(t, body, got)
			}
		}
	})
}

func checkLikeUnmarshal(t *testing.T, body []byte, got reflect.Value) {
	t.Helper()
	want := reflect.New(got.Type())
	if err := json.Unmarshal(body, want.Interface()); err != nil {
		t.Fatalf("decoded %q, json.Unmarshal: %v", body, err)
	}
	if !reflect.DeepEqual(got.Interface(), want.Elem().Interface()) {
		t.Fatalf("%q: decoded %+v, json.Unmarshal %+v", body, got.Interface(), want.Elem().Interface())
	}
}
