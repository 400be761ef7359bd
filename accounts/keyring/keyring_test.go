package keyring

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestAddListDecrypt runs a key's life on both backends; the file backend
// with light scrypt (TestScryptCost checks the standard cost is the
// default), so its key files are read as the standard ones are.
func TestAddListDecrypt(t *testing.T) {
	for _, backend := range []Backend{Test, File} {
		t.Run(string(backend), func(t *testing.T) {
			kr, err := Open(t.TempDir(), backend, LightScrypt())
			if err != nil {
				t.Fatal(err)
			}
			priv, _ := crypto.GenerateKey()
			addr := crypto.PubkeyToAddress(priv.PublicKey)
			if _, err := kr.Add("alice", priv, "pw"); err != nil {
				t.Fatal(err)
			}
			if _, err := kr.Add("alice", priv, "pw"); !errors.Is(err, ErrExists) {
				t.Errorf("same name again: %v", err)
			}
			if _, err := kr.Add("bob", priv, "pw"); !errors.Is(err, ErrExists) {
				t.Errorf("same key under another name: %v", err)
			}
			if _, err := kr.Add("../evil", priv, "pw"); err == nil {
				t.Error("a path as a name was accepted")
			}
			list, err := kr.List()
			if err != nil || len(list) != 1 || list[0].Name != "alice" || list[0].Address != addr {
				t.Fatalf("list = %+v, %v", list, err)
			}
			got, err := kr.Decrypt("alice", "pw")
			if err != nil || !got.Equal(priv) {
				t.Fatalf("decrypt: %v", err)
			}
			_, err = kr.Decrypt("alice", "wrong")
			if backend == File && err == nil {
				t.Error("file backend decrypted with a wrong passphrase")
			}
			if backend == Test && err != nil {
				t.Errorf("test backend must ignore the passphrase: %v", err)
			}
			// geth's keystore on the same directory sees and unlocks the key.
			ks := kr.KeyStore()
			if !ks.HasAddress(addr) {
				t.Fatal("geth keystore does not see the key")
			}
			if err := ks.Unlock(accounts.Account{Address: addr}, kr.Passphrase("pw")); err != nil {
				t.Fatalf("geth keystore unlock: %v", err)
			}
			if err := kr.Delete("alice", "pw"); err != nil {
				t.Fatal(err)
			}
			if _, err := kr.Get("alice"); !errors.Is(err, ErrNotFound) {
				t.Errorf("after delete: %v", err)
			}
		})
	}
}

func TestAddAll(t *testing.T) {
	kr, err := Open(t.TempDir(), Test)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := crypto.GenerateKey()
	b, _ := crypto.GenerateKey()
	c, _ := crypto.GenerateKey()
	if _, err := kr.Add("a", a, ""); err != nil {
		t.Fatal(err)
	}
	errs, err := kr.AddAll([]NamedKey{{"a", a}, {"b", b}, {"b", c}, {"../x", c}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(errs[0], ErrAddressStored) || errs[1] != nil || !errors.Is(errs[2], ErrExists) || errors.Is(errs[2], ErrAddressStored) || errs[3] == nil {
		t.Fatalf("errs = %v", errs)
	}
	list, _ := kr.List()
	if len(list) != 2 || list[1].Name != "b" || list[1].Address != crypto.PubkeyToAddress(b.PublicKey) {
		t.Fatalf("list = %+v", list)
	}
}

// TestTestBackendPassphraseKey: a key the node's keystore made in the test
// keyring with a passphrase (personal_newAccount) decrypts with that
// passphrase only, while keys this package wrote take any.
func TestTestBackendPassphraseKey(t *testing.T) {
	kr, err := Open(t.TempDir(), Test)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := kr.KeyStore().NewAccount("secret1")
	if err != nil {
		t.Fatal(err)
	}
	list, err := kr.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("list %v %v", list, err)
	}
	for _, wrong := range []string{"", "WRONG"} {
		if _, err := kr.Decrypt(list[0].Name, wrong); !errors.Is(err, keystore.ErrDecrypt) {
			t.Errorf("decrypt with %q: %v", wrong, err)
		}
	}
	key, err := kr.Decrypt(list[0].Name, "secret1")
	if err != nil || crypto.PubkeyToAddress(key.PublicKey) != acc.Address {
		t.Fatalf("decrypt with the passphrase: %v", err)
	}
	if err := kr.Delete(list[0].Name, ""); !errors.Is(err, keystore.ErrDecrypt) {
		t.Fatalf("delete without the passphrase: %v", err)
	}
}

// TestScryptCost: the file backend writes keys at geth's standard scrypt
// cost unless opened with LightScrypt; the test backend's own keys cost
// nothing, and keys under a passphrase it holds (personal_*, exports) the
// light cost. (test/e2e's TestKeysFileScryptCost reads the cost `emberd
// keys add` writes.)
func TestScryptCost(t *testing.T) {
	type cost struct{ n, p int }
	light, standard := cost{keystore.LightScryptN, keystore.LightScryptP}, cost{keystore.StandardScryptN, keystore.StandardScryptP}
	for _, tc := range []struct {
		backend          Backend
		opts             []Option
		keys, passphrase cost
	}{
		{File, nil, standard, standard},
		{File, []Option{LightScrypt()}, light, light},
		{Test, nil, cost{testScryptN, 1}, light},
		{Test, []Option{LightScrypt()}, cost{testScryptN, 1}, light},
	} {
		kr, err := Open(t.TempDir(), tc.backend, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		var keys, pass cost
		keys.n, keys.p = kr.Scrypt()
		pass.n, pass.p = kr.PassphraseScrypt()
		if keys != tc.keys || pass != tc.passphrase {
			t.Errorf("%s with %d options: keys %+v, passphrase keys %+v; want %+v, %+v", tc.backend, len(tc.opts), keys, pass, tc.keys, tc.passphrase)
		}
	}
}
