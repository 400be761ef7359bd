package decode

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

const notEnoughABI = `[{"type":"error","name":"NotEnough","inputs":[{"name":"have","type":"uint256"},{"name":"need","type":"uint256"}]},` +
	`{"type":"error","name":"Denied","inputs":[{"name":"","type":"address"}]}]`

// revertOf is selector(sig) followed by the ABI encoding of args.
func revertOf(t *testing.T, sig string, args abi.Arguments, vals ...any) []byte {
	t.Helper()
	packed, err := args.Pack(vals...)
	if err != nil {
		t.Fatal(err)
	}
	return append(crypto.Keccak256([]byte(sig))[:4], packed...)
}

func TestRevertData(t *testing.T) {
	a, err := abi.JSON(strings.NewReader(notEnoughABI))
	if err != nil {
		t.Fatal(err)
	}
	u256, str, addr := abi.Arguments{{Type: mustType("uint256")}}, abi.Arguments{{Type: mustType("string")}}, abi.Arguments{{Type: mustType("address")}}
	two := abi.Arguments{{Type: mustType("uint256")}, {Type: mustType("uint256")}}
	denied := common.HexToAddress("0x00000000000000000000000000000000DeaDBeef")
	for _, c := range []struct {
		name, text, json string
		data             []byte
	}{
		{"Error(string)", "not allowed",
			`{"method_call":"Error(string reason)","method_id":"08c379a0","parameters":[{"name":"reason","type":"string","value":"not allowed"}]}`,
			revertOf(t, "Error(string)", str, "not allowed")},
		{"Panic overflow", "Panic(0x11): arithmetic underflow or overflow",
			`{"method_call":"Panic(uint256 code)","method_id":"4e487b71","parameters":[{"name":"code","type":"uint256","value":"17"}]}`,
			revertOf(t, "Panic(uint256)", u256, big.NewInt(0x11))},
		{"Panic division", "Panic(0x12): division or modulo by zero", "", revertOf(t, "Panic(uint256)", u256, big.NewInt(0x12))},
		{"Panic assert", "Panic(0x01): assertion failed", "", revertOf(t, "Panic(uint256)", u256, big.NewInt(1))},
		{"Panic bounds", "Panic(0x32): array index out of bounds", "", revertOf(t, "Panic(uint256)", u256, big.NewInt(0x32))},
		{"Panic unknown", "Panic(0x99): unknown panic code", "", revertOf(t, "Panic(uint256)", u256, big.NewInt(0x99))},
		{"custom", "NotEnough(have: 1, need: 5)",
			`{"method_call":"NotEnough(uint256 have, uint256 need)","method_id":"` + common.Bytes2Hex(crypto.Keccak256([]byte("NotEnough(uint256,uint256)"))[:4]) +
				`","parameters":[{"name":"have","type":"uint256","value":"1"},{"name":"need","type":"uint256","value":"5"}]}`,
			revertOf(t, "NotEnough(uint256,uint256)", two, big.NewInt(1), big.NewInt(5))},
		{"custom unnamed (go-ethereum names it arg0)", "Denied(arg0: 0x00000000000000000000000000000000DeaDBeef)", "", revertOf(t, "Denied(address)", addr, denied)},
	} {
		r := RevertData([]*abi.ABI{nil, &a}, c.data)
		if r == nil || r.Text != c.text {
			t.Errorf("%s: %+v, want text %q", c.name, r, c.text)
			continue
		}
		if c.json != "" {
			if js, _ := json.Marshal(r.Decoded.JSON()); string(js) != c.json {
				t.Errorf("%s: %s\nwant %s", c.name, js, c.json)
			}
		}
	}
	// Not decodable: no data, a short selector, an error no ABI declares,
	// arguments cut short.
	custom := revertOf(t, "NotEnough(uint256,uint256)", two, big.NewInt(1), big.NewInt(5))
	for _, data := range [][]byte{nil, {0x08, 0xc3}, revertOf(t, "Other(uint256)", u256, big.NewInt(1)), custom[:40]} {
		if r := RevertData([]*abi.ABI{&a}, data); r != nil {
			t.Errorf("%x decoded as %+v", data, r)
		}
	}
	if r := RevertData(nil, custom); r != nil {
		t.Errorf("custom error without its ABI decoded: %+v", r)
	}
}
