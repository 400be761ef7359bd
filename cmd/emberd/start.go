package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/emberchain/ember/node"
)

func startCmd() *cobra.Command {
	var (
		home  string
		flags nodeFlags
	)
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Run the node in the given home until interrupted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := servePprof(flags.pprof); err != nil {
				return err
			}
			n, err := node.New(home, flags.overrides(cmd))
			if err != nil {
				return err
			}
			n.Config().Runtime.Apply()
			return run(n)
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	flags.register(cmd)
	return cmd
}

// run starts n and stops it on SIGINT or SIGTERM.
func run(n *node.Node) error {
	if err := n.Start(); err != nil {
		return err
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	n.Stop()
	return nil
}
