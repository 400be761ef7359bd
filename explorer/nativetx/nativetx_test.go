package nativetx

import (
	"crypto/sha256"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/store"
)

// TestDecode decodes a signed bank send plus delegation as either source
// hands it over, ran and rejected before running, and bytes that are not a
// native transaction.
func TestDecode(t *testing.T) {
	key, _ := crypto.HexToECDSA("4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318")
	from := crypto.PubkeyToAddress(key.PublicKey)
	to, op := common.HexToAddress("0x00000000000000000000000000000000000000b0"), common.HexToAddress("0x00000000000000000000000000000000000000c0")
	b := native.Builder{Prefix: "ember", Denom: "aember"}
	raw, err := native.Sign(key, []proto.Message{b.Send(from, to, big.NewInt(1234)), b.Delegate(from, op, big.NewInt(5))},
		native.SignOptions{ChainID: "ember_9000-1", Sequence: 3, GasLimit: 200_000, Fee: big.NewInt(2_000_000), Denom: "aember", Memo: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	block := types.NewBlockWithHeader(&types.Header{Number: big.NewInt(7), Time: 1_700_000_000, BaseFee: big.NewInt(3)})
	got, err := Decode(store.NativeTx{Position: 2, Raw: raw, GasWanted: 200_000, GasUsed: 90_000}, block, "ember", "aember")
	if err != nil {
		t.Fatal(err)
	}
	want := explorer.NativeTx{Hash: sha256.Sum256(raw), BlockNumber: 7, BlockHash: block.Hash(), Position: 2, Time: 1_700_000_000,
		Sender: from, Sequence: 3, Fee: big.NewInt(2_000_000), BurntFee: big.NewInt(270_000), Value: big.NewInt(1239),
		GasWanted: 200_000, GasUsed: 90_000, Memo: "hi", Msgs: []explorer.NativeMsg{
			{Type: "/cosmos.bank.v1beta1.MsgSend", To: &to, Amount: big.NewInt(1234)},
			{Type: "/cosmos.staking.v1beta1.MsgDelegate", Validator: &op, Amount: big.NewInt(5)}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, want)
	}
	// Rejected before running (no gas used): nothing charged.
	got, err = Decode(store.NativeTx{Position: 2, Raw: raw, Code: 32, Codespace: "sdk", Log: "account sequence mismatch", GasWanted: 200_000},
		block, "ember", "aember")
	if err != nil || got.Fee.Sign() != 0 || got.BurntFee.Sign() != 0 || got.Code != 32 || got.Log != "account sequence mismatch" {
		t.Fatalf("rejected: %+v (%v)", got, err)
	}
	if _, err := Decode(store.NativeTx{Raw: []byte{0x0a, 0x01}}, block, "ember", "aember"); err == nil {
		t.Fatal("garbage decoded")
	}
}
