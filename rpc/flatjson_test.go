package rpc

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// callObject has TransactionArgs' field kinds (rpc/eth cannot be imported
// here), plus fields decodeFlat must leave to encoding/json.
type callObject struct {
	From     *common.Address `json:"from"`
	To       *common.Address `json:"to"`
	Gas      *hexutil.Uint64 `json:"gas"`
	Value    *hexutil.Big    `json:"value"`
	Data     *hexutil.Bytes  `json:"data"`
	Input    *hexutil.Bytes  `json:"input,omitempty"`
	List     []int           `json:"list"`
	Plain    string          `json:"plain"`
	Untagged *hexutil.Uint64
	Skipped  *hexutil.Uint64 `json:"-"`
	hidden   *hexutil.Uint64 // unexported: never decoded
	Dashed   *hexutil.Uint64 `json:"a-b"` // a name outside plainName: left to encoding/json
}

var flatSeeds = []string{
	`{"to":"0x0000000000000000000000000000000000000004","data":"0x1234"}`,
	` { "from" : "0x00000000000000000000000000000000000000aa" , "gas" : "0x5208" , "value" : "0x0" , "input" : "0x" } `,
	`{}`,
	`{"Untagged":"0x1"}`,
	`{"To":"0x0000000000000000000000000000000000000004"}`,
	`{"to":"0x0000000000000000000000000000000000000004","to":"0x0000000000000000000000000000000000000005"}`,
	`{"to":null}`,
	`{"gas":21000}`,
	`{"gas":"0x01"}`,
	`{"gas":"0x1","list":[1]}`,
	`{"plain":"x"}`,
	`{"Skipped":"0x1"}`,
	`{"hidden":"0x1"}`,
	`{"unknown":"0x1"}`,
	`{"a-b":"0x1"}`,
	`{"data":"0x\u0031"}`,
	`{"d\u0061ta":"0x12"}`,
	`{"value":"0x1"} x`,
	`{"value":"0x1",}`,
	`[]`,
}

// TestDecodeFlatTakes checks which objects the fast decoder takes; the
// others are encoding/json's (FuzzDecodeFlat checks that what it takes it
// decodes as encoding/json does).
func TestDecodeFlatTakes(t *testing.T) {
	typ := reflect.TypeFor[callObject]()
	for i, s := range flatSeeds {
		got, ok := decodeFlat([]byte(s), typ)
		if want := i <= 3; ok != want {
			t.Errorf("%s: taken %v, want %v", s, ok, want)
			continue
		}
		if ok {
			checkLikeUnmarshal(t, []byte(s), got)
		}
	}
}

// FuzzDecodeFlat checks decodeFlat against encoding/json: whatever it takes
// json.Unmarshal decodes to the same struct.
func FuzzDecodeFlat(f *testing.F) {
	for _, s := range flatSeeds {
		f.Add([]byte(s))
	}
	typ := reflect.TypeFor[callObject]()
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, ok := decodeFlat(body, typ); ok {
			checkLikeUnmarshal(t, body, got)
		}
	})
}

func checkLikeUnmarshal(t *testing.T, body []byte, got reflect.Value) {
	t.Helper()
	var want callObject
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("decoded %q, json.Unmarshal: %v", body, err)
	}
	if !reflect.DeepEqual(got.Interface(), want) {
		t.Fatalf("%q: decoded %+v, json.Unmarshal %+v", body, got.Interface(), want)
	}
}
