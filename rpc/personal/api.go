// Package personal implements the personal_ JSON-RPC namespace: the node's
// keyring managed and used over RPC, as go-ethereum's PersonalAccountAPI
// (internal/ethapi, removed in geth 1.14) did. It is a private namespace:
// the server serves it only to requests with a valid JWT.
package personal

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/rpc/eth"
)

// Keystore is the node's keyring as this namespace uses it. Passphrases are
// as the client sent them; the keyring decides what they protect (the test
// backend ignores them). Errors are go-ethereum's keystore errors.
type Keystore interface {
	// Accounts lists the addresses in the keyring's order.
	Accounts() []common.Address
	// Wallets are the keystore's wallets, one per key file.
	Wallets() []accounts.Wallet
	// NewAccount creates a random key.
	NewAccount(passphrase string) (common.Address, error)
	// ImportECDSA stores key.
	ImportECDSA(key *ecdsa.PrivateKey, passphrase string) (common.Address, error)
	// TimedUnlock decrypts addr's key and keeps it in memory for timeout (0:
	// until the node exits); the key is zeroed when it expires.
	TimedUnlock(addr common.Address, passphrase string, timeout time.Duration) error
	// Lock drops addr's unlocked key from memory.
	Lock(addr common.Address) error
	// SignHashWithPassphrase decrypts addr's key for one signature.
	SignHashWithPassphrase(addr common.Address, passphrase string, hash []byte) ([]byte, error)
	// SignTxWithPassphrase decrypts addr's key for one transaction.
	SignTxWithPassphrase(addr common.Address, passphrase string, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
}

// Sender completes, signs and submits transactions: eth.TxSender.
type Sender interface {
	Send(ctx context.Context, args eth.TransactionArgs, sign eth.SignFunc) (common.Hash, error)
	Sign(ctx context.Context, args eth.TransactionArgs, sign eth.SignFunc) (*eth.SignTransactionResult, error)
}

// API is the personal namespace.
type API struct {
	ks   Keystore
	send Sender
	log  *slog.Logger
}

// NewAPI returns the personal namespace over ks, sending through send.
func NewAPI(ks Keystore, send Sender, log *slog.Logger) *API {
	return &API{ks: ks, send: send, log: log}
}

// errNoSmartcard answers the smartcard methods: the node has no smartcard
// wallet support (go-ethereum's scwallet), so there is nothing to
// initialize or unpair.
var errNoSmartcard = errors.New("no smartcard wallets: this node manages keystore files only; initializeWallet and unpair apply to smartcard (scwallet) wallets")

// ListAccounts lists the keyring's addresses (personal_listAccounts).
func (api *API) ListAccounts() []common.Address { return api.ks.Accounts() }

// rawWallet is a wallet as go-ethereum lists it.
type rawWallet struct {
	URL      string             `json:"url"`
	Status   string             `json:"status"`
	Failure  string             `json:"failure,omitempty"`
	Accounts []accounts.Account `json:"accounts,omitempty"`
}

// ListWallets lists one wallet per key file: url keystore://<path>, status
// "Locked" or "Unlocked", and its account (personal_listWallets).
func (api *API) ListWallets() []rawWallet {
	wallets := make([]rawWallet, 0) // [] rather than null when empty
	for _, w := range api.ks.Wallets() {
		status, failure := w.Status()
		raw := rawWallet{URL: w.URL().String(), Status: status, Accounts: w.Accounts()}
		if failure != nil {
			raw.Failure = failure.Error()
		}
		wallets = append(wallets, raw)
	}
	return wallets
}

// wallet finds a wallet by URL, as go-ethereum's account manager does.
func (api *API) wallet(url string) (accounts.Wallet, error) {
	wallets := api.ks.Wallets()
	i := slices.IndexFunc(wallets, func(w accounts.Wallet) bool { return w.URL().String() == url })
	if i < 0 {
		return nil, accounts.ErrUnknownWallet
	}
	return wallets[i], nil
}

// OpenWallet opens a wallet: nothing to do for a key file
// (personal_openWallet).
func (api *API) OpenWallet(url string, passphrase *string) error {
	w, err := api.wallet(url)
	if err != nil {
		return err
	}
	pass := ""
	if passphrase != nil {
		pass = *passphrase
	}
	return w.Open(pass)
}

// DeriveAccount derives an HD account: key files answer "not supported"
// (personal_deriveAccount).
func (api *API) DeriveAccount(url string, path string, pin *bool) (accounts.Account, error) {
	w, err := api.wallet(url)
	if err != nil {
		return accounts.Account{}, err
	}
	derivPath, err := accounts.ParseDerivationPath(path)
	if err != nil {
		return accounts.Account{}, err
	}
	return w.Derive(derivPath, pin != nil && *pin)
}

// NewAccount creates a random key encrypted with password and returns its
// checksummed address (personal_newAccount).
func (api *API) NewAccount(password string) (common.AddressEIP55, error) {
	addr, err := api.ks.NewAccount(password)
	if err != nil {
		return common.AddressEIP55{}, err
	}
	api.log.Info("new key generated", "address", addr.Hex())
	return common.AddressEIP55(addr), nil
}

// ImportRawKey stores a hex private key (0x optional) encrypted with
// password (personal_importRawKey).
func (api *API) ImportRawKey(privkey string, password string) (common.Address, error) {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(privkey, "0x"))
	if err != nil {
		return common.Address{}, err
	}
	return api.ks.ImportECDSA(key, password)
}

// maxUnlock is the longest unlock time.Duration can express, in seconds.
const maxUnlock = uint64(time.Duration(math.MaxInt64) / time.Second)

// UnlockAccount keeps addr's key decrypted in memory for duration seconds
// (default 300; 0 = until the node exits) so that eth_sign and
// eth_sendTransaction can use it (personal_unlockAccount).
func (api *API) UnlockAccount(addr common.Address, password string, duration *uint64) (bool, error) {
	d := 300 * time.Second
	if duration != nil {
		if *duration > maxUnlock {
			return false, errors.New("unlock duration too large")
		}
		d = time.Duration(*duration) * time.Second
	}
	if err := api.ks.TimedUnlock(addr, password, d); err != nil {
		api.log.Warn("failed account unlock attempt", "address", addr, "err", err)
		return false, err
	}
	return true, nil
}

// LockAccount drops addr's key from memory (personal_lockAccount).
func (api *API) LockAccount(addr common.Address) bool {
	return api.ks.Lock(addr) == nil
}

// holds answers "unknown account" for a key the keyring lacks, before any
// other check, as go-ethereum's account manager does.
func (api *API) holds(addr common.Address) error {
	if !slices.Contains(api.ks.Accounts(), addr) {
		return accounts.ErrUnknownAccount
	}
	return nil
}

// from is args' sender (the zero address when absent).
func from(args eth.TransactionArgs) common.Address {
	if args.From == nil {
		return common.Address{}
	}
	return *args.From
}

func (api *API) signer(addr common.Address, passwd string) eth.SignFunc {
	return func(tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
		return api.ks.SignTxWithPassphrase(addr, passwd, tx, chainID)
	}
}

// SendTransaction fills in args as eth_sendTransaction does, signs with the
// key decrypted by passwd for this one transaction (the account stays
// locked) and submits it (personal_sendTransaction).
func (api *API) SendTransaction(ctx context.Context, args eth.TransactionArgs, passwd string) (common.Hash, error) {
	if err := api.holds(from(args)); err != nil {
		return common.Hash{}, err
	}
	hash, err := api.send.Send(ctx, args, api.signer(from(args), passwd))
	if err != nil {
		api.log.Warn("failed transaction send attempt", "from", from(args), "err", err)
	}
	return hash, err
}

// SignTransaction signs a fully specified transaction with the key
// decrypted by passwd, without sending it (personal_signTransaction).
func (api *API) SignTransaction(ctx context.Context, args eth.TransactionArgs, passwd string) (*eth.SignTransactionResult, error) {
	if err := api.holds(from(args)); err != nil {
		return nil, err
	}
	return api.send.Sign(ctx, args, api.signer(from(args), passwd))
}

// Sign signs keccak256("\x19Ethereum Signed Message:\n" + len(data) + data)
// with the key decrypted by passwd; V is 27 or 28 (personal_sign).
func (api *API) Sign(data hexutil.Bytes, addr common.Address, passwd string) (hexutil.Bytes, error) {
	if err := api.holds(addr); err != nil {
		return nil, err
	}
	sig, err := api.ks.SignHashWithPassphrase(addr, passwd, accounts.TextHash(data))
	if err != nil {
		api.log.Warn("failed data sign attempt", "address", addr, "err", err)
		return nil, err
	}
	sig[crypto.RecoveryIDOffset] += 27
	return sig, nil
}

// EcRecover returns the address whose key made sig over data as
// personal_sign and eth_sign sign it; V must be 27 or 28
// (personal_ecRecover).
func (api *API) EcRecover(data, sig hexutil.Bytes) (common.Address, error) {
	if len(sig) != crypto.SignatureLength {
		return common.Address{}, fmt.Errorf("signature must be %d bytes long", crypto.SignatureLength)
	}
	if sig[crypto.RecoveryIDOffset] != 27 && sig[crypto.RecoveryIDOffset] != 28 {
		return common.Address{}, errors.New("invalid Ethereum signature (V is not 27 or 28)")
	}
	sig = slices.Clone(sig)
	sig[crypto.RecoveryIDOffset] -= 27
	pub, err := crypto.SigToPub(accounts.TextHash(data), sig)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// InitializeWallet answers that there are no smartcard wallets
// (personal_initializeWallet).
func (api *API) InitializeWallet(url string) (string, error) { return "", errNoSmartcard }

// Unpair answers that there are no smartcard wallets (personal_unpair).
func (api *API) Unpair(url string, pin string) error { return errNoSmartcard }
