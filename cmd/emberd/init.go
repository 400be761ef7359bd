package main

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/node/homes"
)

func initCmd() *cobra.Command {
	var (
		home, chainID, reward string
		genesis               string
		funds                 []string
	)
	cmd := &cobra.Command{
		Use:   "init [moniker]",
		Short: "Create a node home: CometBFT config and keys, genesis.json, app.toml",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			moniker := "ember"
			if len(args) == 1 {
				moniker = args[0]
			}
			alloc, err := parseFunds(funds)
			if err != nil {
				return err
			}
			opts := homes.InitOptions{Home: home, Moniker: moniker, ChainID: chainID, Alloc: alloc}
			if reward != "" {
				if !common.IsHexAddress(reward) {
					return fmt.Errorf("invalid --reward-address %q", reward)
				}
				addr := common.HexToAddress(reward)
				opts.RewardAddress = &addr
			}
			if genesis != "" {
				if err := initFromGenesis(opts, genesis); err != nil { // export.go
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Initialized %s with genesis %s\n", home, genesis)
				return nil
			}
			if chainID == "" {
				return fmt.Errorf("required flag \"chain-id\" not set")
			}
			if err := homes.Init(opts); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Initialized %s for chain %s\n", home, chainID)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().StringVar(&chainID, "chain-id", "", "chain id, ember_<eip155 id>-<version> (required without --genesis)")
	cmd.Flags().StringVar(&genesis, "genesis", "", "genesis.json to start from (e.g. one `emberd export` wrote) instead of a new one")
	cmd.Flags().StringVar(&reward, "reward-address", "", "0x address receiving this validator's priority fees (default: the validator's CometBFT address)")
	cmd.Flags().StringArrayVar(&funds, "account", nil, "fund an account at genesis: ADDRESS=WEI (0x or bech32 address; repeatable)")
	return cmd
}

// parseFunds reads ADDRESS=WEI pairs. The address may be 0x hex or bech32
// with the default prefix.
func parseFunds(funds []string) (types.GenesisAlloc, error) {
	alloc := types.GenesisAlloc{}
	for _, f := range funds {
		addrStr, amount, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("invalid --account %q: want ADDRESS=WEI", f)
		}
		addr, err := accounts.ParseAddress(app.DefaultPrefix, addrStr)
		if err != nil {
			return nil, fmt.Errorf("invalid --account %q: %w", f, err)
		}
		wei, ok := new(big.Int).SetString(amount, 10)
		if !ok || wei.Sign() < 0 {
			return nil, fmt.Errorf("invalid --account %q: amount must be a decimal number of wei", f)
		}
		if _, dup := alloc[addr]; dup {
			return nil, fmt.Errorf("invalid --account %q: %s funded twice", f, addr)
		}
		alloc[addr] = types.Account{Balance: wei}
	}
	return alloc, nil
}
