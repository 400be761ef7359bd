package decode

import (
	"encoding/json"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/contracts"
)

func TestBuiltinTable(t *testing.T) {
	fns, evs := builtin() // panics on a bad or duplicate signature
	if len(fns) != len(builtinFunctions) || len(evs) != len(builtinEvents) {
		t.Fatalf("%d functions, %d events", len(fns), len(evs))
	}
	for sel, name := range map[string]string{
		"a9059cbb": "transfer", "23b872dd": "transferFrom", "095ea7b3": "approve", "42842e0e": "safeTransferFrom",
		"b88d4fde": "safeTransferFrom", "f242432a": "safeTransferFrom", "2eb2c2d6": "safeBatchTransferFrom",
		"a22cb465": "setApprovalForAll", "f2fde38b": "transferOwnership", "ac9650d8": "multicall",
		"252dba42": "aggregate", "82ad56cb": "aggregate3", "d0e30db0": "deposit", "2e1a7d4d": "withdraw",
	} {
		if m := Builtin(common.FromHex(sel)); m == nil || m.RawName != name {
			t.Errorf("selector %s: %v, want %s", sel, m, name)
		}
	}
}

func TestInput(t *testing.T) {
	to := common.HexToAddress("0x00000000000000000000000000000000000000aB")
	tok := contracts.MustLoad("EmberToken")
	input, _ := tok.ABI.Pack("transfer", to, big.NewInt(1500))
	d := Input(nil, input)
	want := &Decoded{Name: "transfer", MethodID: "a9059cbb", MethodCall: "transfer(address to, uint256 amount)", Params: []Param{
		{Name: "to", Type: "address", Value: to.Hex()}, {Name: "amount", Type: "uint256", Value: "1500"}}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("builtin: %+v", d)
	}
	d = Input(&tok.ABI, input) // OpenZeppelin 5 names it value
	if d.MethodCall != "transfer(address to, uint256 value)" || d.Params[1].Name != "value" || d.Params[1].Value != "1500" {
		t.Fatalf("abi: %+v", d)
	}
	// Tuples and arrays nest.
	target := common.HexToAddress("0x1111111111111111111111111111111111111111")
	_, args, _ := parseSignature("aggregate3((address target, bool allowFailure, bytes callData)[] calls)")
	enc, err := args.Pack([]struct {
		Target       common.Address
		AllowFailure bool
		CallData     []byte
	}{{target, true, []byte{0xde, 0xad}}})
	if err != nil {
		t.Fatal(err)
	}
	d = Input(nil, append(common.FromHex("82ad56cb"), enc...))
	got, _ := json.Marshal(d.JSON())
	if string(got) != `{"method_call":"aggregate3((address,bool,bytes)[] calls)","method_id":"82ad56cb","parameters":[{"name":"calls","type":"(address,bool,bytes)[]","value":[["`+target.Hex()+`",true,"0xdead"]]}]}` {
		t.Fatalf("aggregate3: %s", got)
	}
	if Input(nil, common.FromHex("deadbeef")) != nil || Input(nil, common.FromHex("a9059cbb00")) != nil || MethodName(nil, common.FromHex("a9059cbb")) != "transfer" {
		t.Fatal("unknown or malformed input decoded")
	}
}

func TestLog(t *testing.T) {
	from, to := common.HexToAddress("0x01"), common.HexToAddress("0x02")
	topic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	amount := common.BigToHash(big.NewInt(77))
	// ERC-20: value in data.
	d := Log(nil, []common.Hash{topic, common.BytesToHash(from[:]), common.BytesToHash(to[:])}, amount[:])
	if d == nil || d.MethodCall != "Transfer(address indexed from, address indexed to, uint256 value)" || d.Params[2].Value != "77" || *d.Params[2].Indexed || !*d.Params[0].Indexed || d.Params[1].Value != to.Hex() {
		t.Fatalf("erc20: %+v", d)
	}
	// ERC-721: token id indexed.
	d = Log(nil, []common.Hash{topic, common.BytesToHash(from[:]), common.BytesToHash(to[:]), amount}, nil)
	if d == nil || d.Params[2].Name != "tokenId" || d.Params[2].Value != "77" || !*d.Params[2].Indexed {
		t.Fatalf("erc721: %+v", d)
	}
	var a abi.ABI
	if Log(&a, []common.Hash{common.HexToHash("0x01")}, nil) != nil || Log(nil, nil, nil) != nil {
		t.Fatal("unknown event decoded")
	}
}
