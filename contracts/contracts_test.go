package contracts

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestLoad(t *testing.T) {
	tok := MustLoad("EmberToken")
	if _, ok := tok.ABI.Methods["balanceOf"]; !ok {
		t.Fatal("EmberToken ABI has no balanceOf")
	}
	data, err := tok.DeployData(big.NewInt(1000))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != len(tok.Bytecode)+32 || new(big.Int).SetBytes(data[len(data)-32:]).Int64() != 1000 {
		t.Fatalf("constructor argument not appended: %d bytes", len(data))
	}
	call, _ := tok.ABI.Pack("balanceOf", common.HexToAddress("0x01"))
	if len(call) != 36 || common.Bytes2Hex(call[:4]) != "70a08231" {
		t.Fatalf("balanceOf selector: %x", call[:4])
	}
	nft := MustLoad("EmberNFT")
	if _, ok := nft.ABI.Methods["mint"]; !ok || len(nft.DeployedBytecode) == 0 {
		t.Fatal("EmberNFT artifact incomplete")
	}
	if _, err := Load("Nope"); err == nil {
		t.Fatal("unknown contract loaded")
	}
}
