package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/emberchain/ember/app"
)

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "emberd %s %s/%s %s\n", app.Version, runtime.GOOS, runtime.GOARCH, runtime.Version())
		},
	}
}
