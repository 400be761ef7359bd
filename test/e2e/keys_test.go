package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/accounts"
)

// keyVector is one well-known account of the test mnemonic ("test test …
// junk") at m/44'/60'/0'/0/index: the private key and address anvil, Hardhat
// and MetaMask show, and its bech32 spellings. The bech32 strings were
// computed once with the BIP-0173 reference implementation in Python (Pieter
// Wuille's segwit_addr.py: bech32_encode(hrp, convertbits(addr, 8, 5))), not
// with Ember's code.
type keyVector struct {
	priv, hex, acc, val, cons string
}

var keyVectors = []keyVector{
	{"ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
		"ember17w0adeg64ky0daxwd2ugyuneellmjgnxksye5t", "embervaloper17w0adeg64ky0daxwd2ugyuneellmjgnxwukud9", "embervalcons17w0adeg64ky0daxwd2ugyuneellmjgnx609qpy"},
	{"59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
		"ember1wzvhjux9rqfdcwspp37srdgwp5tac7wg7mqxqd", "embervaloper1wzvhjux9rqfdcwspp37srdgwp5tac7wgxhjrer", "embervalcons1wzvhjux9rqfdcwspp37srdgwp5tac7wgjypl4z"},
	{"5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a", "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
		"ember183zvmhdk4yq0526cthffncpaztay9yauwm2j9n", "embervaloper183zvmhdk4yq0526cthffncpaztay9yaukhchua", "embervalcons183zvmhdk4yq0526cthffncpaztay9yauzyttsu"},
	{"7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6", "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
		"ember1jrmehaht938cwqm9u7zestslzq0f8wgx9zthfu", "embervaloper1jrmehaht938cwqm9u7zestslzq0f8wgxawejsj", "embervalcons1jrmehaht938cwqm9u7zestslzq0f8wgxfa2wun"},
	{"47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a", "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65",
		"ember1zhf54t65ye7m047rv7pe4tm35q9zc6n99tvvq0", "embervaloper1zhf54t65ye7m047rv7pe4tm35q9zc6n9a87fep", "embervalcons1zhf54t65ye7m047rv7pe4tm35q9zc6n9f5d44q"},
}

// keysCLI runs `emberd keys …` (or any emberd command) on one home and
// keyring backend.
type keysCLI struct {
	t       *testing.T
	home    string
	backend string // "" leaves --keyring-backend out: the home's default applies
}

func newKeysCLI(t *testing.T, backend string) keysCLI {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the emberd binary: skipped with -short")
	}
	return keysCLI{t: t, home: t.TempDir(), backend: backend}
}

// run runs emberd with args plus --home (and --keyring-backend), feeding
// stdin, and returns stdout, stderr and the exit error. keys commands get
// the hidden --unsafe-light-scrypt: the file backend's standard scrypt
// would spend most of these tests' time (TestKeysFileScryptCost checks the
// standard cost without it).
func (k keysCLI) run(stdin string, args ...string) (string, string, error) {
	k.t.Helper()
	args = append(args, "--home", k.home)
	if args[0] == "keys" {
		args = append(args, "--unsafe-light-scrypt")
		if k.backend != "" {
			args = append(args, "--keyring-backend", k.backend)
		}
	}
	cmd := exec.Command(emberdBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// ok runs emberd and fails the test unless it exits 0; it returns stdout.
func (k keysCLI) ok(stdin string, args ...string) string {
	k.t.Helper()
	out, errOut, err := k.run(stdin, args...)
	if err != nil {
		k.t.Fatalf("emberd %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// fails runs emberd, expects a non-zero exit with an error containing want,
// and checks that nothing was written to stdout.
func (k keysCLI) fails(want, stdin string, args ...string) {
	k.t.Helper()
	out, errOut, err := k.run(stdin, args...)
	if err == nil {
		k.t.Fatalf("emberd %s succeeded, want an error %q\nstdout: %s", strings.Join(args, " "), want, out)
	}
	if !strings.Contains(errOut, want) {
		k.t.Errorf("emberd %s: stderr %q does not contain %q", strings.Join(args, " "), errOut, want)
	}
	if out != "" {
		k.t.Errorf("emberd %s failed but printed %q", strings.Join(args, " "), out)
	}
}

// files lists the keyring directory of backend.
func (k keysCLI) files(backend string) []string {
	k.t.Helper()
	entries, err := os.ReadDir(filepath.Join(k.home, "keyring-"+backend))
	if err != nil && !os.IsNotExist(err) {
		k.t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// keyJSON is `keys show -o json`.
type keyJSON struct {
	Name, Type, Address, PubKey, Mnemonic string
}

func (k keysCLI) show(name string, extra ...string) keyJSON {
	k.t.Helper()
	var out keyJSON
	raw := k.ok("", append([]string{"keys", "show", name, "-o", "json"}, extra...)...)
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		k.t.Fatalf("keys show -o json: %v: %s", err, raw)
	}
	return out
}

// pubKeyJSON is the Ethermint public key JSON of a hex private key.
func pubKeyJSON(t *testing.T, privHex string) string {
	t.Helper()
	priv, err := crypto.HexToECDSA(privHex)
	if err != nil {
		t.Fatal(err)
	}
	key := base64.StdEncoding.EncodeToString(crypto.CompressPubkey(&priv.PublicKey))
	return `{"@type":"/ethermint.crypto.v1.ethsecp256k1.PubKey","key":"` + key + `"}`
}

// textListing is the Cosmos SDK's text output for one key.
func textListing(address, name, pubkey string) string {
	return fmt.Sprintf("- address: %s\n  name: %s\n  pubkey: '%s'\n  type: local\n", address, name, pubkey)
}

func TestKeysMnemonicGivesMetaMaskAddresses(t *testing.T) {
	t.Parallel()
	k := newKeysCLI(t, "test")
	for i, v := range keyVectors {
		name := fmt.Sprintf("k%d", i)
		out := k.ok(accounts.TestMnemonic+"\n", "keys", "add", name, "--recover", "--index", fmt.Sprint(i))
		if want := textListing(v.acc, name, pubKeyJSON(t, v.priv)); out != want {
			t.Errorf("keys add %s:\n got %q\nwant %q", name, out, want)
		}
		for bech, want := range map[string]string{"acc": v.acc, "val": v.val, "cons": v.cons} {
			if got := strings.TrimSpace(k.ok("", "keys", "show", name, "--bech", bech, "--address")); got != want {
				t.Errorf("keys show %s --bech %s --address = %s, want %s", name, bech, got, want)
			}
		}
		if got := k.show(name); got != (keyJSON{Name: name, Type: "local", Address: v.acc, PubKey: pubKeyJSON(t, v.priv)}) {
			t.Errorf("keys show %s -o json = %+v", name, got)
		}
		// The private key is anvil's, so the address is MetaMask's.
		priv := strings.TrimSpace(k.ok("", "keys", "unsafe-export-eth-key", name))
		if priv != strings.ToUpper(v.priv) {
			t.Errorf("key %d: private key %s, want anvil's %s", i, priv, v.priv)
		}
		if !strings.Contains(k.ok("", "debug", "addr", v.acc), "Address (EIP-55): "+v.hex+"\n") {
			t.Errorf("key %d: debug addr %s does not give %s", i, v.acc, v.hex)
		}
	}
	var list []keyJSON
	if err := json.Unmarshal([]byte(k.ok("", "keys", "list", "-o", "json")), &list); err != nil || len(list) != len(keyVectors) {
		t.Fatalf("keys list -o json: %v %+v", err, list)
	}
	var text strings.Builder
	for i, v := range keyVectors {
		if list[i].Address != v.acc || list[i].Name != fmt.Sprintf("k%d", i) {
			t.Errorf("keys list[%d] = %+v", i, list[i])
		}
		text.WriteString(textListing(v.acc, list[i].Name, pubKeyJSON(t, v.priv)))
	}
	if got := k.ok("", "keys", "list"); got != text.String() {
		t.Errorf("keys list:\n got %q\nwant %q", got, text.String())
	}
}

// debugAddr runs `debug addr` and checks its lines for vector v.
func debugAddr(t *testing.T, k keysCLI, input string, v keyVector) {
	t.Helper()
	addr := common.HexToAddress(v.hex)
	want := fmt.Sprintf("Address: %v\nAddress (hex): %s\nAddress (EIP-55): %s\nBech32 Acc: %s\nBech32 Val: %s\nBech32 Con: %s\n",
		addr[:], strings.ToUpper(v.hex[2:]), v.hex, v.acc, v.val, v.cons)
	if got := k.ok("", "debug", "addr", input); got != want {
		t.Errorf("debug addr %s:\n got %q\nwant %q", input, got, want)
	}
}

func TestKeysDebugAddrRoundTrips(t *testing.T) {
	t.Parallel()
	k := newKeysCLI(t, "")
	for _, v := range keyVectors {
		// Hex to every spelling, and every spelling back to the same lines.
		for _, in := range []string{v.hex, strings.ToLower(v.hex), v.hex[2:], v.acc, v.val, v.cons, strings.ToUpper(v.acc)} {
			debugAddr(t, k, in, v)
		}
	}
	v := keyVectors[0]
	pub, _ := crypto.HexToECDSA(v.priv)
	accPub, err := accounts.NewPrefixes("ember").Encode(accounts.KindAccountPub, crypto.CompressPubkey(&pub.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	k.fails("not an address", "", "debug", "addr", accPub)
	k.fails("invalid bech32", "", "debug", "addr", v.acc[:len(v.acc)-1]+"q") // checksum
	// Another chain's spelling (Python reference bech32, prefix cosmos).
	k.fails("is none of", "", "debug", "addr", "cosmos17w0adeg64ky0daxwd2ugyuneellmjgnxramjtq")
	k.fails("invalid bech32", "", "debug", "addr", strings.ToUpper(v.acc[:6])+v.acc[6:]) // mixed case
	k.fails("invalid hex address", "", "debug", "addr", v.hex[:41])
	k.fails("accepts 1 arg", "", "debug", "addr")
}

// TestKeysPrefixFromGenesis: the bech32 prefix is the chain's genesis
// setting, read from the home.
func TestKeysPrefixFromGenesis(t *testing.T) {
	t.Parallel()
	k := newKeysCLI(t, "")
	k.ok("", "init", "--chain-id", "ember_9000-1")
	path := filepath.Join(k.home, "config", "genesis.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var state map[string]json.RawMessage
	if err := json.Unmarshal(doc["app_state"], &state); err != nil {
		t.Fatal(err)
	}
	state["bech32_prefix"] = json.RawMessage(`"foo"`)
	doc["app_state"], _ = json.Marshal(state)
	raw, _ = json.Marshal(doc)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// Python reference bech32, as keyVectors.
	const fooAcc = "foo17w0adeg64ky0daxwd2ugyuneellmjgnx3kfhjf"
	if out := k.ok("", "debug", "addr", keyVectors[0].hex); !strings.Contains(out, "Bech32 Acc: "+fooAcc+"\n") {
		t.Errorf("debug addr with prefix foo:\n%s", out)
	}
	k.fails("invalid bech32", "", "debug", "addr", keyVectors[0].acc)
	k.ok("", "keys", "unsafe-import-eth-key", "a", keyVectors[0].priv, "--keyring-backend", "test")
	if got := strings.TrimSpace(k.ok("", "keys", "show", "a", "--address", "--keyring-backend", "test")); got != fooAcc {
		t.Errorf("keys show with prefix foo = %s, want %s", got, fooAcc)
	}
}

// TestKeysDefaultBackendFromAppToml: without --keyring-backend, the home's
// app.toml decides; a home without one uses the file backend.
func TestKeysDefaultBackendFromAppToml(t *testing.T) {
	t.Parallel()
	bare := newKeysCLI(t, "")
	bare.ok("pw\npw\n", "keys", "unsafe-import-eth-key", "a", keyVectors[0].priv)
	if got := bare.files("file"); !slices.Equal(got, []string{"a.json"}) {
		t.Errorf("home without app.toml: keyring-file holds %v", got)
	}

	k := newKeysCLI(t, "")
	k.ok("", "init", "--chain-id", "ember_9000-1")
	k.ok("pw\npw\n", "keys", "unsafe-import-eth-key", "a", keyVectors[0].priv) // app.toml says file
	path := filepath.Join(k.home, "config", "app.toml")
	toml, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switched := strings.Replace(string(toml), `backend = "file"`, `backend = "test"`, 1)
	if switched == string(toml) {
		t.Fatalf("app.toml has no [keyring] backend = \"file\":\n%s", toml)
	}
	if err := os.WriteFile(path, []byte(switched), 0o644); err != nil {
		t.Fatal(err)
	}
	k.ok("", "keys", "unsafe-import-eth-key", "b", keyVectors[1].priv) // no passphrase asked
	if f, tst := k.files("file"), k.files("test"); !slices.Equal(f, []string{"a.json"}) || !slices.Equal(tst, []string{"b.json"}) {
		t.Errorf("keyring-file %v, keyring-test %v", f, tst)
	}
	// The flag overrides app.toml.
	k.ok("pw\n", "keys", "show", "a", "--keyring-backend", "file")
	k.fails("unknown keyring backend", "", "keys", "list", "--keyring-backend", "os")
}

// TestKeysAddListShowDelete runs the life of a key on both backends with
// the passphrase protocol of docs/keys.md.
func TestKeysAddListShowDelete(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"test", "file"} {
		t.Run(backend, func(t *testing.T) {
			k := newKeysCLI(t, backend)
			pass := func(lines ...string) string { // stdin lines, only for the file backend
				if backend == "test" {
					return ""
				}
				return strings.Join(lines, "\n") + "\n"
			}
			out, errOut, err := k.run(pass("pw1", "pw1"), "keys", "add", "alice")
			if err != nil {
				t.Fatalf("keys add: %v\n%s", err, errOut)
			}
			if !strings.Contains(errOut, "**Important** write this mnemonic phrase in a safe place.") {
				t.Errorf("no mnemonic warning on stderr: %q", errOut)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			mnemonic := lines[len(lines)-1]
			if n := len(strings.Fields(mnemonic)); n != 24 {
				t.Fatalf("mnemonic has %d words: %q", n, mnemonic)
			}
			alice := k.show("alice")
			if out != textListing(alice.Address, "alice", alice.PubKey) || !strings.HasPrefix(alice.Address, "ember1") {
				t.Errorf("keys add printed %q; show gives %+v", out, alice)
			}
			// The mnemonic recovers the same key elsewhere: index 0 by default.
			other := newKeysCLI(t, "test")
			other.ok(mnemonic+"\n", "keys", "add", "again", "--recover")
			if got := other.show("again"); got.Address != alice.Address || got.PubKey != alice.PubKey {
				t.Errorf("recovered %+v, want %+v", got, alice)
			}

			var bob keyJSON
			raw := k.ok(pass("pw2", "pw2"), "keys", "add", "bob", "-o", "json")
			if err := json.Unmarshal([]byte(raw), &bob); err != nil || len(strings.Fields(bob.Mnemonic)) != 24 || bob.Address == alice.Address {
				t.Fatalf("keys add -o json: %v %s", err, raw)
			}
			bob.Mnemonic = ""
			want := textListing(alice.Address, "alice", alice.PubKey) + textListing(bob.Address, "bob", bob.PubKey)
			if got := k.ok("", "keys", "list"); got != want {
				t.Errorf("keys list:\n got %q\nwant %q", got, want)
			}

			// The key file is a geth key file under the backend's passphrase.
			file, err := os.ReadFile(filepath.Join(k.home, "keyring-"+backend, "alice.json"))
			if err != nil {
				t.Fatal(err)
			}
			filePass := map[string]string{"test": "", "file": "pw1"}[backend]
			if key, err := keystore.DecryptKey(file, filePass); err != nil || k.show("alice").Address != accounts.Bech32("ember", key.Address) {
				t.Errorf("geth cannot decrypt alice.json with %q: %v", filePass, err)
			}

			if backend == "file" {
				k.fails("wrong passphrase", "nope\n", "keys", "delete", "alice", "--yes")
			}
			k.fails("not confirmed", pass("pw1")+"n\n", "keys", "delete", "alice")
			if got := k.files(backend); !slices.Equal(got, []string{"alice.json", "bob.json"}) {
				t.Fatalf("after refused deletes: %v", got)
			}
			k.ok(pass("pw1")+"y\n", "keys", "delete", "alice")
			k.ok(pass("pw2"), "keys", "delete", "bob", "--yes")
			if got := k.files(backend); len(got) != 0 {
				t.Errorf("after deletes: %v", got)
			}
			_, errOut, _ = k.run("", "keys", "list")
			if !strings.Contains(errOut, "No records were found in keyring") {
				t.Errorf("empty keys list: stderr %q", errOut)
			}
			if got := k.ok("", "keys", "list", "-o", "json"); got != "[]\n" {
				t.Errorf("empty keys list -o json = %q", got)
			}
		})
	}
}

// TestKeysGethKeystoreInterop: `keys export` output is a key file geth's
// keystore imports, and a file geth's keystore writes imports with `keys
// import` to the same address.
func TestKeysGethKeystoreInterop(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"test", "file"} {
		t.Run(backend, func(t *testing.T) {
			k := newKeysCLI(t, backend)
			pass := func(lines ...string) string {
				if backend == "test" {
					return ""
				}
				return strings.Join(lines, "\n") + "\n"
			}
			v := keyVectors[1]
			k.ok(pass("pw", "pw"), "keys", "unsafe-import-eth-key", "alice", v.priv)

			exported := k.ok(pass("pw")+"exp\nexp\n", "keys", "export", "alice")
			key, err := keystore.DecryptKey([]byte(exported), "exp")
			if err != nil || key.Address != common.HexToAddress(v.hex) {
				t.Fatalf("geth DecryptKey of keys export: %v, %v", err, key)
			}
			ks := keystore.NewKeyStore(t.TempDir(), keystore.LightScryptN, keystore.LightScryptP)
			acct, err := ks.Import([]byte(exported), "exp", "geth")
			if err != nil || acct.Address != common.HexToAddress(v.hex) {
				t.Fatalf("geth KeyStore.Import: %v %v", acct, err)
			}

			// A key geth creates comes in through keys import.
			gethAcct, err := ks.NewAccount("gethpw")
			if err != nil {
				t.Fatal(err)
			}
			k.fails("wrong passphrase", "nope\n", "keys", "import", "bob", gethAcct.URL.Path)
			out := k.ok("gethpw\n", "keys", "import", "bob", gethAcct.URL.Path)
			bobAcc := accounts.Bech32("ember", gethAcct.Address)
			if !strings.HasPrefix(out, "- address: "+bobAcc+"\n") || k.show("bob").Address != bobAcc {
				t.Errorf("keys import printed %q, want address %s", out, bobAcc)
			}
			// The file backend keeps the file's passphrase; geth's copy and
			// ours hold the same private key.
			hexKey := strings.TrimSpace(k.ok(pass("gethpw"), "keys", "unsafe-export-eth-key", "bob"))
			priv, err := crypto.HexToECDSA(hexKey)
			if err != nil || crypto.PubkeyToAddress(priv.PublicKey) != gethAcct.Address {
				t.Errorf("unsafe-export-eth-key of the imported key: %v", err)
			}
			k.fails("already exists", "exp\n", "keys", "import", "carol", writeTemp(t, exported))
			if got := k.files(backend); !slices.Equal(got, []string{"alice.json", "bob.json"}) {
				t.Errorf("keyring holds %v", got)
			}
		})
	}
}

// TestKeysGethFileInKeyring: a geth-written file dropped into the test
// keyring (as the node's personal_newAccount writes them) is listed, its
// public key recovered without a passphrase.
func TestKeysGethFileInKeyring(t *testing.T) {
	t.Parallel()
	k := newKeysCLI(t, "test")
	ks := keystore.NewKeyStore(filepath.Join(k.home, "keyring-test"), keystore.LightScryptN, keystore.LightScryptP)
	priv, _ := crypto.HexToECDSA(keyVectors[2].priv)
	acct, err := ks.ImportECDSA(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(filepath.Base(acct.URL.Path), ".json")
	want := textListing(keyVectors[2].acc, name, pubKeyJSON(t, keyVectors[2].priv))
	if got := k.ok("", "keys", "list"); got != want {
		t.Errorf("keys list:\n got %q\nwant %q", got, want)
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestKeysUnsafeImportExportRoundTrip(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"test", "file"} {
		t.Run(backend, func(t *testing.T) {
			k := newKeysCLI(t, backend)
			// Passphrase and repeat to import, the passphrase alone to export.
			importPass := map[string]string{"test": "", "file": "pw\npw\n"}[backend]
			exportPass := map[string]string{"test": "", "file": "pw\n"}[backend]
			for i, v := range keyVectors[:2] {
				name := fmt.Sprintf("k%d", i)
				in := v.priv
				if i == 1 {
					in = "0x" + strings.ToUpper(v.priv) // either spelling
				}
				k.ok(importPass, "keys", "unsafe-import-eth-key", name, in)
				if got := k.show(name).Address; got != v.acc {
					t.Errorf("%s address %s, want %s", name, got, v.acc)
				}
				got := strings.TrimSpace(k.ok(exportPass, "keys", "unsafe-export-eth-key", name))
				if got != strings.ToUpper(v.priv) {
					t.Errorf("%s exported %s, want %s", name, got, strings.ToUpper(v.priv))
				}
			}
			if backend == "file" {
				k.fails("wrong passphrase", "nope\n", "keys", "unsafe-export-eth-key", "k0")
			}
		})
	}
}

// TestKeysBadInputRefused: every bad input exits non-zero with a clear
// error, prints nothing on stdout, and writes nothing.
func TestKeysBadInputRefused(t *testing.T) {
	t.Parallel()
	k := newKeysCLI(t, "test")
	badChecksum := strings.Repeat("test ", 11) + "test"
	cases := []struct {
		want, stdin string
		args        []string
	}{
		{"invalid key name", "", []string{"keys", "add", "../evil"}},
		{"invalid key name", "", []string{"keys", "unsafe-import-eth-key", "_x", keyVectors[0].priv}},
		{"invalid key name", "", []string{"keys", "add", "a b"}},
		{"checksum does not match", badChecksum + "\n", []string{"keys", "add", "a", "--recover"}},
		{"got 2 words", "hello world\n", []string{"keys", "add", "a", "--recover"}},
		{"got 12 words", strings.Repeat("notaword ", 12) + "\n", []string{"keys", "add", "a", "--recover"}},
		{"standard input ended", "", []string{"keys", "add", "a", "--recover"}},
		{"must be below 2^31", accounts.TestMnemonic + "\n", []string{"keys", "add", "a", "--recover", "--index", "2147483648"}},
		{"invalid private key", "", []string{"keys", "unsafe-import-eth-key", "a", "xyz"}},
		{"invalid private key", "", []string{"keys", "unsafe-import-eth-key", "a", keyVectors[0].priv[:62]}},
		{"invalid private key", "", []string{"keys", "unsafe-import-eth-key", "a", strings.Repeat("0", 64)}},
		{"key not found", "", []string{"keys", "show", "nobody"}},
		{"key not found", "y\n", []string{"keys", "delete", "nobody"}},
		{"key not found", "exp\nexp\n", []string{"keys", "export", "nobody"}},
		{"key not found", "", []string{"keys", "unsafe-export-eth-key", "nobody"}},
		{"invalid --bech", "", []string{"keys", "show", "nobody", "--bech", "foo"}},
		{"invalid --output", "", []string{"keys", "list", "-o", "yaml"}},
		{"no such file", "pw\n", []string{"keys", "import", "a", filepath.Join(k.home, "missing.json")}},
		{"not a Web3 Secret Storage key file", "pw\n", []string{"keys", "import", "a", writeTemp(t, `{"address":"f39fd6e51aad88f6f4ce6ab8827279cfffb92266"}`)}},
		{"not a Web3 Secret Storage key file", "pw\n", []string{"keys", "import", "a", writeTemp(t, "not json")}},
	}
	for _, c := range cases {
		k.fails(c.want, c.stdin, c.args...)
	}
	if got := k.files("test"); len(got) != 0 {
		t.Errorf("bad inputs wrote %v", got)
	}

	// Passphrase mistakes on the file backend.
	f := keysCLI{t: t, home: k.home, backend: "file"}
	f.fails("passphrases do not match", "pw\npx\n", "keys", "add", "a")
	f.fails("passphrases do not match", accounts.TestMnemonic+"\npw\npx\n", "keys", "add", "a", "--recover")
	f.fails("empty passphrase refused", "\n\n", "keys", "unsafe-import-eth-key", "a", keyVectors[0].priv)
	f.fails("standard input ended", "pw\n", "keys", "unsafe-import-eth-key", "a", keyVectors[0].priv)
	if got := f.files("file"); len(got) != 0 {
		t.Errorf("refused passphrases wrote %v", got)
	}
	f.ok("pw\npw\n", "keys", "unsafe-import-eth-key", "a", keyVectors[0].priv)
	f.fails("already exists", "pw\npw\n", "keys", "unsafe-import-eth-key", "a", keyVectors[1].priv)
	f.fails("already exists", "pw\npw\n", "keys", "unsafe-import-eth-key", "b", keyVectors[0].priv)
	f.fails("already exists", accounts.TestMnemonic+"\npw\npw\n", "keys", "add", "b", "--recover")
	f.fails("wrong passphrase", "nope\nexp\nexp\n", "keys", "export", "a")
	f.fails("passphrases do not match", "pw\nexp\nexq\n", "keys", "export", "a")
	if got := f.files("file"); !slices.Equal(got, []string{"a.json"}) {
		t.Errorf("file keyring holds %v", got)
	}
}

// TestKeysFileScryptCost: `emberd keys add` on the file backend writes
// geth's standard scrypt cost; with the hidden --unsafe-light-scrypt (which
// the other keys tests use) the light one, and such a file is read by the
// same commands as any other.
func TestKeysFileScryptCost(t *testing.T) {
	k := newKeysCLI(t, "file")
	add := exec.Command(emberdBin, "keys", "add", "std", "--keyring-backend", "file", "--home", k.home)
	add.Stdin = strings.NewReader("pw\npw\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("emberd keys add: %v\n%s", err, out)
	}
	k.ok("pw\npw\n", "keys", "unsafe-import-eth-key", "light", keyVectors[0].priv)
	cost := func(name string) (n, p int) {
		raw, err := os.ReadFile(filepath.Join(k.home, "keyring-file", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Crypto struct {
				KDFParams struct {
					N int `json:"n"`
					P int `json:"p"`
				} `json:"kdfparams"`
			} `json:"crypto"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		return f.Crypto.KDFParams.N, f.Crypto.KDFParams.P
	}
	if n, p := cost("std"); n != keystore.StandardScryptN || p != keystore.StandardScryptP {
		t.Errorf("keys add wrote scrypt N=%d p=%d, want the standard N=%d p=%d", n, p, keystore.StandardScryptN, keystore.StandardScryptP)
	}
	if n, p := cost("light"); n != keystore.LightScryptN || p != keystore.LightScryptP {
		t.Errorf("--unsafe-light-scrypt wrote scrypt N=%d p=%d, want the light N=%d p=%d", n, p, keystore.LightScryptN, keystore.LightScryptP)
	}
	if got := strings.TrimSpace(k.ok("pw\n", "keys", "unsafe-export-eth-key", "light")); got != strings.ToUpper(keyVectors[0].priv) {
		t.Errorf("light key exported %s, want %s", got, strings.ToUpper(keyVectors[0].priv))
	}
	k.fails("wrong passphrase", "nope\n", "keys", "unsafe-export-eth-key", "light")
}
