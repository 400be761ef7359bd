package main

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/node"
)

func initCmd() *cobra.Command {
	var (
		home, chainID, reward string
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
			opts := node.InitOptions{Home: home, Moniker: moniker, ChainID: chainID}
			if reward != "" {
				if !common.IsHexAddress(reward) {
					return fmt.Errorf("invalid --reward-address %q", reward)
				}
				addr := common.HexToAddress(reward)
				opts.RewardAddress = &addr
			}
			if err := node.InitHome(opts); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Initialized %s for chain %s\n", home, chainID)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().StringVar(&chainID, "chain-id", "", "chain id, ember_<eip155 id>-<version> (required)")
	cmd.Flags().StringVar(&reward, "reward-address", "", "0x address receiving this validator's priority fees (default: the validator's CometBFT address)")
	_ = cmd.MarkFlagRequired("chain-id")
	return cmd
}
