package personal

import (
	"context"
	"crypto/ecdsa"
	"io"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/rpc/eth"
)

// ks adapts go-ethereum's keystore to Keystore, as the node does.
type ks struct{ *keystore.KeyStore }

func acc(a common.Address) accounts.Account { return accounts.Account{Address: a} }

func (k ks) Accounts() []common.Address {
	var out []common.Address
	for _, a := range k.KeyStore.Accounts() {
		out = append(out, a.Address)
	}
	return out
}
func (k ks) NewAccount(p string) (common.Address, error) {
	a, err := k.KeyStore.NewAccount(p)
	return a.Address, err
}
func (k ks) ImportECDSA(key *ecdsa.PrivateKey, p string) (common.Address, error) {
	a, err := k.KeyStore.ImportECDSA(key, p)
	return a.Address, err
}
func (k ks) TimedUnlock(a common.Address, p string, d time.Duration) error {
	return k.KeyStore.TimedUnlock(acc(a), p, d)
}
func (k ks) SignHashWithPassphrase(a common.Address, p string, h []byte) ([]byte, error) {
	return k.KeyStore.SignHashWithPassphrase(acc(a), p, h)
}
func (k ks) SignTxWithPassphrase(a common.Address, p string, tx *types.Transaction, id *big.Int) (*types.Transaction, error) {
	return k.KeyStore.SignTxWithPassphrase(acc(a), p, tx, id)
}

// noSender fails the test if a send gets that far.
type noSender struct{ t *testing.T }

func (s noSender) Send(context.Context, eth.TransactionArgs, eth.SignFunc) (common.Hash, error) {
	s.t.Fatal("sent")
	return common.Hash{}, nil
}
func (s noSender) Sign(context.Context, eth.TransactionArgs, eth.SignFunc) (*eth.SignTransactionResult, error) {
	s.t.Fatal("signed")
	return nil, nil
}

func newTestAPI(t *testing.T) (*API, common.Address) {
	store := ks{keystore.NewKeyStore(t.TempDir(), keystore.LightScryptN, keystore.LightScryptP)}
	api := NewAPI(store, noSender{t}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	addr, err := api.NewAccount("pw")
	if err != nil {
		t.Fatal(err)
	}
	return api, common.Address(addr)
}

func TestSignAndRecover(t *testing.T) {
	api, addr := newTestAPI(t)
	msg := hexutil.Bytes("hello")
	sig, err := api.Sign(msg, addr, "pw")
	if err != nil || (sig[64] != 27 && sig[64] != 28) {
		t.Fatalf("sign: %x %v", sig, err)
	}
	got, err := api.EcRecover(msg, sig)
	if err != nil || got != addr || sig[64] < 27 {
		t.Fatalf("recovered %s (%v), want %s; the signature must be left as given", got.Hex(), err, addr.Hex())
	}
	if _, err := api.Sign(msg, addr, "wrong"); err != keystore.ErrDecrypt {
		t.Fatalf("wrong passphrase: %v", err)
	}
	if _, err := api.Sign(msg, common.HexToAddress("0x1"), "pw"); err != accounts.ErrUnknownAccount {
		t.Fatalf("unknown account: %v", err)
	}
}

func TestUnlockAndWallets(t *testing.T) {
	api, addr := newTestAPI(t)
	status := func() string { return api.ListWallets()[0].Status }
	if ok, err := api.UnlockAccount(addr, "pw", nil); !ok || err != nil || status() != "Unlocked" {
		t.Fatalf("unlock with the default duration: %v %v %s", ok, err, status())
	}
	if !api.LockAccount(addr) || status() != "Locked" {
		t.Fatal("lock")
	}
	huge := maxUnlock + 1
	if _, err := api.UnlockAccount(addr, "pw", &huge); err == nil || err.Error() != "unlock duration too large" {
		t.Fatalf("too long: %v", err)
	}
	one := uint64(1)
	if ok, _ := api.UnlockAccount(addr, "pw", &one); !ok {
		t.Fatal("unlock for 1 s")
	}
	time.Sleep(1200 * time.Millisecond)
	if status() != "Locked" {
		t.Fatal("still unlocked after 1 s")
	}
	url := api.ListWallets()[0].URL
	if err := api.OpenWallet(url, nil); err != nil {
		t.Fatalf("open a key file wallet: %v", err)
	}
	if err := api.OpenWallet("keystore:///nowhere", nil); err != accounts.ErrUnknownWallet {
		t.Fatalf("open an unknown wallet: %v", err)
	}
	if _, err := api.DeriveAccount(url, "m/44'/60'/0'/0/0", nil); err != accounts.ErrNotSupported {
		t.Fatalf("derive: %v", err)
	}
	if _, err := api.InitializeWallet(url); err != errNoSmartcard {
		t.Fatalf("initializeWallet: %v", err)
	}
	if err := api.Unpair(url, "0000"); err != errNoSmartcard {
		t.Fatalf("unpair: %v", err)
	}
}

func TestSendNeedsKnownAccount(t *testing.T) {
	api, _ := newTestAPI(t)
	stranger := common.HexToAddress("0x1")
	if _, err := api.SendTransaction(context.Background(), eth.TransactionArgs{From: &stranger}, "pw"); err != accounts.ErrUnknownAccount {
		t.Fatalf("send: %v", err)
	}
	if _, err := api.SignTransaction(context.Background(), eth.TransactionArgs{}, "pw"); err != accounts.ErrUnknownAccount {
		t.Fatalf("sign: %v", err)
	}
}
