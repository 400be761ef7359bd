package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/emberchain/ember/explorer/sqlstore"
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
validator's sign state is kept. An in-process explorer's index holding the
rolled-back block is emptied (it indexes the chain again), and state-sync
snapshots above the new height are deleted. See docs/operations.md.`,
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
			if err := rollbackExplorer(cfg, home, uint64(h)); err != nil {
				return err
			}
			if err := rollbackSnapshots(home, uint64(h)); err != nil {
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

// rollbackExplorer empties the in-process explorer's index when it holds
// a block above h (the block executed again may differ from the one it
// indexed): the explorer indexes the chain again from block 0, as after a
// dev chain's evm_revert (sqlstore.Store.Reset).
func rollbackExplorer(cfg config.Config, home string, h uint64) error {
	if !cfg.Explorer.Enable {
		return nil
	}
	dsn := cfg.Explorer.DB
	if dsn == "" {
		dsn = filepath.Join(home, "data", "explorer.db")
		if _, err := os.Stat(dsn); err != nil {
			return nil // never indexed
		}
	}
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return fmt.Errorf("open the explorer database: %w", err)
	}
	defer db.Close()
	indexed, ok, err := db.IndexedHeight(ctx)
	if err != nil || !ok || indexed <= h {
		return err
	}
	return db.Reset(ctx)
}

// rollbackSnapshots deletes the state-sync snapshots of heights above h:
// made from the state rolled back, which may be the diverged one.
func rollbackSnapshots(home string, h uint64) error {
	dir := filepath.Join(home, "data", "snapshots") // node.snapshotsDir
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		if height, err := strconv.ParseUint(e.Name(), 10, 64); err == nil && height > h {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
