package txsender

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

func TestSetGet(t *testing.T) {
	chainID := big.NewInt(7)
	signer := types.LatestSignerForChainID(chainID)
	key, _ := crypto.GenerateKey()
	signed, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: 1, Gas: 21000, GasFeeCap: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	// A signed transaction's sender is recovered, never "set", even once
	// a signer has recovered and cached it.
	if from, err := types.Sender(signer, signed); err != nil || from != crypto.PubkeyToAddress(key.PublicKey) {
		t.Fatalf("recovered %s %v", from.Hex(), err)
	}
	if _, ok := Get(signed); ok {
		t.Fatal("a signed transaction reports a set sender")
	}

	from := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	tx := Set(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: 2, Gas: 21000, GasFeeCap: big.NewInt(1)}), from)
	if got, ok := Get(tx); !ok || got != from {
		t.Fatalf("Get = %s %v, want %s", got.Hex(), ok, from.Hex())
	}
	// Every signer answers the set sender, though the tx bears no signature.
	for _, s := range []types.Signer{signer, types.HomesteadSigner{}, types.NewCancunSigner(chainID)} {
		if got, err := types.Sender(s, tx); err != nil || got != from {
			t.Errorf("%T: sender %s %v", s, got.Hex(), err)
		}
	}
}
