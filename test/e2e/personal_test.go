package e2e

import (
	"encoding/json"
	"math/big"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/accounts/keyring"
	"github.com/emberchain/ember/internal/wait"
)

const locked = "authentication needed: password or unlock"

// wantErr fails unless err's message is exactly want.
func wantErr(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Fatalf("%s: error %v, want %q", what, err, want)
	}
}

// sendArgs is an eth_sendTransaction call object.
func sendArgs(from, to common.Address, value int64) map[string]any {
	return map[string]any{"from": from, "to": to, "value": hexutil.EncodeBig(big.NewInt(value))}
}

// waitListed polls until the node's keystore has seen addr's key file (the
// CLI wrote it while the node ran: the keystore watches its directory).
func (n *Node) waitListed(t *testing.T, addr common.Address) {
	t.Helper()
	wait.Eventually(t, 10*time.Second, addr.Hex()+" in personal_listAccounts", func() error {
		var list []common.Address
		n.CallPrivate(t, &list, "personal_listAccounts")
		return wait.Check(slices.Contains(list, addr), "%v", list)
	})
}

// wallet is personal_listWallets' entry for one key file.
type wallet struct {
	URL      string `json:"url"`
	Status   string `json:"status"`
	Accounts []struct {
		Address common.Address `json:"address"`
		URL     string         `json:"url"`
	} `json:"accounts"`
}

func (n *Node) walletStatus(t *testing.T, path string) string {
	t.Helper()
	var ws []wallet
	n.CallPrivate(t, &ws, "personal_listWallets")
	for _, w := range ws {
		if w.URL == "keystore://"+path {
			return w.Status
		}
	}
	t.Fatalf("no wallet keystore://%s in %v", path, ws)
	return ""
}

// TestPersonalFileKeyFromCLI creates a key with `emberd keys add` (file
// backend, passphrase on stdin) on a node serving the file keyring, and
// checks unlocking (wrong and right passphrase, expiry after 2 s),
// eth_sendTransaction with the exact balances moved, personal_sendTransaction
// (which does not unlock), personal_sign / personal_ecRecover against
// ethers' verifyMessage and signMessage, and the wallet statuses.
func TestPersonalFileKeyFromCLI(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--keyring-backend", "file", "--empty-block-interval", "0")
	// Light scrypt: every unlock and signature below decrypts the key.
	add := exec.Command(emberdBin, "keys", "add", "alice", "--keyring-backend", "file", "--home", n.Home, "--unsafe-light-scrypt")
	add.Stdin = strings.NewReader("correct horse\ncorrect horse\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("emberd keys add: %v\n%s", err, out)
	}
	kr, err := keyring.Open(n.Home, keyring.File)
	if err != nil {
		t.Fatal(err)
	}
	info, err := kr.Get("alice")
	if err != nil {
		t.Fatal(err)
	}
	alice, path := info.Address, filepath.Join(n.Home, "keyring-file", "alice.json")
	n.waitListed(t, alice)
	var ethAccounts []common.Address
	if err := n.RPC.Call(&ethAccounts, "eth_accounts"); err != nil || !slices.Equal(ethAccounts, []common.Address{alice}) {
		t.Fatalf("eth_accounts = %v %v, want only alice (the file keyring)", ethAccounts, err)
	}
	n.WaitReceipt(t, n.send(t, devKeys[7].Private, txOpts{To: &alice, Value: ether(1)}).Hash())

	to := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	var hash common.Hash
	wantErr(t, "eth_sendTransaction while locked", n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(alice, to, 1)), locked)
	var ok bool
	wantErr(t, "unlock with a wrong passphrase", n.CallPrivateErr(t, &ok, "personal_unlockAccount", alice, "wrong", 2),
		"could not decrypt key with given password")
	if n.CallPrivate(t, &ok, "personal_unlockAccount", alice, "correct horse", 2); !ok {
		t.Fatal("personal_unlockAccount returned false")
	}
	unlockedAt := time.Now()
	if s := n.walletStatus(t, path); s != "Unlocked" {
		t.Fatalf("wallet status %q after unlock", s)
	}

	// Unlocked: a send with every default, and exact balances.
	balance, _ := n.Eth.BalanceAt(ctx(t), alice, nil)
	if err := n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(alice, to, 123_456_789)); err != nil {
		t.Fatalf("eth_sendTransaction while unlocked: %v", err)
	}
	r := n.WaitReceipt(t, hash)
	tx, _, _ := n.Eth.TransactionByHash(ctx(t), hash)
	if r.Status != 1 || tx.Gas() != 90_000 || tx.Type() != types.DynamicFeeTxType || tx.Nonce() != 0 {
		t.Fatalf("status %d gas %d type %d nonce %d; want 1, 90000 (default), 2, 0", r.Status, tx.Gas(), tx.Type(), tx.Nonce())
	}
	got, _ := n.Eth.BalanceAt(ctx(t), to, nil)
	after, _ := n.Eth.BalanceAt(ctx(t), alice, nil)
	fee := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
	if got.Int64() != 123_456_789 || new(big.Int).Sub(balance, after).Cmp(new(big.Int).Add(fee, big.NewInt(123_456_789))) != 0 {
		t.Fatalf("recipient %v, sender paid %v; want 123456789 and 123456789 + fee %v", got, new(big.Int).Sub(balance, after), fee)
	}

	// personal_sign while we wait for the unlock to expire.
	msg := hexutil.Bytes("Ember signs this")
	var sig hexutil.Bytes
	n.CallPrivate(t, &sig, "personal_sign", msg, alice, "correct horse")
	var recovered common.Address
	n.CallPrivate(t, &recovered, "personal_ecRecover", msg, sig)
	if recovered != alice || sig[64] < 27 {
		t.Fatalf("personal_ecRecover = %s (V %d), want %s", recovered.Hex(), sig[64], alice.Hex())
	}
	priv, err := kr.Decrypt("alice", "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	verifyWithEthers(t, msg, sig, alice, hexutil.Encode(crypto.FromECDSA(priv)))
	wantErr(t, "personal_sign with a wrong passphrase", n.CallPrivateErr(t, &sig, "personal_sign", msg, alice, "wrong"),
		"could not decrypt key with given password")

	// The unlock's expiry is what is checked: sleep past it.
	time.Sleep(time.Until(unlockedAt.Add(2500 * time.Millisecond)))
	wantErr(t, "eth_sendTransaction after the unlock expired", n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(alice, to, 1)), locked)
	if s := n.walletStatus(t, path); s != "Locked" {
		t.Fatalf("wallet status %q after expiry", s)
	}

	// personal_sendTransaction decrypts for one tx and leaves the key locked.
	wantErr(t, "personal_sendTransaction with a wrong passphrase",
		n.CallPrivateErr(t, &hash, "personal_sendTransaction", sendArgs(alice, to, 1000), "wrong"), "could not decrypt key with given password")
	n.CallPrivate(t, &hash, "personal_sendTransaction", sendArgs(alice, to, 1000), "correct horse")
	if r := n.WaitReceipt(t, hash); r.Status != 1 {
		t.Fatal("personal_sendTransaction's tx failed")
	}
	if got, _ := n.Eth.BalanceAt(ctx(t), to, nil); got.Int64() != 123_457_789 {
		t.Fatalf("recipient has %v, want 123457789", got)
	}
	wantErr(t, "eth_sendTransaction after personal_sendTransaction", n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(alice, to, 1)), locked)
	if s := n.walletStatus(t, path); s != "Locked" {
		t.Fatalf("wallet status %q after personal_sendTransaction", s)
	}
}

// verifyWithEthers runs test/clients/verify-message.mjs: ethers'
// verifyMessage must recover addr, and Wallet.signMessage with key must give
// the same signature.
func verifyWithEthers(t *testing.T, msg, sig hexutil.Bytes, addr common.Address, key string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found in PATH: ethers' check needs Node.js: %v", err)
	}
	npmInstall(t, dir)
	out, err := runScript(t, dir, nodeBin, "verify-message.mjs",
		"EMBER_MESSAGE="+msg.String(), "EMBER_SIGNATURE="+sig.String(), "EMBER_ADDRESS="+addr.Hex(), "EMBER_KEY="+key)
	if err != nil {
		t.Fatalf("verify-message.mjs: %v\n%s", err, out)
	}
	if want := "hashMessage " + hexutil.Encode(accounts.TextHash(msg)); !strings.Contains(out, want) {
		t.Fatalf("ethers hashed the message differently: %s, want %s", out, want)
	}
}

// TestPersonalDevAccounts: `emberd dev` serves its prefunded keys as anvil
// does: eth_accounts lists them in order, eth_sendTransaction, eth_sign and
// eth_signTransaction work with them; an explicit nonce is used as given.
func TestPersonalDevAccounts(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	var list []common.Address
	if err := n.RPC.Call(&list, "eth_accounts"); err != nil {
		t.Fatal(err)
	}
	want := make([]common.Address, len(devKeys))
	for i, k := range devKeys {
		want[i] = k.Address
	}
	if !slices.Equal(list, want) {
		t.Fatalf("eth_accounts = %v, want the dev keys in order %v", list, want)
	}

	from, to := devKeys[8].Address, common.HexToAddress("0x00000000000000000000000000000000000000b0")
	var hash common.Hash
	if err := n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(from, to, 5)); err != nil {
		t.Fatal(err)
	}
	first := n.WaitReceipt(t, hash)
	legacy := map[string]any{"from": from, "to": to, "value": "0x7", "gasPrice": hexutil.EncodeBig(gwei(30)), "nonce": "0x1", "gas": "0x5208"}
	if err := n.RPC.Call(&hash, "eth_sendTransaction", legacy); err != nil {
		t.Fatal(err)
	}
	r := n.WaitReceipt(t, hash)
	tx, _, _ := n.Eth.TransactionByHash(ctx(t), hash)
	if first.Status != 1 || r.Status != 1 || tx.Type() != types.LegacyTxType || tx.Nonce() != 1 || tx.Gas() != 21000 || tx.GasPrice().Cmp(gwei(30)) != 0 {
		t.Fatalf("legacy send: status %d type %d nonce %d gas %d price %v", r.Status, tx.Type(), tx.Nonce(), tx.Gas(), tx.GasPrice())
	}
	if got, _ := n.Eth.BalanceAt(ctx(t), to, nil); got.Int64() != 12 {
		t.Fatalf("recipient has %v wei, want 12", got)
	}

	msg := hexutil.Bytes{0xde, 0xad, 0xbe, 0xef}
	var sig hexutil.Bytes
	if err := n.RPC.Call(&sig, "eth_sign", from, msg); err != nil {
		t.Fatal(err)
	}
	sig[64] -= 27
	pub, err := crypto.SigToPub(accounts.TextHash(msg), sig)
	if err != nil || crypto.PubkeyToAddress(*pub) != from {
		t.Fatalf("eth_sign signature does not recover %s: %v", from.Hex(), err)
	}

	var signed struct {
		Raw hexutil.Bytes      `json:"raw"`
		Tx  *types.Transaction `json:"tx"`
	}
	full := map[string]any{"from": from, "to": to, "value": "0x1", "gas": "0x5208", "nonce": "0x2",
		"maxFeePerGas": hexutil.EncodeBig(gwei(40)), "maxPriorityFeePerGas": hexutil.EncodeBig(gwei(1))}
	if err := n.RPC.Call(&signed, "eth_signTransaction", full); err != nil {
		t.Fatal(err)
	}
	var decoded types.Transaction
	if err := decoded.UnmarshalBinary(signed.Raw); err != nil || decoded.Hash() != signed.Tx.Hash() || decoded.Nonce() != 2 {
		t.Fatalf("eth_signTransaction: %v %s %s", err, decoded.Hash(), signed.Tx.Hash())
	}
	delete(full, "nonce")
	wantErr(t, "eth_signTransaction without a nonce", n.RPC.Call(&signed, "eth_signTransaction", full), "nonce not specified")

	stranger := common.HexToAddress("0x00000000000000000000000000000000000000c0")
	wantErr(t, "eth_sendTransaction from an unknown account", n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(stranger, to, 1)), "unknown account")
	wantErr(t, "eth_sign with an unknown account", n.RPC.Call(&sig, "eth_sign", stranger, msg), "unknown account")
}

// TestPersonalKeystoreMethods checks importRawKey, newAccount, lockAccount,
// unlock bounds, listWallets' exact shape, ecRecover's checks and the
// smartcard methods on the dev chain's test keyring.
func TestPersonalKeystoreMethods(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	key, _ := crypto.GenerateKey()
	var imported common.Address
	n.CallPrivate(t, &imported, "personal_importRawKey", hexutil.Encode(crypto.FromECDSA(key))[2:], "")
	if imported != crypto.PubkeyToAddress(key.PublicKey) {
		t.Fatalf("imported %s", imported.Hex())
	}
	wantErr(t, "importRawKey twice", n.CallPrivateErr(t, &imported, "personal_importRawKey", hexutil.Encode(crypto.FromECDSA(key)), ""),
		"account already exists")
	var created string
	n.CallPrivate(t, &created, "personal_newAccount", "")
	if !common.IsHexAddress(created) || created != common.HexToAddress(created).Hex() {
		t.Fatalf("personal_newAccount = %q, want a checksummed address", created)
	}

	var raw json.RawMessage
	n.CallPrivate(t, &raw, "personal_listWallets")
	var ws []wallet
	if err := json.Unmarshal(raw, &ws); err != nil || len(ws) != 12 {
		t.Fatalf("personal_listWallets: %v, %s", err, raw)
	}
	dev0 := filepath.Join(n.Home, "keyring-test", "dev0.json")
	wantWallet := `{"url":"keystore://` + dev0 + `","status":"Unlocked","accounts":[{"address":"` + strings.ToLower(devKeys[0].Address.Hex()) + `","url":"keystore://` + dev0 + `"}]}`
	if !strings.Contains(string(raw), wantWallet) {
		t.Fatalf("personal_listWallets lacks %s:\n%s", wantWallet, raw)
	}
	var ok bool
	if n.CallPrivate(t, &ok, "personal_lockAccount", devKeys[0].Address); !ok {
		t.Fatal("lockAccount returned false")
	}
	var hash common.Hash
	wantErr(t, "send from a locked dev key", n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(devKeys[0].Address, imported, 1)), locked)
	// The prefunded dev keys ignore the passphrase given.
	if n.CallPrivate(t, &ok, "personal_unlockAccount", devKeys[0].Address, "anything", 0); !ok {
		t.Fatal("unlock returned false")
	}
	if err := n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(devKeys[0].Address, imported, 1)); err != nil {
		t.Fatalf("send after unlocking until exit: %v", err)
	}
	wantErr(t, "unlock duration too large", n.CallPrivateErr(t, &ok, "personal_unlockAccount", imported, "", uint64(1)<<62), "unlock duration too large")
	wantErr(t, "unlock an unknown key", n.CallPrivateErr(t, &ok, "personal_unlockAccount", common.HexToAddress("0x1"), "", 10),
		"no key for given address or file")

	var rec common.Address
	wantErr(t, "ecRecover V 0", n.CallPrivateErr(t, &rec, "personal_ecRecover", "0x01", hexutil.Encode(make([]byte, 65))),
		"invalid Ethereum signature (V is not 27 or 28)")
	wantErr(t, "ecRecover short", n.CallPrivateErr(t, &rec, "personal_ecRecover", "0x01", "0x01"), "signature must be 65 bytes long")

	const smartcard = "no smartcard wallets: this node manages keystore files only; initializeWallet and unpair apply to smartcard (scwallet) wallets"
	var s string
	wantErr(t, "initializeWallet", n.CallPrivateErr(t, &s, "personal_initializeWallet", "keystore://"+dev0), smartcard)
	wantErr(t, "unpair", n.CallPrivateErr(t, nil, "personal_unpair", "keystore://"+dev0, "1234"), smartcard)
}

// TestPersonalPassphrases: on the test and the file keyring, keys made by
// personal_newAccount and personal_importRawKey are encrypted with the
// passphrase sent. A wrong passphrase fails with geth's error for
// unlockAccount, sign, signTransaction and sendTransaction and changes
// nothing (still locked, nothing sent: balances and nonces unchanged); the
// right one works. Only the prefunded dev keys ignore the passphrase.
func TestPersonalPassphrases(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"test", "file"} {
		t.Run(backend, func(t *testing.T) {
			// The file backend's standard scrypt cost may outlast the
			// default http-timeout under the race detector.
			n := StartDev(t, "--keyring-backend", backend, "--empty-block-interval", "0",
				"--json-rpc.http-timeout", callTimeout.String())
			const badPass = "could not decrypt key with given password"
			var made common.Address
			n.CallPrivate(t, &made, "personal_newAccount", "secret1")
			key, _ := crypto.GenerateKey()
			var imported common.Address
			n.CallPrivate(t, &imported, "personal_importRawKey", hexutil.Encode(crypto.FromECDSA(key)), "secret2")
			if imported != crypto.PubkeyToAddress(key.PublicKey) {
				t.Fatalf("imported %s", imported.Hex())
			}
			to := common.HexToAddress("0x00000000000000000000000000000000000b0b00")
			for _, c := range []struct {
				addr       common.Address
				pass, worn string
			}{{made, "secret1", "WRONG"}, {imported, "secret2", ""}} {
				n.WaitReceipt(t, n.send(t, devKeys[7].Private, txOpts{To: &c.addr, Value: ether(1)}).Hash())
				balance, _ := n.Eth.BalanceAt(ctx(t), c.addr, nil)
				toBalance, _ := n.Eth.BalanceAt(ctx(t), to, nil)
				var ok bool
				wantErr(t, "unlock with "+c.worn, n.CallPrivateErr(t, &ok, "personal_unlockAccount", c.addr, c.worn, 60), badPass)
				var hash common.Hash
				wantErr(t, "eth_sendTransaction after a refused unlock", n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(c.addr, to, 1)), locked)
				var sig hexutil.Bytes
				wantErr(t, "personal_sign with "+c.worn, n.CallPrivateErr(t, &sig, "personal_sign", hexutil.Bytes("hi"), c.addr, c.worn), badPass)
				wantErr(t, "personal_sendTransaction with "+c.worn,
					n.CallPrivateErr(t, &hash, "personal_sendTransaction", sendArgs(c.addr, to, 1000), c.worn), badPass)
				signArgs := map[string]any{"from": c.addr, "to": to, "value": "0x3e8", "gas": "0x5208", "nonce": "0x0",
					"maxFeePerGas": "0x77359400", "maxPriorityFeePerGas": "0x1"}
				var signed json.RawMessage
				wantErr(t, "personal_signTransaction with "+c.worn,
					n.CallPrivateErr(t, &signed, "personal_signTransaction", signArgs, c.worn), badPass)
				// Nothing was sent: a new block, same balances and nonce.
				n.WaitReceipt(t, n.send(t, devKeys[8].Private, txOpts{To: &to, Value: big.NewInt(0)}).Hash())
				nonce, _ := n.Eth.NonceAt(ctx(t), c.addr, nil)
				pending, _ := n.Eth.PendingNonceAt(ctx(t), c.addr)
				b1, _ := n.Eth.BalanceAt(ctx(t), c.addr, nil)
				b2, _ := n.Eth.BalanceAt(ctx(t), to, nil)
				if nonce != 0 || pending != 0 || b1.Cmp(balance) != 0 || b2.Cmp(toBalance) != 0 {
					t.Fatalf("after wrong passphrases: nonce %d pending %d balance %v (was %v) recipient %v (was %v)", nonce, pending, b1, balance, b2, toBalance)
				}

				// The right passphrase: sign, signTransaction, sendTransaction, unlock.
				n.CallPrivate(t, &sig, "personal_sign", hexutil.Bytes("hi"), c.addr, c.pass)
				var rec common.Address
				if n.CallPrivate(t, &rec, "personal_ecRecover", hexutil.Bytes("hi"), sig); rec != c.addr {
					t.Fatalf("signed by %s, want %s", rec.Hex(), c.addr.Hex())
				}
				var res struct {
					Raw hexutil.Bytes `json:"raw"`
				}
				n.CallPrivate(t, &res, "personal_signTransaction", signArgs, c.pass)
				var tx types.Transaction
				if err := tx.UnmarshalBinary(res.Raw); err != nil {
					t.Fatal(err)
				}
				if from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), &tx); err != nil || from != c.addr {
					t.Fatalf("signTransaction signed by %s %v", from.Hex(), err)
				}
				n.CallPrivate(t, &hash, "personal_sendTransaction", sendArgs(c.addr, to, 1000), c.pass)
				if r := n.WaitReceipt(t, hash); r.Status != 1 {
					t.Fatal("personal_sendTransaction's tx failed")
				}
				if got, _ := n.Eth.BalanceAt(ctx(t), to, nil); new(big.Int).Sub(got, toBalance).Int64() != 1000 {
					t.Fatalf("recipient got %v, want 1000", new(big.Int).Sub(got, toBalance))
				}
				if n.CallPrivate(t, &ok, "personal_unlockAccount", c.addr, c.pass, 60); !ok {
					t.Fatal("unlock with the right passphrase returned false")
				}
				if err := n.RPC.Call(&hash, "eth_sendTransaction", sendArgs(c.addr, to, 1)); err != nil {
					t.Fatalf("eth_sendTransaction after unlocking: %v", err)
				}
				n.WaitReceipt(t, hash)
				n.CallPrivate(t, &ok, "personal_lockAccount", c.addr)
			}
			// The CLI asks the passphrase of a key made over personal_*, on
			// the test keyring too, and refuses a wrong one.
			b, _ := keyring.ParseBackend(backend)
			kr, err := keyring.Open(n.Home, b)
			if err != nil {
				t.Fatal(err)
			}
			info, err := kr.Find(imported)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				pass string
				ok   bool
			}{{"WRONG", false}, {"secret2", true}} {
				export := exec.Command(emberdBin, "keys", "unsafe-export-eth-key", info.Name, "--keyring-backend", backend, "--home", n.Home)
				export.Stdin = strings.NewReader(c.pass + "\n")
				out, err := export.Output()
				want := strings.ToUpper(hexutil.Encode(crypto.FromECDSA(key))[2:])
				if c.ok != (err == nil) || (c.ok && strings.TrimSpace(string(out)) != want) {
					t.Errorf("keys unsafe-export-eth-key with %q: %v %q", c.pass, err, out)
				}
			}
			if backend == "test" {
				// The prefunded dev keys keep the test keyring's shortcut.
				var sig hexutil.Bytes
				n.CallPrivate(t, &sig, "personal_sign", hexutil.Bytes("hi"), devKeys[0].Address, "anything")
			}
		})
	}
}
