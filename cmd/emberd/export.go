package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	cmtjson "github.com/cometbft/cometbft/libs/json"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/node/config"
	"github.com/emberchain/ember/node/homes"
	"github.com/emberchain/ember/store"
)

// exportCmd is the SDK's `export`: the genesis of a new chain whose state
// is a block's state of this node's chain (app.Export), read from a
// stopped node's home.
func exportCmd() *cobra.Command {
	var (
		home, chainID, output string
		height                uint64
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write a genesis holding the whole state of a block (node stopped); `emberd init --genesis` of it starts a new chain from that state",
		Long: `Write the genesis of a new chain whose block 0 has the state of block --height
(default: the head) of this home's chain: every account (balance, nonce, code,
storage, the native modules' system accounts included), the chain config, and
as CometBFT validators the set staking reported at that block. The node must be
stopped (the store is opened directly). The block's state must be held: any
height on an archive node, the last ones under pruning = "full". See
docs/operations.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, doc, err := openHomeStore(home)
			if err != nil {
				return err
			}
			defer st.Close()
			out, err := app.Export(context.Background(), st, doc, app.ExportOptions{Height: height, ChainID: chainID})
			if err != nil {
				return err
			}
			raw, err := cmtjson.MarshalIndent(out, "", "  ")
			if err != nil {
				return err
			}
			if output == "" {
				_, err = fmt.Fprintln(cmd.OutOrStdout(), string(raw))
				return err
			}
			return os.WriteFile(output, append(raw, '\n'), 0o644)
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().Uint64Var(&height, "height", 0, "block whose state is exported (default: the head)")
	cmd.Flags().StringVar(&chainID, "chain-id", "", "chain id of the new chain (default: this chain's)")
	cmd.Flags().StringVar(&output, "output", "", "file to write (default: standard output)")
	return cmd
}

// openHomeStore opens the store of a stopped node's home, with the home's
// store settings, and reads its genesis.
func openHomeStore(home string) (*store.Store, *cmttypes.GenesisDoc, error) {
	if !homes.Initialized(home) {
		return nil, nil, fmt.Errorf("%s: %w", home, homes.ErrNotInitialized)
	}
	cfg, err := config.Load(home)
	if err != nil {
		return nil, nil, err
	}
	doc, err := cmttypes.GenesisDocFromFile(filepath.Join(home, "config", "genesis.json"))
	if err != nil {
		return nil, nil, err
	}
	gs, err := app.ParseAppState(doc.AppState, doc.ChainID)
	if err != nil {
		return nil, nil, err
	}
	st, err := store.Open(filepath.Join(home, "data", "ember"), gs.EVM.Config, store.Options{
		CacheMB: cfg.Store.CacheMB, TrieCacheMB: cfg.Store.TrieCacheMB, Preimages: gs.Dev, Prune: cfg.Store.PruneOptions()})
	if err != nil {
		return nil, nil, fmt.Errorf("%w (is the node running? stop it first)", err)
	}
	return st, doc, nil
}

// initFromGenesis is `emberd init --genesis FILE`: a new home (config,
// node and validator keys, app.toml) whose genesis.json is FILE, checked
// as InitChain will run it. An exported genesis names the exported
// chain's validators: a validator's home then needs its
// priv_validator_key.json put back in config/.
func initFromGenesis(opts homes.InitOptions, file string) error {
	if len(opts.Alloc) > 0 || opts.RewardAddress != nil {
		return fmt.Errorf("--account and --reward-address make a new genesis: they do not apply with --genesis")
	}
	doc, err := cmttypes.GenesisDocFromFile(file)
	if err != nil {
		return err
	}
	if opts.ChainID != "" && opts.ChainID != doc.ChainID {
		return fmt.Errorf("--chain-id %s but %s is the genesis of %s", opts.ChainID, file, doc.ChainID)
	}
	if _, err := app.ValidateGenesis(doc); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	opts.ChainID = doc.ChainID
	if err := homes.Init(opts); err != nil {
		return err
	}
	return doc.SaveAs(filepath.Join(opts.Home, "config", "genesis.json"))
}
