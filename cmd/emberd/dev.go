package main

import (
	"fmt"
	"io"
	"math/big"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/node"
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
		flags    nodeFlags
	)
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run a single-validator development chain with prefunded accounts",
		Long: `Run a single-validator development chain: every JSON-RPC namespace enabled, every
surface on 127.0.0.1, a block as soon as transactions arrive, and prefunded accounts
derived from the test mnemonic (the same keys as anvil and Hardhat).

Without --home the chain lives in a temporary directory removed on exit. With
--home DIR it is kept in DIR (created if empty); later runs of 'emberd dev --home DIR'
or 'emberd start --home DIR' continue that chain. --chain-id, --accounts, --mnemonic,
--balance and --empty-block-interval only apply when the home is created.`,
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
			if !node.Initialized(home) {
				bal, ok := new(big.Int).SetString(balance, 10)
				if !ok || bal.Sign() < 0 {
					return fmt.Errorf("invalid --balance %q: want a decimal amount of wei", balance)
				}
				addrs := make([]common.Address, len(keys))
				for i, k := range keys {
					addrs[i] = k.Address
				}
				err := node.InitHome(node.InitOptions{
					Home: home, Moniker: "ember-dev", ChainID: chainID,
					Alloc: node.FundAll(addrs, bal), Dev: true, EmptyBlockInterval: interval,
				})
				if err != nil {
					return err
				}
			}
			nd, err := node.New(home, flags.overrides(cmd))
			if err != nil {
				return err
			}
			printDevBanner(cmd.OutOrStdout(), nd, keys, mnemonic, home)
			return run(nd)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&home, "home", "", "keep the chain in this directory (default: a temporary one)")
	fs.StringVar(&chainID, "chain-id", DevChainID, "chain id of a new dev chain")
	fs.StringVar(&mnemonic, "mnemonic", accounts.TestMnemonic, "mnemonic of the prefunded accounts")
	fs.IntVar(&n, "accounts", 10, "number of prefunded accounts")
	fs.StringVar(&balance, "balance", new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether)).String(), "balance of each prefunded account, in wei")
	fs.DurationVar(&interval, "empty-block-interval", 10*time.Second, "make an empty block after this long without transactions (0: never)")
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
		fmt.Fprintf(w, "REST       http://%s  (Cosmos-style accounts and balances)\n", cfg.REST.Address)
	}
	fmt.Fprintf(w, "Chain id   %v   Gas limit %d   Base fee floor %v wei\n\n", st.EVM.Config.ChainID, st.EVM.GasLimit, st.MinBaseFee())
}
