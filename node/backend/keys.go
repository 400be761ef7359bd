package backend

import (
	"cmp"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/accounts/keyring"
)

// Keys is the node's keyring served to the RPC: eth.Accounts (unlocked keys)
// and personal.Keystore (passphrases). It adapts go-ethereum's keystore on
// the keyring directory and lists keys in name order.
//
// Passphrases are used as given, on every backend: a key made by
// personal_newAccount or personal_importRawKey is encrypted with the
// passphrase sent, and unlocking or signing with it needs that passphrase.
// The one exception is `emberd dev`'s prefunded keys (UnlockDev), which
// the test keyring stores without a passphrase: for them any passphrase
// given is ignored (they are public anyway).
type Keys struct {
	kr *keyring.Keyring
	ks *keystore.KeyStore

	devMu sync.RWMutex
	dev   map[common.Address]bool // the prefunded dev keys: passphrase ignored
}

// OpenKeys opens home's keyring of the named backend.
func OpenKeys(home, backend string) (*Keys, error) {
	b, err := keyring.ParseBackend(backend)
	if err != nil {
		return nil, err
	}
	kr, err := keyring.Open(home, b)
	if err != nil {
		return nil, err
	}
	return &Keys{kr: kr, ks: kr.KeyStore(), dev: make(map[common.Address]bool)}, nil
}

func account(addr common.Address) accounts.Account { return accounts.Account{Address: addr} }

// Accounts lists the addresses by key name in natural order (dev2 before
// dev10), so that `emberd dev`'s accounts come in index order as on anvil.
func (k *Keys) Accounts() []common.Address {
	accs := k.ks.Accounts()
	slices.SortStableFunc(accs, func(a, b accounts.Account) int { return naturalCompare(keyName(a), keyName(b)) })
	out := make([]common.Address, len(accs))
	for i, a := range accs {
		out[i] = a.Address
	}
	return out
}

// keyName is the key's file name without ".json": its keyring name.
func keyName(a accounts.Account) string {
	return strings.TrimSuffix(filepath.Base(a.URL.Path), ".json")
}

// naturalCompare orders names by text, except that names differing only
// in a trailing number compare by the number.
func naturalCompare(a, b string) int {
	pa, na := splitNumber(a)
	pb, nb := splitNumber(b)
	if pa == pb && na >= 0 && nb >= 0 && na != nb {
		return cmp.Compare(na, nb)
	}
	return strings.Compare(a, b)
}

// splitNumber splits "dev12" into "dev" and 12; -1 when there is no number.
func splitNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil || i == len(s) {
		return s, -1
	}
	return s[:i], n
}

// known answers go-ethereum's "unknown account" for an address the keyring
// lacks: the keystore itself would answer "authentication needed".
func (k *Keys) known(addr common.Address) error {
	if !k.ks.HasAddress(addr) {
		return accounts.ErrUnknownAccount
	}
	return nil
}

func (k *Keys) SignHash(addr common.Address, hash []byte) ([]byte, error) {
	if err := k.known(addr); err != nil {
		return nil, err
	}
	return k.ks.SignHash(account(addr), hash)
}

func (k *Keys) SignTx(addr common.Address, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	if err := k.known(addr); err != nil {
		return nil, err
	}
	return k.ks.SignTx(account(addr), tx, chainID)
}

func (k *Keys) Wallets() []accounts.Wallet { return k.ks.Wallets() }

func (k *Keys) NewAccount(passphrase string) (common.Address, error) {
	a, err := k.ks.NewAccount(passphrase)
	return a.Address, err
}

func (k *Keys) ImportECDSA(key *ecdsa.PrivateKey, passphrase string) (common.Address, error) {
	a, err := k.ks.ImportECDSA(key, passphrase)
	return a.Address, err
}

// passphrase is what decrypts addr's key given what the client sent: the
// empty one for a prefunded dev key, else the one sent.
func (k *Keys) passphrase(addr common.Address, given string) string {
	k.devMu.RLock()
	defer k.devMu.RUnlock()
	if k.dev[addr] {
		return ""
	}
	return given
}

func (k *Keys) TimedUnlock(addr common.Address, passphrase string, timeout time.Duration) error {
	return k.ks.TimedUnlock(account(addr), k.passphrase(addr, passphrase), timeout)
}

func (k *Keys) Lock(addr common.Address) error { return k.ks.Lock(addr) }

func (k *Keys) SignHashWithPassphrase(addr common.Address, passphrase string, hash []byte) ([]byte, error) {
	return k.ks.SignHashWithPassphrase(account(addr), k.passphrase(addr, passphrase), hash)
}

func (k *Keys) SignTxWithPassphrase(addr common.Address, passphrase string, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	return k.ks.SignTxWithPassphrase(account(addr), k.passphrase(addr, passphrase), tx, chainID)
}

// UnlockDev keeps the keys of addrs unlocked until the node exits, for
// `emberd dev` (as anvil's accounts are), and marks them as the keys whose
// passphrase is ignored. Only the test keyring, where these keys have no
// passphrase, can be unlocked this way.
func (k *Keys) UnlockDev(addrs []common.Address) error {
	if k.kr.Backend() != keyring.Test {
		return errors.New("dev keys are unlocked only with the test keyring backend")
	}
	for _, a := range addrs {
		if !k.ks.HasAddress(a) {
			continue // not imported (its name was taken): nothing to unlock
		}
		if err := k.ks.TimedUnlock(account(a), "", 0); err != nil {
			return err
		}
		k.devMu.Lock()
		k.dev[a] = true
		k.devMu.Unlock()
	}
	return nil
}
