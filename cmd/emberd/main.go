// Command emberd runs an Ember node: an EVM chain on CometBFT.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "emberd",
		Short:         "Ember: an EVM chain on CometBFT",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(initCmd(), startCmd(), devCmd(), versionCmd())
	root.AddCommand(queryCmd())
	root.AddCommand(keysCmd())
	root.AddCommand(debugCmd())
	root.AddCommand(authCmd())
	root.AddCommand(explorerCmd())
	root.AddCommand(txCmd())
	root.AddCommand(testnetCmd())
	root.AddCommand(exportCmd(), rollbackCmd())
	root.AddCommand(genesisCmd(), genesisAddAccountCmd("add-genesis-account"), cometCmd())
	return root
}
