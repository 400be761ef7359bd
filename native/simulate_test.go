package native

import (
	"math/big"
	"testing"

	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/module"
)

// TestDecodeSimulation: the tx cosmjs simulates (unsigned, the SDK's key
// type, no fee) gives the gas of the signed tx to within the fee's and gas
// limit's digits, never below it.
func TestDecodeSimulation(t *testing.T) {
	from := crypto.PubkeyToAddress(testKey.PublicKey)
	b := Builder{Prefix: "ember", Denom: "aember"}
	msg := b.Send(from, common.HexToAddress("0xaa"), big.NewInt(5))
	signed := sign(t, SignOptions{ChainID: "c", Sequence: 2, GasLimit: 60_000, Fee: big.NewInt(120_000_000_000_000), Memo: "m"}, msg)
	want, err := Decode(signed, "ember", "aember")
	if err != nil {
		t.Fatal(err)
	}

	// As cosmjs builds it: the same body, the key as /cosmos.crypto.secp256k1.PubKey,
	// SIGN_MODE_UNSPECIFIED, an empty fee and an empty signature.
	var raw txv1beta1.TxRaw
	if err := proto.Unmarshal(signed, &raw); err != nil {
		t.Fatal(err)
	}
	var auth txv1beta1.AuthInfo
	if err := proto.Unmarshal(raw.AuthInfoBytes, &auth); err != nil {
		t.Fatal(err)
	}
	auth.SignerInfos[0].PublicKey.TypeUrl = sdkPubKeyType
	auth.SignerInfos[0].ModeInfo = &txv1beta1.ModeInfo{Sum: &txv1beta1.ModeInfo_Single_{Single: &txv1beta1.ModeInfo_Single{}}}
	auth.Fee = &txv1beta1.Fee{}
	authBytes, _ := proto.Marshal(&auth)
	unsigned, _ := proto.Marshal(&txv1beta1.TxRaw{BodyBytes: raw.BodyBytes, AuthInfoBytes: authBytes, Signatures: [][]byte{{}}})

	sim, err := DecodeSimulation(unsigned, "ember", "aember")
	if err != nil {
		t.Fatal(err)
	}
	got, charged := sim.Tx.GasUsed(), want.GasUsed()
	if got < charged || got-charged > 500 || sim.GasWanted != 0 || sim.Tx.Sequence != 2 || sim.Tx.Signer != from || sim.Tx.Fee.Sign() != 0 {
		t.Fatalf("simulated gas %d (charged %d), wanted %d, seq %d, signer %v, fee %v", got, charged, sim.GasWanted, sim.Tx.Sequence, sim.Tx.Signer, sim.Tx.Fee)
	}
	if _, err := DecodeSimulation([]byte{1, 2, 3}, "ember", "aember"); module.AsError(err).Code != module.CodeTxDecode {
		t.Fatalf("garbage: %v", err)
	}
}
