package backend

import (
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/accounts/keyring"
)

func TestNaturalOrder(t *testing.T) {
	names := []string{"dev10", "dev2", "alice", "dev1", "dev01", "UTC--2025", "dev"}
	slices.SortFunc(names, naturalCompare)
	want := []string{"UTC--2025", "alice", "dev", "dev01", "dev1", "dev2", "dev10"}
	if !slices.Equal(names, want) {
		t.Fatalf("%v, want %v", names, want)
	}
}

// TestKeysAdapter: keys listed in name order, the test backend's
// passphrases ignored, go-ethereum's errors for unknown and locked keys.
func TestKeysAdapter(t *testing.T) {
	home := t.TempDir()
	kr, err := keyring.Open(home, keyring.Test)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []common.Address
	for _, name := range []string{"dev10", "dev2"} {
		key, _ := crypto.GenerateKey()
		info, err := kr.Add(name, key, "")
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, info.Address)
	}
	k, err := OpenKeys(home, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Accounts(); !slices.Equal(got, []common.Address{addrs[1], addrs[0]}) {
		t.Fatalf("order %v", got)
	}
	hash := crypto.Keccak256([]byte("x"))
	if _, err := k.SignHash(common.HexToAddress("0x1"), hash); err != accounts.ErrUnknownAccount {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := k.SignHash(addrs[0], hash); err != keystore.ErrLocked {
		t.Fatalf("locked: %v", err)
	}
	// A key the CLI stored in the test keyring has the empty passphrase; a
	// wrong one fails, as for any key.
	if err := k.TimedUnlock(addrs[0], "whatever the user typed", 0); err != keystore.ErrDecrypt {
		t.Fatalf("test backend unlock with a wrong passphrase: %v", err)
	}
	if _, err := k.SignHash(addrs[0], hash); err != keystore.ErrLocked {
		t.Fatalf("still locked: %v", err)
	}
	// A key made over personal_* keeps its passphrase in the test keyring.
	made, err := k.NewAccount("secret1")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.TimedUnlock(made, "", 1); err != keystore.ErrDecrypt {
		t.Fatalf("new key unlocked with the empty passphrase: %v", err)
	}
	if _, err := k.SignHashWithPassphrase(made, "WRONG", hash); err == nil || err.Error() != "could not decrypt key with given password" {
		t.Fatalf("new key signed with a wrong passphrase: %v", err)
	}
	if _, err := k.SignHashWithPassphrase(made, "secret1", hash); err != nil {
		t.Fatal(err)
	}
	// Dev keys (marked by UnlockDev) ignore the passphrase.
	k.dev[addrs[1]] = true
	if _, err := k.SignHashWithPassphrase(addrs[1], "anything", hash); err != nil {
		t.Fatalf("dev key: %v", err)
	}
	if err := k.TimedUnlock(addrs[0], "", 0); err != nil {
		t.Fatalf("test backend unlock: %v", err)
	}
	if _, err := k.SignHash(addrs[0], hash); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenKeys(home, "os"); err == nil {
		t.Fatal("unknown backend accepted")
	}
}
