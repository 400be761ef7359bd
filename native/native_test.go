package native

import (
	"bytes"
	"math/big"
	"strings"
	"testing"

	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/staking"
)

var testKey, _ = crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")

func sign(t *testing.T, o SignOptions, msgs ...proto.Message) []byte {
	t.Helper()
	if o.Denom == "" {
		o.Denom = "aember"
	}
	raw, err := Sign(testKey, msgs, o)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestDecodeAndVerify(t *testing.T) {
	from := crypto.PubkeyToAddress(testKey.PublicKey)
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	b := Builder{Prefix: "ember", Denom: "aember"}
	for _, sig65 := range []bool{false, true} {
		raw := sign(t, SignOptions{ChainID: "ember_9000-1", AccountNumber: 7, Sequence: 3, GasLimit: 100_000, Fee: big.NewInt(1e15), Sig65: sig65, Memo: "hi"},
			b.Send(from, to, big.NewInt(5)))
		if !IsNative(raw) {
			t.Fatal("TxRaw not recognised")
		}
		tx, err := Decode(raw, "ember", "aember")
		if err != nil {
			t.Fatal(err)
		}
		if tx.Signer != from || tx.Sequence != 3 || tx.GasLimit != 100_000 || tx.Fee.Int64() != 1e15 || len(tx.Msgs) != 1 ||
			tx.Msgs[0].To != to || tx.Msgs[0].Amount.Int64() != 5 || !bytes.Equal(tx.PubKey, crypto.CompressPubkey(&testKey.PublicKey)) {
			t.Fatalf("decoded %+v", tx)
		}
		if tx.Spend().Int64() != 1e15+5 {
			t.Fatalf("spend %v", tx.Spend())
		}
		if !tx.Verify(tx.PubKey, "ember_9000-1", 7) {
			t.Fatal("signature does not verify")
		}
		for _, c := range []struct {
			chain string
			num   uint64
		}{{"ember_9000-2", 7}, {"ember_9000-1", 8}} {
			if tx.Verify(tx.PubKey, c.chain, c.num) {
				t.Fatalf("verifies for %s/%d", c.chain, c.num)
			}
		}
		// The signature is over keccak256(SignDoc): check against the
		// published SignDoc type directly.
		doc, _ := proto.MarshalOptions{Deterministic: true}.Marshal(&txv1beta1.SignDoc{BodyBytes: tx.BodyBytes, AuthInfoBytes: tx.AuthInfoBytes, ChainId: "ember_9000-1", AccountNumber: 7})
		if !crypto.VerifySignature(tx.PubKey, crypto.Keccak256(doc), tx.Signature) {
			t.Fatal("not a signature over keccak256(SignDoc)")
		}
	}
}

func TestDecodeRefusals(t *testing.T) {
	from := crypto.PubkeyToAddress(testKey.PublicKey)
	b := Builder{Prefix: "ember", Denom: "aember"}
	ok := SignOptions{ChainID: "c_1-1", GasLimit: 100_000, Fee: big.NewInt(1)}
	other := common.Address{1}
	cases := []struct {
		name string
		raw  []byte
		code uint32
		text string
	}{
		{"garbage", []byte{0x0a, 0x05, 1}, module.CodeTxDecode, "tx parse error"},
		{"no messages", sign(t, ok), module.CodeInvalidRequest, "must contain at least one message"},
		{"foreign signer", sign(t, ok, b.Send(other, from, big.NewInt(1))), module.CodeInvalidPubKey, "does not match the signer"},
		{"two signers", sign(t, ok, b.Send(from, other, big.NewInt(1)), b.Send(other, from, big.NewInt(1))), module.CodeInvalidSigner, "one signer per transaction"},
		{"zero amount", sign(t, ok, b.Send(from, other, big.NewInt(0))), module.CodeInvalidCoins, "amount must be positive"},
		{"other denom", sign(t, ok, &bankv1beta1.MsgSend{FromAddress: accounts.Bech32("ember", from), ToAddress: accounts.Bech32("ember", other),
			Amount: []*basev1beta1.Coin{{Denom: "uatom", Amount: "1"}}}), module.CodeInvalidCoins, `denom "uatom"`},
		{"bad address", sign(t, ok, &bankv1beta1.MsgSend{FromAddress: "cosmos1xyz", ToAddress: accounts.Bech32("ember", other),
			Amount: []*basev1beta1.Coin{{Denom: "aember", Amount: "1"}}}), module.CodeInvalidAddress, "invalid from_address"},
		{"long memo", sign(t, SignOptions{ChainID: "c_1-1", GasLimit: 1, Memo: strings.Repeat("x", 257)}, b.Send(from, other, big.NewInt(1))), module.CodeMemoTooLarge, "received 257 characters"},
		{"small self-bond", sign(t, ok, b.CreateValidator(from, make([]byte, 32), "m", big.NewInt(1))), module.CodeInvalidRequest, "below 1 voting power"},
		{"no moniker", sign(t, ok, b.CreateValidator(from, make([]byte, 32), "", new(big.Int).Lsh(big.NewInt(1), 70))), module.CodeInvalidRequest, "moniker"},
	}
	for _, c := range cases {
		_, err := Decode(c.raw, "ember", "aember")
		e, isErr := err.(*module.Error)
		if !isErr || e.Code != c.code || !strings.Contains(e.Error(), c.text) {
			t.Errorf("%s: %v; want code %d containing %q", c.name, err, c.code, c.text)
		}
	}
	// A TxRaw whose bytes are not canonical is refused: one tx, one hash.
	raw := sign(t, ok, b.Send(from, other, big.NewInt(1)))
	var txRaw txv1beta1.TxRaw
	_ = proto.Unmarshal(raw, &txRaw)
	swapped := append(append([]byte{}, raw[len(raw)-66:]...), raw[:len(raw)-66]...) // signature field first
	if _, err := Decode(swapped, "ember", "aember"); err == nil {
		t.Error("non-canonical field order accepted")
	}
}

func TestGasIsDeterministic(t *testing.T) {
	from := crypto.PubkeyToAddress(testKey.PublicKey)
	b := Builder{Prefix: "ember", Denom: "aember"}
	msgs := []proto.Message{b.Send(from, common.Address{1}, big.NewInt(1)), b.Delegate(from, common.Address{2}, big.NewInt(1))}
	o := SignOptions{ChainID: "c_1-1", GasLimit: 123_456, Fee: big.NewInt(99_999), Denom: "aember"}
	raw := sign(t, o, msgs...)
	tx, err := Decode(raw, "ember", "aember")
	if err != nil {
		t.Fatal(err)
	}
	if want := uint64(GasTxBase + GasPerByte*len(raw) + bank.GasMsgSend + staking.GasMsgDelegate); tx.GasUsed() != want {
		t.Fatalf("gas %d, want %d", tx.GasUsed(), want)
	}
	est, err := EstimateGas(testKey, msgs, o, "ember", "aember")
	if err != nil || est < tx.GasUsed() || est > tx.GasUsed()+GasPerByte*40 {
		t.Fatalf("estimate %d for gas %d: %v", est, tx.GasUsed(), err)
	}
}
