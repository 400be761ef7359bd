package app

import (
	"context"
	"crypto/ecdsa"
	"io"
	"log/slog"
	"math/big"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/store"
	"github.com/emberchain/ember/txpool"
	"google.golang.org/protobuf/proto"
)

// newTestApp is an app on a fresh store with key funded at genesis.
func newTestApp(t testing.TB, funded common.Address) *App { return newTestChain(t, funded, false) }

// newTestChain is newTestApp with a dev chain's genesis when dev.
func newTestChain(t testing.TB, funded common.Address, dev bool) *App {
	gs := NewAppState(GenesisParams{ChainID: big.NewInt(9000), Alloc: types.GenesisAlloc{funded: {Balance: new(big.Int).Lsh(big.NewInt(1), 100)}}, Dev: dev})
	st, err := store.Open(t.TempDir(), gs.EVM.Config, store.Options{CacheMB: 8, TrieCacheMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := New(st, txpool.New(txpool.Config{}), gs, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := a.InitChain(context.Background(), &abci.RequestInitChain{ChainId: "ember_9000-1", Time: time.Unix(1_700_000_000, 0), InitialHeight: 1}); err != nil {
		t.Fatal(err)
	}
	return a
}

// newDevTestApp is newTestApp on a dev chain, with the key it funds.
func newDevTestApp(t testing.TB) (*App, *ecdsa.PrivateKey) {
	key, _ := crypto.GenerateKey()
	return newTestChain(t, crypto.PubkeyToAddress(key.PublicKey), true), key
}

// signedTransfer is the bytes of a 21,000-gas transfer of nothing from key
// with nonce to 0x01 on the test chain, tip 1 wei, fee cap 10 gwei.
func signedTransfer(t testing.TB, key *ecdsa.PrivateKey, nonce uint64) []byte {
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(9000)), &types.DynamicFeeTx{
		ChainID: big.NewInt(9000), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(10e9), Gas: 21000, To: &common.Address{1},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	return raw
}

// FuzzCheckTx feeds arbitrary bytes to CheckTx: decoding and validation must
// answer with a code, never panic, and accept (pending or queued) only
// well-formed, signed transactions of this chain.
func FuzzCheckTx(f *testing.F) {
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	from := crypto.PubkeyToAddress(key.PublicKey)
	signer := types.LatestSignerForChainID(big.NewInt(9000))
	to := common.HexToAddress("0x01")
	for i, inner := range []types.TxData{
		&types.LegacyTx{Nonce: 0, GasPrice: big.NewInt(2e9), Gas: 21000, To: &to, Value: big.NewInt(1)},
		&types.AccessListTx{ChainID: big.NewInt(9000), Nonce: 0, GasPrice: big.NewInt(2e9), Gas: 30000, To: &to, AccessList: types.AccessList{{Address: to, StorageKeys: []common.Hash{{1}}}}},
		&types.DynamicFeeTx{ChainID: big.NewInt(9000), Nonce: 0, GasTipCap: big.NewInt(1), GasFeeCap: big.NewInt(2e9), Gas: 100000, Data: []byte{0x60, 0x00}},
	} {
		tx, err := types.SignNewTx(key, signer, inner)
		if err != nil {
			f.Fatal(i, err)
		}
		raw, _ := tx.MarshalBinary()
		f.Add(raw)
	}
	f.Add([]byte{})
	f.Add([]byte{0x03, 0xc0})
	// Native (Cosmos TxRaw) seeds: a signed MsgSend, and truncated copies.
	b := native.Builder{Prefix: DefaultPrefix, Denom: DefaultDenom}
	nativeRaw, err := native.Sign(key, []proto.Message{b.Send(from, to, big.NewInt(1))}, native.SignOptions{
		ChainID: "ember_9000-1", AccountNumber: 0, Sequence: 0, GasLimit: 200_000, Fee: big.NewInt(200_000 * 2e9), Denom: DefaultDenom})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(nativeRaw)
	f.Add(nativeRaw[:len(nativeRaw)/2])
	f.Add([]byte{0x0a, 0x02, 0x0a})
	a := newTestApp(f, from)
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw, Type: abci.CheckTxType_New})
		if err != nil {
			t.Fatalf("CheckTx error: %v", err)
		}
		if native.IsNative(raw) {
			if res.Code == CodeOK {
				if _, err := native.Decode(raw, DefaultPrefix, DefaultDenom); err != nil {
					t.Fatalf("accepted undecodable native bytes %x", raw)
				}
				a.pool.Remove(txpool.KeyOf(raw))
			}
			return
		}
		if res.Code == CodeOK || res.Code == CodeQueued {
			tx, err := DecodeTx(raw)
			if err != nil {
				t.Fatalf("accepted undecodable bytes %x", raw)
			}
			if _, err := types.Sender(types.LatestSigner(a.config), tx); err != nil {
				t.Fatalf("accepted a tx without a valid sender: %v", err)
			}
			// Forget it so the seed can be accepted again in later runs.
			a.pool.Remove(txpool.KeyOf(raw))
		}
	})
}
