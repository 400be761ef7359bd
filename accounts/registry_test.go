package accounts

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"
)

func newState(t *testing.T) *state.StateDB {
	t.Helper()
	db := state.NewDatabase(triedb.NewDatabase(rawdb.NewMemoryDatabase(), nil), nil)
	st, err := state.New(types.EmptyRootHash, db)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestGenesisNumbering(t *testing.T) {
	a, b := common.HexToAddress("0x02"), common.HexToAddress("0x01")
	alloc := GenesisAlloc(types.GenesisAlloc{a: {Balance: big.NewInt(1)}, b: {Balance: big.NewInt(2)}})
	st := newState(t)
	for addr, acc := range alloc {
		st.SetNonce(addr, acc.Nonce, tracing.NonceChangeGenesis)
		st.SetBalance(addr, uint256.MustFromBig(acc.Balance), tracing.BalanceChangeUnspecified)
		for k, v := range acc.Storage {
			st.SetState(addr, k, v)
		}
	}
	for addr, want := range map[common.Address]uint64{b: 0, a: 1} {
		n, ok := ReadNative(st, addr)
		if !ok || n.Number != want || n.PubKey != nil {
			t.Errorf("%s: %+v %v, want number %d", addr, n, ok, want)
		}
	}
	// The next account gets 2.
	c := common.HexToAddress("0x03")
	st.SetBalance(c, uint256.NewInt(5), tracing.BalanceChangeUnspecified)
	tr := NewTracker()
	tr.touch(c)
	tr.touch(a)
	tr.touch(common.HexToAddress("0x04")) // touched but does not exist: no number
	if err := tr.Apply(st, types.LatestSignerForChainID(big.NewInt(1)), nil); err != nil {
		t.Fatal(err)
	}
	if n, ok := ReadNative(st, c); !ok || n.Number != 2 {
		t.Errorf("new account: %+v %v", n, ok)
	}
	if _, ok := ReadNative(st, common.HexToAddress("0x04")); ok {
		t.Error("a non-existent account got a number")
	}
}

// The public key recorded from a signed tx is the signer's, for every tx
// type and for legacy txs with and without EIP-155.
func TestPubKeyFromTx(t *testing.T) {
	key, _ := crypto.GenerateKey()
	want := crypto.CompressPubkey(&key.PublicKey)
	chainID := big.NewInt(31337)
	signer := types.LatestSignerForChainID(chainID)
	to := common.HexToAddress("0x05")
	txs := []types.TxData{
		&types.LegacyTx{Nonce: 1, GasPrice: big.NewInt(1), Gas: 21000, To: &to},
		&types.AccessListTx{ChainID: chainID, Nonce: 2, GasPrice: big.NewInt(1), Gas: 21000, To: &to},
		&types.DynamicFeeTx{ChainID: chainID, Nonce: 3, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(2), Gas: 21000, To: &to},
		&types.SetCodeTx{ChainID: uint256.MustFromBig(chainID), Nonce: 4, GasTipCap: uint256.NewInt(1), GasFeeCap: uint256.NewInt(2), Gas: 50000, To: to},
	}
	for i, data := range txs {
		tx := types.MustSignNewTx(key, signer, data)
		got, err := TxPubKey(signer, tx)
		if err != nil || string(got) != string(want) {
			t.Errorf("tx type %d: %x, %v", i, got, err)
		}
	}
	unprotected, _ := types.SignTx(types.NewTx(txs[0]), types.HomesteadSigner{}, key)
	if got, err := TxPubKey(signer, unprotected); err != nil || string(got) != string(want) {
		t.Errorf("unprotected legacy: %x, %v", got, err)
	}

	st := newState(t)
	from := crypto.PubkeyToAddress(key.PublicKey)
	st.SetBalance(from, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
	tr := NewTracker()
	tr.touch(from)
	tx := types.MustSignNewTx(key, signer, txs[2])
	if err := tr.Apply(st, signer, types.Transactions{tx}); err != nil {
		t.Fatal(err)
	}
	n, ok := ReadNative(st, from)
	if !ok || n.Number != 0 || string(n.PubKey) != string(want) {
		t.Fatalf("after first tx: %+v %v", n, ok)
	}
	if st.GetNonce(RegistryAddress) != 1 {
		t.Error("registry nonce must be 1 so EIP-161 keeps it")
	}
}
