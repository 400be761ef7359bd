package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/accounts/keyring"
	"github.com/emberchain/ember/devchain"
	"github.com/emberchain/ember/node"
	"github.com/emberchain/ember/node/homes"
	"github.com/emberchain/ember/rpc"
)

// DevChainID is the chain id of `emberd dev`: EIP-155 id 31337, the one
// Hardhat and anvil use for local chains, so wallets and tools configured for
// "localhost" work unchanged.
const DevChainID = "ember_31337-1"

func devCmd() *cobra.Command {
	var (
		home     string
		chainID  string
		mnemonic string
		n        int
		balance  string
		interval time.Duration
		unbond   time.Duration
		flags    nodeFlags

		loadState, dumpState string
	)
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run a single-validator development chain with prefunded accounts",
		Long: `Run a single-validator development chain: every JSON-RPC namespace enabled, every
surface on 127.0.0.1 (the explorer API included), a block as soon as transactions arrive, and prefunded accounts
derived from the test mnemonic (the same keys as anvil and Hardhat).

The prefunded keys are also in the home's test keyring (<home>/keyring-test, as dev0,
dev1, ...) and unlocked until exit, so eth_accounts lists them and eth_sendTransaction
and eth_sign work with them, as on anvil (not with --keyring-backend file, which serves
the file keyring instead). The private namespaces (personal) need a JWT made from
<home>/config/jwt.hex: the banner shows how.

Without --home the chain lives in a temporary directory removed on exit. With
--home DIR it is kept in DIR (created if empty); later runs of 'emberd dev --home DIR'
or 'emberd start --home DIR' continue that chain. --chain-id, --accounts, --mnemonic,
--balance and --empty-block-interval only apply when the home is created.

--load-state FILE applies a state dumped by anvil_dumpState or --dump-state (anvil's
JSON, gzip-compressed or not) once the chain runs, as blocks of edits; --dump-state FILE
writes the state at the head to FILE when the chain is stopped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if home == "" {
				dir, err := os.MkdirTemp("", "emberd-dev-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				home = dir
			}
			keys, err := accounts.DeriveKeys(mnemonic, n)
			if err != nil {
				return err
			}
			if !homes.Initialized(home) {
				bal, ok := new(big.Int).SetString(balance, 10)
				if !ok || bal.Sign() < 0 {
					return fmt.Errorf("invalid --balance %q: want a decimal amount of wei", balance)
				}
				err := homes.Init(homes.InitOptions{
					Home: home, Moniker: "ember-dev", ChainID: chainID,
					Alloc: homes.FundAll(addresses(keys), bal), Dev: true, EmptyBlockInterval: interval,
					Operator: devOperator(keys), UnbondingTime: unbond,
				})
				if err != nil {
					return err
				}
			}
			if err := importDevKeys(cmd.ErrOrStderr(), home, keys); err != nil {
				return err
			}
			if err := servePprof(flags.pprof); err != nil {
				return err
			}
			nd, err := node.New(home, flags.overrides(cmd))
			if err != nil {
				return err
			}
			nd.Config().Runtime.Apply()
			nd.AnswerSendsMined() // as Hardhat Network and anvil: a send answers once mined
			unlocked := nd.Config().Keyring.Backend == string(keyring.Test)
			if unlocked {
				if err := nd.UnlockDevKeys(addresses(keys)); err != nil {
					return err
				}
			}
			printDevBanner(cmd.OutOrStdout(), nd, keys, mnemonic, home)
			if err := printPrivateAccess(cmd.OutOrStdout(), nd, home, unlocked); err != nil {
				return err
			}
			return runDev(nd, loadState, dumpState)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&loadState, "load-state", "", "apply the state in this file (anvil_dumpState's JSON, gzip-compressed or not) at start, in blocks of edits")
	fs.StringVar(&dumpState, "dump-state", "", "write the state to this file (JSON, anvil's shape) when stopped")
	fs.StringVar(&home, "home", "", "keep the chain in this directory (default: a temporary one)")
	fs.StringVar(&chainID, "chain-id", DevChainID, "chain id of a new dev chain")
	fs.StringVar(&mnemonic, "mnemonic", accounts.TestMnemonic, "mnemonic of the prefunded accounts")
	fs.IntVar(&n, "accounts", 10, "number of prefunded accounts")
	fs.StringVar(&balance, "balance", new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether)).String(), "balance of each prefunded account, in wei")
	fs.DurationVar(&interval, "empty-block-interval", 10*time.Second, "make an empty block after this long without transactions (0: never)")
	fs.DurationVar(&unbond, "unbonding-time", 0, "unbonding time of a new dev chain's staking (app_state.staking.unbonding_time; 0: 21 days)")
	flags.register(cmd)
	return cmd
}

func printDevBanner(w io.Writer, nd *node.Node, keys []*accounts.Key, mnemonic, home string) {
	st := nd.AppState()
	cfg := nd.Config()
	fmt.Fprintf(w, "Ember development chain %s (EIP-155 id %v), home %s\n\n", nd.Genesis().ChainID, st.EVM.Config.ChainID, home)
	fmt.Fprintf(w, "Accounts (mnemonic %q, path m/44'/60'/0'/0/i)\n", mnemonic)
	for _, k := range keys {
		bal := new(big.Int)
		if acc, ok := st.EVM.Alloc[k.Address]; ok {
			bal = acc.Balance
		}
		fmt.Fprintf(w, "(%d) %s  %s  %s ETH\n    private key %s\n", k.Index, k.Address.Hex(), accounts.Bech32(st.Bech32Prefix, k.Address),
			new(big.Int).Div(bal, big.NewInt(params.Ether)), hexutil.Encode(crypto.FromECDSA(k.Private)))
	}
	fmt.Fprintf(w, "\nJSON-RPC   http://%s  ws://%s  (namespaces %v)\n", cfg.JSONRPC.Address, cfg.JSONRPC.WSAddress, cfg.JSONRPC.API)
	fmt.Fprintf(w, "CometBFT   %s\n", nd.CometConfig().RPC.ListenAddress)
	if cfg.REST.Enable {
		fmt.Fprintf(w, "REST       http://%s  (Cosmos SDK gateway: auth, bank, staking, distribution, slashing, mint, gov, upgrade, tx, tendermint)\n", cfg.REST.Address)
	}
	if cfg.GRPC.Enable {
		fmt.Fprintf(w, "gRPC       %s  (the same Cosmos services; abci_query takes their method paths)\n", cfg.GRPC.Address)
	}
	if cfg.Explorer.Enable {
		fmt.Fprintf(w, "Explorer   http://%s/  (pages: blocks, transactions, addresses, tokens, contracts, validators, governance)\n", cfg.Explorer.Address)
		fmt.Fprintf(w, "           http://%s/api/v2/  (Blockscout API v2)\n", cfg.Explorer.Address)
	}
	if cfg.Metrics.Enable {
		fmt.Fprintf(w, "Metrics    http://%s/metrics  (Prometheus: ember_* and cometbft_*)\n", cfg.Metrics.Address)
	}
	fmt.Fprintf(w, "Chain id   %v   Gas limit %d   Base fee floor %v wei\n\n", st.EVM.Config.ChainID, st.EVM.GasLimit, st.MinBaseFee())
}

func addresses(keys []*accounts.Key) []common.Address {
	out := make([]common.Address, len(keys))
	for i, k := range keys {
		out[i] = k.Address
	}
	return out
}

// importDevKeys stores each prefunded key in home's test keyring as
// dev<index>, unless its address is there already (a kept dev home).
func importDevKeys(warn io.Writer, home string, keys []*accounts.Key) error {
	kr, err := keyring.Open(home, keyring.Test)
	if err != nil {
		return err
	}
	named := make([]keyring.NamedKey, len(keys))
	for i, k := range keys {
		named[i] = keyring.NamedKey{Name: fmt.Sprintf("dev%d", k.Index), Key: k.Private}
	}
	skipped, err := kr.AddAll(named, "")
	if err != nil {
		return err
	}
	for i, err := range skipped {
		// An address already stored is a kept dev home: nothing to do. A name
		// holding another key (a home made with another mnemonic) is left;
		// the account stays usable by its private key.
		if err != nil && !errors.Is(err, keyring.ErrAddressStored) {
			fmt.Fprintf(warn, "warning: dev key %d not imported into %s: %v\n", keys[i].Index, kr.Dir(), err)
		}
	}
	return nil
}

// printPrivateAccess says where the dev keys are and how to reach the
// private namespaces.
func printPrivateAccess(w io.Writer, nd *node.Node, home string, unlocked bool) error {
	cfg := nd.Config()
	if unlocked {
		fmt.Fprintf(w, "Keyring    test, %s: the accounts above, unlocked until exit (eth_accounts, eth_sendTransaction, eth_sign)\n",
			filepath.Join(home, "keyring-test"))
	} else {
		fmt.Fprintf(w, "Keyring    %s, %s (the dev accounts are in keyring-test, not served)\n",
			cfg.Keyring.Backend, filepath.Join(home, "keyring-"+cfg.Keyring.Backend))
	}
	var private []string
	for _, ns := range cfg.JSONRPC.API {
		if slices.Contains(rpc.PrivateNamespaces, ns) {
			private = append(private, ns)
		}
	}
	if len(private) == 0 {
		return nil
	}
	file := filepath.Join(home, rpc.JWTSecretFile)
	secret, err := rpc.EnsureJWTSecret(file)
	if err != nil {
		return err
	}
	url := "http://" + cfg.JSONRPC.Address
	fmt.Fprintf(w, "Private    %s: header 'Authorization: Bearer <JWT>', HS256 with the secret in %s, iat within 60 s\n",
		strings.Join(private, ", "), file)
	fmt.Fprintf(w, "  curl -H \"Authorization: Bearer $(emberd auth token --home %s)\" -H 'Content-Type: application/json' \\\n"+
		"    -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"personal_listAccounts\",\"params\":[]}' %s\n", home, url)
	fmt.Fprintf(w, "  cast rpc --rpc-url %s --jwt-secret %s personal_listAccounts\n\n", url, hexutil.Encode(secret)[2:])
	return nil
}

// runDev runs a dev chain until SIGINT or SIGTERM (or its halt height),
// first loading the state
// in loadFile, and writing the state to dumpFile at the stop (both
// optional).
func runDev(nd *node.Node, loadFile, dumpFile string) error {
	if err := nd.Start(); err != nil {
		return err
	}
	if loadFile != "" {
		if err := loadDevState(nd, loadFile); err != nil {
			nd.Stop()
			return err
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	var err error
	select {
	case <-sig:
	case err = <-nd.Halted(): // --halt-height (see run)
	case <-nd.Failed(): // a write it needs failed (node/failstop.go): no state to dump
		stopWithin(nd, haltStopTimeout)
		return nd.HaltCause()
	}
	if dumpFile != "" {
		if derr := dumpDevState(nd, dumpFile); err == nil {
			err = derr
		}
	}
	nd.Stop()
	return err
}

func loadDevState(nd *node.Node, file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("--load-state: %w", err)
	}
	st, err := devchain.DecodeState(raw)
	if err != nil {
		return fmt.Errorf("--load-state %s: %w", file, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := nd.LoadState(ctx, st); err != nil {
		return fmt.Errorf("--load-state %s: %w", file, err)
	}
	return nil
}

func dumpDevState(nd *node.Node, file string) error {
	st, err := nd.DumpState()
	if err != nil {
		return fmt.Errorf("--dump-state: %w", err)
	}
	raw, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		return fmt.Errorf("--dump-state: %w", err)
	}
	return nil
}
