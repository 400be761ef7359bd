package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/emberchain/ember/node"
	"github.com/emberchain/ember/node/homes"
)

func startCmd() *cobra.Command {
	var (
		home  string
		flags nodeFlags
	)
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Run the node in the given home until interrupted",
		Long: `Run the node in the given home until interrupted. At startup it prints what it listens on.

To join a running network by state sync, give its CometBFT RPCs on the first start:
  emberd start --statesync.rpc-servers host1:26657,host2:26657
Without --statesync.trust-height and --statesync.trust-hash the node reads a block a few
heights below the first server's latest, checks its hash against the second server and
trusts it; state sync is enabled for this run (config.toml is not changed).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := servePprof(flags.pprof); err != nil {
				return err
			}
			if err := resolveStateSync(cmd.Flags(), cmd.ErrOrStderr()); err != nil {
				return err
			}
			n, err := node.New(home, flags.overrides(cmd))
			if err != nil {
				return err
			}
			n.Config().Runtime.Apply()
			return run(n, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	flags.register(cmd)
	return cmd
}

// resolveStateSync completes the state-sync flags: --statesync.rpc-servers
// alone gets a trusted block read from the servers; with it state sync is
// enabled for the run.
func resolveStateSync(fs *pflag.FlagSet, log io.Writer) error {
	servers := fs.Lookup("statesync.rpc-servers")
	height, hash := fs.Lookup("statesync.trust-height"), fs.Lookup("statesync.trust-hash")
	if servers == nil || !servers.Changed || servers.Value.String() == "" {
		return nil
	}
	if height.Changed != hash.Changed {
		return errors.New("give --statesync.trust-height and --statesync.trust-hash together, or neither (then they are read from the servers)")
	}
	if !height.Changed {
		trust, err := homes.JoinStateSync(strings.Split(servers.Value.String(), ","))
		if err != nil {
			return err
		}
		for name, v := range map[string]string{"statesync.rpc-servers": strings.Join(trust.Servers, ","),
			"statesync.trust-height": strconv.FormatInt(trust.Height, 10), "statesync.trust-hash": trust.Hash} {
			if err := fs.Set(name, v); err != nil {
				return err
			}
		}
		fmt.Fprintf(log, "state sync: trusting block %d %s (read from %s, checked against %s)\n", trust.Height, trust.Hash, trust.Servers[0], trust.Servers[1])
	}
	if enable := fs.Lookup("statesync.enable"); !enable.Changed {
		return fs.Set("statesync.enable", "true")
	}
	return nil
}

// run starts n, prints what it listens on, and stops it on SIGINT or
// SIGTERM, or when it halts: a write it needs failed (node/failstop.go:
// the cause, exit status 1), an upgrade plan it cannot apply (the error,
// status 1), its halt height (status 0).
func run(n *node.Node, out io.Writer) error {
	if err := n.Start(); err != nil {
		return err
	}
	fmt.Fprint(out, listenTable(n))
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-sig:
		n.Stop()
		return nil
	case err := <-n.Halted():
		n.Stop()
		return err
	case <-n.Failed():
		stopWithin(n, haltStopTimeout)
		return fmt.Errorf("%w; free the cause (disk space, the failing device) and start the node again: it resumes from its stores", n.HaltCause())
	}
}

// haltStopTimeout bounds the stop of a halted node: on a failing disk
// closing a store may hang, and the process must exit regardless.
const haltStopTimeout = 30 * time.Second

func stopWithin(n *node.Node, d time.Duration) {
	done := make(chan struct{})
	go func() {
		n.Stop()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
		fmt.Fprintln(os.Stderr, "stopping the halted node took too long; exiting")
	}
}

// listenTable lists the node's endpoints: bound addresses where the node
// reports them, else the configured ones; "off" for a disabled service.
func listenTable(n *node.Node) string {
	cfg, cc := n.Config(), n.CometConfig()
	or := func(enabled bool, addr string) string {
		if !enabled || addr == "" {
			return "off"
		}
		return addr
	}
	bound := func(addr, configured string) string {
		if addr != "" {
			return addr
		}
		return configured
	}
	rows := [][2]string{
		{"P2P (CometBFT)", cc.P2P.ListenAddress},
		{"CometBFT RPC", cc.RPC.ListenAddress},
		{"JSON-RPC HTTP", or(cfg.JSONRPC.Enable, bound(n.JSONRPCAddr(), cfg.JSONRPC.Address))},
		{"JSON-RPC WS", or(cfg.JSONRPC.Enable, cfg.JSONRPC.WSAddress)},
		{"REST", or(cfg.REST.Enable, bound(n.RESTAddr(), cfg.REST.Address))},
		{"gRPC", or(cfg.GRPC.Enable, cfg.GRPC.Address)},
		{"explorer", or(cfg.Explorer.Enable, cfg.Explorer.Address)},
		{"metrics", or(cfg.Metrics.Enable, bound(n.MetricsAddr(), cfg.Metrics.Address))},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Ember node %s (chain %s) listening on:\n", cc.Moniker, n.Genesis().ChainID)
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-15s %s\n", r[0], r[1])
	}
	return b.String()
}
