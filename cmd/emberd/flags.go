package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/emberchain/ember/node/config"
)

// defaultHome is ~/.emberd.
func defaultHome() string {
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".emberd")
	}
	return ".emberd"
}

// nodeFlags are the flags start and dev share: one per node setting that
// has a flag (node/config's settings table), overriding the files, and the
// profiler's address, which belongs to the process, not to the node.
type nodeFlags struct {
	pprof string
}

func (f *nodeFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	config.AddFlags(fs)
	fs.StringVar(&f.pprof, "pprof.address", "", "serve Go's CPU, heap and goroutine profiles at http://ADDRESS/debug/pprof/ (off when empty; keep it on 127.0.0.1)")
}

// overrides are the settings given on cmd's command line.
func (f *nodeFlags) overrides(cmd *cobra.Command) config.Overrides {
	return config.FromFlags(cmd.Flags())
}
