package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/emberchain/ember/node/cometstore"
	"github.com/emberchain/ember/node/config"
)

// rollbackCmd is the SDK's `rollback`: CometBFT's stores and Ember's store
// go back one height (cometstore.Rollback, store.Rollback), so that the
// next start executes the last block again: the way out of an AppHash
// mismatch, after the cause (a wrong binary, a corrupted store) is fixed.
func rollbackCmd() *cobra.Command {
	var (
		home string
		hard bool
	)
	cmd := &cobra.Command{
		Use:   "rollback",
		Short: "Undo the last block in CometBFT's stores and Ember's (node stopped), for a node halted on an AppHash mismatch",
		Long: `Move the state of a stopped node back one height: CometBFT's state store (as
"cometbft rollback") and Ember's store (its head, and the blocks above it).
The last block stays in CometBFT's block store and is executed again at the
next start; with --hard it is deleted too and fetched again from peers. The
validator's sign state is kept. See docs/operations.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(home)
			if err != nil {
				return err
			}
			cc, err := config.LoadComet(home)
			if err != nil {
				return err
			}
			st, _, err := openHomeStore(home) // export.go
			if err != nil {
				return err
			}
			defer st.Close()
			h, err := cometstore.Rollback(cc, cometstore.DBProvider(cfg.Store.Sync), hard, func(h int64) error {
				return st.Rollback(uint64(h))
			})
			if err != nil {
				return err
			}
			head := st.Head()
			fmt.Fprintf(cmd.OutOrStdout(), "Rolled back to height %d (Ember head block %d, state root %s)\n", h, head.Number, head.Root)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().BoolVar(&hard, "hard", false, "also delete the last block from CometBFT's block store")
	return cmd
}
