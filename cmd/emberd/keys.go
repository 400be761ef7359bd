package main

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/cosmos/go-bip39"
	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v2"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/accounts/keyring"
	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/node/config"
)

// keysFlags are the flags every `keys` subcommand takes.
type keysFlags struct {
	home    string
	backend string
	// lightScrypt (--unsafe-light-scrypt, hidden) encrypts the keys the
	// command writes with geth's light scrypt cost instead of the standard
	// one: for tests of the file backend, which would otherwise spend most
	// of their time in scrypt. Not for keys that matter.
	lightScrypt bool
}

func keysCmd() *cobra.Command {
	f := &keysFlags{}
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Manage the keyring: secp256k1 keys stored as geth key files",
		Long: `Manage the keyring in <home>/keyring-<backend>/: one Web3 Secret Storage v3 file
per key (a geth keystore directory). Passphrases and mnemonics are read from
standard input, one line per prompt (see docs/keys.md).`,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.home, "home", defaultHome(), "node home directory")
	pf.StringVar(&f.backend, "keyring-backend", "", `keyring backend: test (no passphrases) or file (encrypted) (default from app.toml [keyring] backend, else "file")`)
	pf.BoolVar(&f.lightScrypt, "unsafe-light-scrypt", false, "encrypt the keys written with geth's light scrypt cost (N=2^12, p=6), not the standard one: for tests only")
	_ = pf.MarkHidden("unsafe-light-scrypt")
	cmd.AddCommand(keysAddCmd(f), keysListCmd(f), keysShowCmd(f), keysDeleteCmd(f),
		keysImportCmd(f), keysExportCmd(f), keysUnsafeImportCmd(f), keysUnsafeExportCmd(f))
	return cmd
}

// keysEnv is what a keys command works with once its flags are resolved.
type keysEnv struct {
	kr       *keyring.Keyring
	prefixes accounts.Prefixes
	ask      *prompter
	out      io.Writer
}

// open resolves the backend (flag, else the home's app.toml, else file) and
// the chain's bech32 prefix, and opens the keyring.
func (f *keysFlags) open(cmd *cobra.Command) (*keysEnv, error) {
	backend := f.backend
	if fl := cmd.Flag("keyring-backend"); fl == nil || !fl.Changed {
		var err error
		if backend, err = homeBackend(f.home); err != nil {
			return nil, err
		}
	}
	b, err := keyring.ParseBackend(backend)
	if err != nil {
		return nil, err
	}
	prefixes, err := chainPrefixes(f.home)
	if err != nil {
		return nil, err
	}
	var opts []keyring.Option
	if f.lightScrypt {
		opts = append(opts, keyring.LightScrypt())
	}
	kr, err := keyring.Open(f.home, b, opts...)
	if err != nil {
		return nil, err
	}
	return &keysEnv{kr: kr, prefixes: prefixes, ask: newPrompter(cmd.InOrStdin(), cmd.ErrOrStderr()), out: cmd.OutOrStdout()}, nil
}

// homeBackend is the keyring backend app.toml names, or file when the home
// has no app.toml (a keys-only home).
func homeBackend(home string) (string, error) {
	if _, err := os.Stat(config.AppPath(home)); errors.Is(err, os.ErrNotExist) {
		return string(keyring.File), nil
	}
	cfg, err := config.Load(home)
	if err != nil {
		return "", err
	}
	return cfg.Keyring.Backend, nil
}

// chainPrefixes reads the bech32 prefix from the home's genesis: it is a
// chain setting, so there is no flag for it. Without a genesis (a keys-only
// home) the default prefix applies.
func chainPrefixes(home string) (accounts.Prefixes, error) {
	path := filepath.Join(home, "config", "genesis.json")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return accounts.NewPrefixes(app.DefaultPrefix), nil
	}
	doc, err := cmttypes.GenesisDocFromFile(path)
	if err != nil {
		return accounts.Prefixes{}, fmt.Errorf("read bech32 prefix: %w", err)
	}
	state, err := app.ParseAppState(doc.AppState, doc.ChainID)
	if err != nil {
		return accounts.Prefixes{}, fmt.Errorf("read bech32 prefix from %s: %w", path, err)
	}
	return accounts.NewPrefixes(state.Bech32Prefix), nil
}

// checkNewName refuses a name that is invalid or taken, before anything is
// asked or generated.
func (e *keysEnv) checkNewName(name string) error {
	if err := keyring.ValidateName(name); err != nil {
		return err
	}
	if _, err := e.kr.Get(name); err == nil {
		return fmt.Errorf("%w: %q", keyring.ErrExists, name)
	}
	return nil
}

// checkNewKey refuses a key whose address the keyring already holds.
func (e *keysEnv) checkNewKey(addr common.Address) error {
	if other, err := e.kr.Find(addr); err == nil {
		return fmt.Errorf("%w: %s is stored as %q", keyring.ErrExists, addr.Hex(), other.Name)
	}
	return nil
}

// newPassphrase asks for the passphrase of a new key; the test backend asks
// nothing.
func (e *keysEnv) newPassphrase(name string) (string, error) {
	if e.kr.Backend() == keyring.Test {
		return "", nil
	}
	return e.ask.newPassphrase(fmt.Sprintf("key %q", name))
}

// decrypt asks for a stored key's passphrase (file backend) and decrypts it.
func (e *keysEnv) decrypt(name, prompt string) (*ecdsa.PrivateKey, error) {
	if _, err := e.kr.Get(name); err != nil {
		return nil, err
	}
	pass := ""
	if e.kr.Backend() != keyring.Test {
		var err error
		if pass, err = e.ask.secret(prompt); err != nil {
			return nil, err
		}
	}
	priv, err := e.kr.Decrypt(name, pass)
	if errors.Is(err, keystore.ErrDecrypt) && e.kr.Backend() == keyring.Test {
		// A test-keyring key made over personal_* has a passphrase: ask it.
		if pass, err = e.ask.secret(prompt); err != nil {
			return nil, err
		}
		priv, err = e.kr.Decrypt(name, pass)
	}
	if errors.Is(err, keystore.ErrDecrypt) {
		return nil, fmt.Errorf("wrong passphrase for key %q", name)
	}
	return priv, err
}

func keysAddCmd(f *keysFlags) *cobra.Command {
	var (
		fromMnemonic bool
		index        uint32
		output       string
	)
	cmd := &cobra.Command{
		Use:   "add NAME",
		Short: "Create a key from a new 24-word mnemonic, or recover one with --recover",
		Long: `Create a key at m/44'/60'/0'/0/<index> (eth_secp256k1, the path MetaMask uses) from
a new BIP39 24-word mnemonic, printed once; or, with --recover, from a mnemonic
read from standard input. File backend: then a passphrase and its repeat.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			e, err := f.open(cmd)
			if err != nil {
				return err
			}
			return e.add(args[0], fromMnemonic, index, output)
		},
	}
	cmd.Flags().BoolVar(&fromMnemonic, "recover", false, "recover the key from a mnemonic read from standard input")
	cmd.Flags().Uint32Var(&index, "index", 0, "address index N in m/44'/60'/0'/0/N")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

// add creates or recovers a key; a new mnemonic is shown only once the key
// is stored, so a refused passphrase leaves no orphan mnemonic behind.
func (e *keysEnv) add(name string, fromMnemonic bool, index uint32, output string) error {
	if err := e.checkNewName(name); err != nil {
		return err
	}
	if index >= hdkeychain.HardenedKeyStart {
		return fmt.Errorf("invalid --index %d: must be below 2^31 (the last path element is not hardened)", index)
	}
	mnemonic, err := e.mnemonic(fromMnemonic)
	if err != nil {
		return err
	}
	key, err := accounts.DeriveKey(mnemonic, index)
	if err != nil {
		return err
	}
	out, err := e.store(name, key.Private)
	if err != nil {
		return err
	}
	if !fromMnemonic && output == "json" {
		out.Mnemonic = mnemonic
	}
	if err := printKeys(e.out, output, []keyOutput{out}, true); err != nil {
		return err
	}
	if !fromMnemonic && output == "text" {
		// As Cosmos: the mnemonic goes to stderr, away from piped output.
		fmt.Fprintf(e.ask.out, "\n**Important** write this mnemonic phrase in a safe place.\nIt is the only way to recover your account if you ever forget your password.\n\n%s\n", mnemonic)
	}
	return nil
}

// store saves a new key under name with a new passphrase (asked for on the
// file backend) and returns its listing.
func (e *keysEnv) store(name string, priv *ecdsa.PrivateKey) (keyOutput, error) {
	if err := e.checkNewKey(crypto.PubkeyToAddress(priv.PublicKey)); err != nil {
		return keyOutput{}, err
	}
	pass, err := e.newPassphrase(name)
	if err != nil {
		return keyOutput{}, err
	}
	info, err := e.kr.Add(name, priv, pass)
	if err != nil {
		return keyOutput{}, err
	}
	return e.output(info, info.PubKey, accounts.KindAccount), nil
}

// mnemonic reads the mnemonic to recover, or makes a new 24-word one.
func (e *keysEnv) mnemonic(fromStdin bool) (string, error) {
	if !fromStdin {
		entropy, err := bip39.NewEntropy(256)
		if err != nil {
			return "", err
		}
		return bip39.NewMnemonic(entropy)
	}
	s, err := e.ask.secret("Enter your BIP39 mnemonic: ")
	if err != nil {
		return "", err
	}
	return checkMnemonic(s)
}

// checkMnemonic normalises spacing and checks the words and the checksum,
// with messages that do not repeat the secret.
func checkMnemonic(s string) (string, error) {
	words := strings.Fields(s)
	mnemonic := strings.Join(words, " ")
	if !bip39.IsMnemonicValid(mnemonic) {
		return "", fmt.Errorf("invalid mnemonic: want 12, 15, 18, 21 or 24 words of the BIP39 English list, got %d words", len(words))
	}
	if _, err := bip39.MnemonicToByteArray(mnemonic); err != nil {
		return "", errors.New("invalid mnemonic: the checksum does not match (a word is wrong or out of order)")
	}
	return mnemonic, nil
}

func keysListCmd(f *keysFlags) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every key with its address and public key",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			e, err := f.open(cmd)
			if err != nil {
				return err
			}
			list, err := e.kr.List()
			if err != nil {
				return err
			}
			if len(list) == 0 && output == "text" {
				fmt.Fprintln(e.ask.out, "No records were found in keyring")
				return nil
			}
			outs := make([]keyOutput, len(list))
			for i, info := range list {
				outs[i] = e.output(info, e.pubKey(info), accounts.KindAccount)
			}
			return printKeys(e.out, output, outs, false)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

func keysShowCmd(f *keysFlags) *cobra.Command {
	var (
		bech, output string
		addressOnly  bool
	)
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Show a key's bech32 address and public key",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kinds := map[string]accounts.Kind{"acc": accounts.KindAccount, "val": accounts.KindValidator, "cons": accounts.KindConsensus}
			kind, ok := kinds[bech]
			if !ok {
				return fmt.Errorf("invalid --bech %q: want acc, val or cons", bech)
			}
			if err := checkOutput(output); err != nil {
				return err
			}
			e, err := f.open(cmd)
			if err != nil {
				return err
			}
			info, err := e.kr.Get(args[0])
			if err != nil {
				return err
			}
			out := e.output(info, e.pubKey(info), kind)
			if addressOnly {
				fmt.Fprintln(e.out, out.Address)
				return nil
			}
			return printKeys(e.out, output, []keyOutput{out}, true)
		},
	}
	cmd.Flags().StringVar(&bech, "bech", "acc", "address spelling: acc (ember1…), val (embervaloper1…) or cons (embervalcons1…)")
	cmd.Flags().BoolVarP(&addressOnly, "address", "a", false, "print the address only")
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}

func keysDeleteCmd(f *keysFlags) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a key (file backend: after checking its passphrase)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := f.open(cmd)
			if err != nil {
				return err
			}
			name := args[0]
			if _, err := e.kr.Get(name); err != nil {
				return err
			}
			pass := ""
			if e.kr.Backend() != keyring.Test {
				if pass, err = e.ask.secret(fmt.Sprintf("Enter the passphrase of key %q: ", name)); err != nil {
					return err
				}
			}
			if !yes {
				ok, err := e.ask.confirm(fmt.Sprintf("Key %q will be deleted. Continue?", name))
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("key %q not deleted: not confirmed", name)
				}
			}
			// Delete checks the passphrase before removing the file.
			err = e.kr.Delete(name, pass)
			if errors.Is(err, keystore.ErrDecrypt) && e.kr.Backend() == keyring.Test {
				// A test-keyring key made over personal_* has a passphrase: ask it.
				if pass, err = e.ask.secret(fmt.Sprintf("Enter the passphrase of key %q: ", name)); err != nil {
					return err
				}
				err = e.kr.Delete(name, pass)
			}
			if err != nil {
				if errors.Is(err, keystore.ErrDecrypt) {
					return fmt.Errorf("wrong passphrase for key %q: not deleted", name)
				}
				return err
			}
			fmt.Fprintf(e.ask.out, "Key %q deleted\n", name)
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "skip the confirmation")
	return cmd
}

func keysImportCmd(f *keysFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "import NAME FILE",
		Short: "Import a Web3 Secret Storage v3 key file (e.g. from geth's keystore)",
		Long: `Import a Web3 Secret Storage v3 key file. Reads the file's passphrase from
standard input; the file backend encrypts its copy with the same passphrase.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := f.open(cmd)
			if err != nil {
				return err
			}
			return e.importFile(args[0], args[1])
		},
	}
}

func (e *keysEnv) importFile(name, file string) error {
	if err := e.checkNewName(name); err != nil {
		return err
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	pass, err := e.ask.secret(fmt.Sprintf("Enter the passphrase of %s: ", file))
	if err != nil {
		return err
	}
	key, err := decryptKeyFile(raw, pass, file)
	if err != nil {
		return err
	}
	if err := e.checkNewKey(key.Address); err != nil {
		return err
	}
	info, err := e.kr.Add(name, key.PrivateKey, pass)
	if err != nil {
		return err
	}
	return printKeys(e.out, "text", []keyOutput{e.output(info, info.PubKey, accounts.KindAccount)}, true)
}

// decryptKeyFile decrypts a key file and checks that the address it declares
// is the key's: a mismatch means a damaged or forged file.
func decryptKeyFile(raw []byte, pass, file string) (*keystore.Key, error) {
	var declared struct {
		Address string `json:"address"`
	}
	if err := json.Unmarshal(raw, &declared); err != nil {
		return nil, fmt.Errorf("%s is not a Web3 Secret Storage key file: %w", file, err)
	}
	key, err := keystore.DecryptKey(raw, pass)
	if errors.Is(err, keystore.ErrDecrypt) {
		return nil, fmt.Errorf("wrong passphrase for %s", file)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a Web3 Secret Storage key file: %w", file, err)
	}
	if declared.Address != "" && common.HexToAddress(declared.Address) != key.Address {
		return nil, fmt.Errorf("%s declares address %s but holds the key of %s", file, declared.Address, key.Address.Hex())
	}
	return key, nil
}

func keysExportCmd(f *keysFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "export NAME",
		Short: "Print a key as a Web3 Secret Storage v3 file, encrypted with a new passphrase",
		Long: `Print the key as a Web3 Secret Storage v3 JSON file that geth, MetaMask and
Foundry import. Reads the key's passphrase (file backend), then the export
passphrase and its repeat, from standard input.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := f.open(cmd)
			if err != nil {
				return err
			}
			name := args[0]
			priv, err := e.decrypt(name, fmt.Sprintf("Enter the passphrase of key %q: ", name))
			if err != nil {
				return err
			}
			pass, err := e.ask.newPassphrase("the exported key file")
			if err != nil {
				return err
			}
			keyJSON, err := encryptKeyFile(priv, pass, e.kr)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.out, string(keyJSON))
			return nil
		},
	}
}

// encryptKeyFile writes a plain geth key file (no Ember fields) under the
// export passphrase, at the keyring's PassphraseScrypt cost: standard scrypt
// from the file backend, geth's light scrypt from the test backend's
// development keys (whose keyring copies have no passphrase and so no cost).
func encryptKeyFile(priv *ecdsa.PrivateKey, pass string, kr *keyring.Keyring) ([]byte, error) {
	id, err := uuid.NewRandom()
	if err != nil {
		return nil, err
	}
	n, p := kr.PassphraseScrypt()
	key := &keystore.Key{Id: id, Address: crypto.PubkeyToAddress(priv.PublicKey), PrivateKey: priv}
	return keystore.EncryptKey(key, pass, n, p)
}

func keysUnsafeImportCmd(f *keysFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "unsafe-import-eth-key NAME HEX",
		Short: "Import a raw hex private key (unsafe: the key is on the command line)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := f.open(cmd)
			if err != nil {
				return err
			}
			name := args[0]
			if err := e.checkNewName(name); err != nil {
				return err
			}
			priv, err := parsePrivateKey(args[1])
			if err != nil {
				return err
			}
			out, err := e.store(name, priv)
			if err != nil {
				return err
			}
			return printKeys(e.out, "text", []keyOutput{out}, true)
		},
	}
}

// parsePrivateKey reads 32 bytes of hex, with or without 0x. The error does
// not repeat the input: it may be a real key with a typo.
func parsePrivateKey(s string) (*ecdsa.PrivateKey, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	priv, err := crypto.HexToECDSA(s)
	if err != nil {
		return nil, fmt.Errorf("invalid private key: want 64 hex digits (32 bytes) of a valid secp256k1 key, got %d characters", len(s))
	}
	return priv, nil
}

func keysUnsafeExportCmd(f *keysFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "unsafe-export-eth-key NAME",
		Short: "Print a key's raw private key in hex (unsafe: anyone who sees it owns the account)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e, err := f.open(cmd)
			if err != nil {
				return err
			}
			name := args[0]
			priv, err := e.decrypt(name, fmt.Sprintf("**WARNING this is an unsafe way to export your unencrypted private key**\nEnter the passphrase of key %q: ", name))
			if err != nil {
				return err
			}
			// Uppercase without 0x, as Ethermint prints it; MetaMask, geth
			// and crypto.HexToECDSA all accept this spelling.
			fmt.Fprintln(e.out, strings.ToUpper(hexutil.Encode(crypto.FromECDSA(priv))[2:]))
			return nil
		},
	}
}

// keyOutput is a key as `keys` prints it: the fields and JSON names of the
// Cosmos SDK's KeyOutput, so Cosmos scripts parse it.
type keyOutput struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Address  string `json:"address"`
	PubKey   string `json:"pubkey"`
	Mnemonic string `json:"mnemonic,omitempty"`
}

// output describes a key with its address spelled as kind. The public key is
// the Ethermint Any JSON, or empty when unknown (a geth-written file in the
// file backend: only the passphrase would reveal it).
func (e *keysEnv) output(info keyring.Info, pub []byte, kind accounts.Kind) keyOutput {
	addr, _ := e.prefixes.Encode(kind, info.Address[:]) // 20 bytes: cannot fail
	out := keyOutput{Name: info.Name, Type: "local", Address: addr}
	if pub != nil {
		anyJSON, _ := json.Marshal(struct {
			Type string `json:"@type"`
			Key  []byte `json:"key"`
		}{"/ethermint.crypto.v1.ethsecp256k1.PubKey", pub})
		out.PubKey = string(anyJSON)
	}
	return out
}

// pubKey is the key's public key: recorded in its file, or, in the test
// backend, recovered by decrypting with the empty passphrase.
func (e *keysEnv) pubKey(info keyring.Info) []byte {
	if info.PubKey != nil || e.kr.Backend() != keyring.Test {
		return info.PubKey
	}
	priv, err := e.kr.Decrypt(info.Name, "")
	if err != nil {
		return nil
	}
	return crypto.CompressPubkey(&priv.PublicKey)
}

func checkOutput(s string) error {
	if s != "text" && s != "json" {
		return fmt.Errorf("invalid --output %q: want text or json", s)
	}
	return nil
}

// printKeys prints keys as JSON (one object when single, else an array) or
// as the Cosmos SDK's text listing: YAML with sorted keys.
func printKeys(w io.Writer, format string, outs []keyOutput, single bool) error {
	if format == "json" {
		var v any = outs
		if single {
			v = outs[0]
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	// Through JSON into maps, as Cosmos (sigs.k8s.io/yaml) does: the YAML
	// keys come out sorted and strings are quoted the same way.
	var maps []map[string]string
	b, _ := json.Marshal(outs)
	if err := json.Unmarshal(b, &maps); err != nil {
		return err
	}
	y, err := yaml.Marshal(maps)
	if err != nil {
		return err
	}
	_, err = w.Write(y)
	return err
}
