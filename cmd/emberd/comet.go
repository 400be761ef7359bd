package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/node/config"
)

// cometCmd is the SDK's `comet` group: the node's CometBFT identities.
func cometCmd() *cobra.Command {
	var home string
	cmd := &cobra.Command{
		Use:     "comet",
		Aliases: []string{"cometbft", "tendermint"},
		Short:   "The node's CometBFT identities: node id, consensus key and address",
	}
	cmd.PersistentFlags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.AddCommand(&cobra.Command{
		Use:   "show-node-id",
		Short: "Print the node id (the <id> of <id>@<host>:<port> that peers dial)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cc, err := config.LoadComet(home)
			if err != nil {
				return err
			}
			nk, err := p2p.LoadNodeKey(cc.NodeKeyFile())
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), nk.ID())
			return nil
		},
	}, &cobra.Command{
		Use:   "show-validator",
		Short: "Print the consensus public key as JSON, as create-validator's --pubkey takes it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pub, err := consensusPubKey(home)
			if err != nil {
				return err
			}
			out, _ := json.Marshal(struct {
				Type string `json:"@type"`
				Key  []byte `json:"key"`
			}{"/cosmos.crypto.ed25519.PubKey", pub})
			fmt.Fprintln(cmd.OutOrStdout(), string(out))
			return nil
		},
	}, &cobra.Command{
		Use:   "show-address",
		Short: "Print the consensus address (embervalcons1…) and its hex form",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cc, err := config.LoadComet(home)
			if err != nil {
				return err
			}
			pv, err := loadPrivValidator(cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile())
			if err != nil {
				return err
			}
			prefixes, err := chainPrefixes(home)
			if err != nil {
				return err
			}
			addr := pv.Key.PubKey.Address()
			s, err := prefixes.Encode(accounts.KindConsensus, addr)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n%s\n", s, addr)
			return nil
		},
	})
	return cmd
}

// consensusPubKey is the 32-byte ed25519 key of the home's validator.
func consensusPubKey(home string) ([]byte, error) {
	cc, err := config.LoadComet(home)
	if err != nil {
		return nil, err
	}
	pv, err := loadPrivValidator(cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile())
	if err != nil {
		return nil, err
	}
	return pv.Key.PubKey.Bytes(), nil
}

// loadPrivValidator reads priv_validator_key.json, with an error rather
// than CometBFT's exit when it is missing.
func loadPrivValidator(keyFile, stateFile string) (*privval.FilePV, error) {
	if _, err := os.Stat(keyFile); err != nil {
		return nil, fmt.Errorf("consensus key: %w", err)
	}
	return privval.LoadFilePVEmptyState(keyFile, stateFile), nil
}
