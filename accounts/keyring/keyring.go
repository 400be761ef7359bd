// Package keyring stores the node's and the CLI's secp256k1 keys as
// go-ethereum keystore files (Web3 Secret Storage v3, scrypt), one file per
// key, in <home>/keyring-<backend>/. The directory is a valid geth keystore:
// geth, MetaMask and Foundry read its files, and the node serves it through
// go-ethereum's accounts/keystore (unlocking, signing).
//
// A key's name is its file name without ".json". Keys the node creates
// (personal_newAccount, personal_importRawKey) get geth's UTC--… file names
// and are listed under those.
package keyring

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

// Backend selects how keys are protected at rest.
type Backend string

const (
	// Test keeps keys encrypted with the empty passphrase and light scrypt
	// parameters: any passphrase given is ignored. For development chains
	// only, as Cosmos' test keyring.
	Test Backend = "test"
	// File encrypts each key with its own passphrase and geth's standard
	// scrypt parameters (N=2^18, p=1).
	File Backend = "file"
)

// ParseBackend checks a --keyring-backend value.
func ParseBackend(s string) (Backend, error) {
	switch b := Backend(s); b {
	case Test, File:
		return b, nil
	}
	return "", fmt.Errorf("unknown keyring backend %q: want test or file", s)
}

// Errors callers match on.
var (
	ErrNotFound = errors.New("key not found")
	ErrExists   = errors.New("key already exists")
	// ErrAddressStored is the ErrExists of a key whose address is stored
	// already, under any name.
	ErrAddressStored = fmt.Errorf("%w: address already stored", ErrExists)
)

var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$`)

// Info describes a stored key without decrypting it.
type Info struct {
	Name    string
	Address common.Address
	Path    string
	// PubKey is the 33-byte compressed public key when the file records it
	// (keys added through Add do; files written by geth do not), else nil.
	PubKey []byte
}

// pubKeyField is the extra key-file field holding the compressed public key
// in hex, so `keys list/show` can print it without a passphrase. Web3 Secret
// Storage readers (geth, ethers, MetaMask) ignore unknown fields; the "x-"
// prefix follows ethers' "x-ethers".
const pubKeyField = "x-ember-pubkey"

// Keyring is one backend's key directory. Its methods are safe for use by
// one process at a time per key; the node's keystore watches the directory
// and sees keys the CLI adds while it runs.
type Keyring struct {
	dir     string
	backend Backend
	light   bool // LightScrypt
}

// Option adjusts a keyring at Open.
type Option func(*Keyring)

// LightScrypt makes the keyring encrypt the keys it writes under a
// passphrase with go-ethereum's light scrypt cost (N = 2^12, p = 6) instead
// of the standard one (N = 2^18, p = 1, 256 MiB of memory per key and as
// much hashing): for tests, which would otherwise spend most of their time
// in scrypt, never for keys that matter. Reading is unaffected: a key file
// records its own cost, so keys of either cost are read alike.
func LightScrypt() Option { return func(k *Keyring) { k.light = true } }

// Open returns the keyring of backend under home, creating its directory.
func Open(home string, backend Backend, opts ...Option) (*Keyring, error) {
	dir := filepath.Join(home, "keyring-"+string(backend))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	k := &Keyring{dir: dir, backend: backend}
	for _, o := range opts {
		o(k)
	}
	return k, nil
}

// Dir is the keystore directory.
func (k *Keyring) Dir() string { return k.dir }

// Backend is the keyring's backend.
func (k *Keyring) Backend() Backend { return k.backend }

// Passphrase is the passphrase that protects the keys this package writes
// (the CLI's, `emberd dev`'s) given what the user typed: the test backend
// ignores it. Keys the node creates over personal_* keep theirs (KeyStore).
func (k *Keyring) Passphrase(given string) string {
	if k.backend == Test {
		return ""
	}
	return given
}

// testScryptN is the scrypt cost of the test backend: its passphrase is
// empty, so a cost buys no safety and only slows `emberd dev`, which imports
// and unlocks every prefunded key at start (1,000 keys took 100 s with
// geth's light cost). 2 is scrypt's minimum.
const testScryptN = 2

// Scrypt returns the scrypt cost parameters new keys are encrypted with.
func (k *Keyring) Scrypt() (n, p int) {
	if k.backend == Test {
		return testScryptN, 1
	}
	return k.PassphraseScrypt()
}

// PassphraseScrypt is the scrypt cost of a key encrypted under a passphrase
// someone chose: the file backend's keys, the keys the node creates over
// personal_* and exported key files. It is the standard cost, except for
// the test backend's development keys and a keyring opened with
// LightScrypt, which get geth's light one.
func (k *Keyring) PassphraseScrypt() (n, p int) {
	if k.backend == Test || k.light {
		return keystore.LightScryptN, keystore.LightScryptP
	}
	return keystore.StandardScryptN, keystore.StandardScryptP
}

// KeyStore opens go-ethereum's keystore on the directory, for unlocking and
// signing in the node. The keys it creates (personal_newAccount,
// personal_importRawKey) are encrypted with the passphrase the client
// sends, on every backend, at PassphraseScrypt's cost.
func (k *Keyring) KeyStore() *keystore.KeyStore {
	n, p := k.PassphraseScrypt()
	return keystore.NewKeyStore(k.dir, n, p)
}

// List returns every key, sorted by name.
func (k *Keyring) List() ([]Info, error) {
	entries, err := os.ReadDir(k.dir)
	if err != nil {
		return nil, fmt.Errorf("keyring: %w", err)
	}
	var out []Info
	for _, e := range entries {
		// geth's keystore skips the same files: hidden, editor backups, dirs.
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), "~") {
			continue
		}
		path := filepath.Join(k.dir, e.Name())
		addr, pub, err := fileAddress(path)
		if err != nil {
			continue // not a key file
		}
		out = append(out, Info{Name: strings.TrimSuffix(e.Name(), ".json"), Address: addr, Path: path, PubKey: pub})
	}
	slices.SortFunc(out, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// fileAddress reads the address field of a keystore file, and the public
// key when recorded and consistent with the address (a key that does not
// hash to the address is ignored rather than shown).
func fileAddress(path string) (common.Address, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return common.Address{}, nil, err
	}
	var f struct {
		Address string `json:"address"`
		PubKey  string `json:"x-ember-pubkey"`
	}
	if err := json.Unmarshal(raw, &f); err != nil || !common.IsHexAddress(f.Address) {
		return common.Address{}, nil, fmt.Errorf("%s: not a keystore file", path)
	}
	addr := common.HexToAddress(f.Address)
	pub, err := hexutil.Decode(f.PubKey)
	if err != nil {
		return addr, nil, nil
	}
	if key, err := crypto.DecompressPubkey(pub); err != nil || crypto.PubkeyToAddress(*key) != addr {
		return addr, nil, nil
	}
	return addr, pub, nil
}

// withPubKey adds the compressed public key to a key file's JSON.
func withPubKey(keyJSON []byte, priv *ecdsa.PrivateKey) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(keyJSON, &fields); err != nil {
		return nil, err
	}
	pub, _ := json.Marshal(hexutil.Encode(crypto.CompressPubkey(&priv.PublicKey)))
	fields[pubKeyField] = pub
	return json.Marshal(fields)
}

// Get finds a key by name.
func (k *Keyring) Get(name string) (Info, error) {
	list, err := k.List()
	if err != nil {
		return Info{}, err
	}
	for _, i := range list {
		if i.Name == name {
			return i, nil
		}
	}
	return Info{}, fmt.Errorf("%w: %q in %s", ErrNotFound, name, k.dir)
}

// Find finds a key by address.
func (k *Keyring) Find(addr common.Address) (Info, error) {
	list, err := k.List()
	if err != nil {
		return Info{}, err
	}
	for _, i := range list {
		if i.Address == addr {
			return i, nil
		}
	}
	return Info{}, fmt.Errorf("%w: no key for %s in %s", ErrNotFound, addr.Hex(), k.dir)
}

// ValidateName checks a key name: it becomes a file name, so no paths.
func ValidateName(name string) error {
	if !namePattern.MatchString(name) {
		return fmt.Errorf("invalid key name %q: letters, digits and _ . @ - only, at most 64, not starting with a symbol", name)
	}
	return nil
}

// Add stores priv under name, encrypted with passphrase (ignored by the test
// backend). A name or an address already present is refused.
func (k *Keyring) Add(name string, priv *ecdsa.PrivateKey, passphrase string) (Info, error) {
	if err := ValidateName(name); err != nil {
		return Info{}, err
	}
	list, err := k.List()
	if err != nil {
		return Info{}, err
	}
	if err := conflict(list, name, crypto.PubkeyToAddress(priv.PublicKey)); err != nil {
		return Info{}, err
	}
	return k.write(name, priv, passphrase)
}

// NamedKey is a key to store under a name.
type NamedKey struct {
	Name string
	Key  *ecdsa.PrivateKey
}

// AddAll stores many keys reading the directory once (Add reads it per
// key, which is quadratic for the thousand keys of a large dev chain). It
// returns, per key, nil or why it was not stored: ErrExists for a name or
// address already present, or an invalid name.
func (k *Keyring) AddAll(keys []NamedKey, passphrase string) ([]error, error) {
	list, err := k.List()
	if err != nil {
		return nil, err
	}
	errs := make([]error, len(keys))
	for i, nk := range keys {
		if errs[i] = ValidateName(nk.Name); errs[i] != nil {
			continue
		}
		if errs[i] = conflict(list, nk.Name, crypto.PubkeyToAddress(nk.Key.PublicKey)); errs[i] != nil {
			continue
		}
		info, err := k.write(nk.Name, nk.Key, passphrase)
		if err != nil {
			return errs, err
		}
		list = append(list, info)
	}
	return errs, nil
}

// conflict reports an address or a name list already holds; the address
// first, so that a key stored again under its own name reads as stored.
func conflict(list []Info, name string, addr common.Address) error {
	for _, i := range list {
		if i.Address == addr {
			return fmt.Errorf("%w: %s is stored as %q", ErrAddressStored, addr.Hex(), i.Name)
		}
	}
	for _, i := range list {
		if i.Name == name {
			return fmt.Errorf("%w: %q", ErrExists, name)
		}
	}
	return nil
}

// write encrypts priv into <name>.json; O_EXCL so that two processes
// adding one name cannot both win.
func (k *Keyring) write(name string, priv *ecdsa.PrivateKey, passphrase string) (Info, error) {
	addr := crypto.PubkeyToAddress(priv.PublicKey)
	id, err := uuid.NewRandom()
	if err != nil {
		return Info{}, err
	}
	n, p := k.Scrypt()
	keyJSON, err := keystore.EncryptKey(&keystore.Key{Id: id, Address: addr, PrivateKey: priv}, k.Passphrase(passphrase), n, p)
	if err != nil {
		return Info{}, err
	}
	if keyJSON, err = withPubKey(keyJSON, priv); err != nil {
		return Info{}, err
	}
	path := filepath.Join(k.dir, name+".json")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Info{}, fmt.Errorf("%w: %q", ErrExists, name)
		}
		return Info{}, err
	}
	if _, err := f.Write(keyJSON); err != nil {
		f.Close()
		os.Remove(path)
		return Info{}, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return Info{}, err
	}
	return Info{Name: name, Address: addr, Path: path, PubKey: crypto.CompressPubkey(&priv.PublicKey)}, nil
}

// Decrypt returns the private key stored under name.
func (k *Keyring) Decrypt(name, passphrase string) (*ecdsa.PrivateKey, error) {
	info, err := k.Get(name)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(info.Path)
	if err != nil {
		return nil, err
	}
	key, err := keystore.DecryptKey(raw, k.Passphrase(passphrase))
	if errors.Is(err, keystore.ErrDecrypt) && k.backend == Test && passphrase != "" {
		// A key made over personal_* with a passphrase.
		key, err = keystore.DecryptKey(raw, passphrase)
	}
	if err != nil {
		return nil, fmt.Errorf("decrypt key %q: %w", name, err)
	}
	return key.PrivateKey, nil
}

// Delete removes the key stored under name after checking the passphrase,
// so a typo cannot destroy the wrong key's only copy.
func (k *Keyring) Delete(name, passphrase string) error {
	if _, err := k.Decrypt(name, passphrase); err != nil {
		return err
	}
	info, _ := k.Get(name)
	return os.Remove(info.Path)
}
