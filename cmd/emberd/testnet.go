package main

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/ethereum/go-ethereum/params"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/node/homes"
)

func testnetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "testnet",
		Short: "Create and run a local multi-validator network (one emberd process per node)",
	}
	cmd.AddCommand(testnetInitCmd(), testnetAddNodeCmd(), testnetStartCmd())
	return cmd
}

func testnetInitCmd() *cobra.Command {
	var (
		opts    homes.TestnetOptions
		balance string
	)
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write the homes of a local network: DIR/node0 … sharing one genesis",
		Long: `Write N validator homes DIR/node0 … DIR/node{N-1} (and --full-nodes non-validator homes
after them), each a complete home as 'emberd init' makes, with one shared genesis.json:
the N validators with voting power 10 each, formed as independent operators form a
network (see 'emberd genesis'): every validator's operator key in its home's test
keyring as "validator", funded at genesis with --balance plus its 10^19 aember
self-bond, a gentx per validator home, the gentxs collected into node0's genesis
(app_state.genutil.gen_txs) and that genesis copied to every home; and the --accounts
test-mnemonic accounts funded as 'emberd dev' funds them.

Node i listens on 127.0.0.1, ports BASE+10i+k: k=0 p2p, 1 CometBFT RPC, 2 JSON-RPC
HTTP, 3 JSON-RPC WebSocket, 4 REST, 5 gRPC, 6 explorer (off unless --explorer).
The validators are each other's persistent peers. DIR/README lists the ports.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bal, ok := new(big.Int).SetString(balance, 10)
			if !ok || bal.Sign() < 0 {
				return fmt.Errorf("invalid --balance %q: want a decimal amount of wei", balance)
			}
			opts.Balance = bal
			if opts.Dir == "" {
				return errors.New("--output is required")
			}
			tn, err := homes.InitTestnet(opts)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), tn.Summary())
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&opts.Dir, "output", "o", "", "directory of the node homes (created; must be empty)")
	fs.IntVar(&opts.Validators, "validators", 4, "number of validators")
	fs.IntVar(&opts.FullNodes, "full-nodes", 0, "number of non-validator nodes")
	fs.StringVar(&opts.ChainID, "chain-id", homes.DefaultTestnetChainID, "chain id")
	fs.IntVar(&opts.BasePort, "base-port", homes.DefaultTestnetBasePort, "first port of node0; node i uses BASE+10i … BASE+10i+6")
	fs.IntVar(&opts.Accounts, "accounts", 10, "prefunded accounts from --mnemonic (m/44'/60'/0'/0/i)")
	fs.StringVar(&opts.Mnemonic, "mnemonic", accounts.TestMnemonic, "mnemonic of the prefunded accounts")
	fs.StringVar(&balance, "balance", new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether)).String(), "balance of each prefunded account and validator operator, in wei")
	fs.BoolVar(&opts.Explorer, "explorer", false, "turn the explorer API on in every home ([explorer] enable)")
	return cmd
}

func testnetAddNodeCmd() *cobra.Command {
	var stateSync bool
	cmd := &cobra.Command{
		Use:   "add-node DIR",
		Short: "Add a full (non-validator) node home to a testnet; started, it block-syncs from genesis (or state-syncs with --state-sync)",
		Long: `Add a full (non-validator) node home to a testnet. Started, it block-syncs from genesis.
With --state-sync the testnet must be running: the new home's config.toml enables CometBFT
state sync, trusting the latest block a validator reports now; started, the node restores the
newest snapshot the validators serve (every [state-sync] snapshot-interval blocks, 100 in
testnet homes) and block-syncs from there.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			add, how := homes.AddTestnetNode, "full node"
			if stateSync {
				add, how = homes.AddStateSyncNode, "full node, joins by state sync"
			}
			n, err := add(args[0])
			if err != nil {
				return err
			}
			p := n.Ports
			fmt.Fprintf(cmd.OutOrStdout(), "Added %s (%s) at %s\n  p2p %d  cometbft-rpc %d  json-rpc %d  ws %d  rest %d  grpc %d  explorer %d\n  start it: emberd start --home %s\n",
				n.Name, how, n.Home, p.P2P, p.RPC, p.JSONRPC, p.WS, p.REST, p.GRPC, p.Explorer, n.Home)
			return nil
		},
	}
	cmd.Flags().BoolVar(&stateSync, "state-sync", false, "join by CometBFT state sync from a snapshot the running validators serve, not from genesis")
	return cmd
}

func testnetStartCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "start DIR",
		Short: "Run every node of a testnet as its own 'emberd start' process until SIGINT/SIGTERM",
		Long: `Run every home listed in DIR/testnet.json as a child 'emberd start --home DIR/nodeI'
process, its output appended to DIR/nodeI/emberd.log. SIGINT and SIGTERM are
forwarded to every child; the command returns when all have exited.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			tn, err := homes.LoadTestnet(args[0])
			if err != nil {
				return err
			}
			self, err := os.Executable()
			if err != nil {
				return err
			}
			return runTestnet(cmd.OutOrStdout(), self, tn)
		},
	}
}

// runTestnet starts one child per node, forwards SIGINT and SIGTERM to
// them and waits for all of them.
func runTestnet(out io.Writer, self string, tn *homes.Testnet) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)

	type child struct {
		name string
		cmd  *exec.Cmd
		log  *os.File
	}
	var children []child
	stopAll := func(s os.Signal) {
		for _, c := range children {
			_ = c.cmd.Process.Signal(s)
		}
	}
	// abort stops the children started so far, when one could not start.
	abort := func() {
		stopAll(syscall.SIGTERM)
		for _, c := range children {
			_ = c.cmd.Wait()
			c.log.Close()
		}
	}
	for _, n := range tn.Nodes {
		logPath := filepath.Join(n.Home, "emberd.log")
		logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			abort()
			return err
		}
		c := exec.Command(self, "start", "--home", n.Home)
		c.Stdout, c.Stderr = logf, logf
		if err := c.Start(); err != nil {
			logf.Close()
			abort()
			return fmt.Errorf("start %s: %w", n.Name, err)
		}
		children = append(children, child{name: n.Name, cmd: c, log: logf})
		fmt.Fprintf(out, "%s: pid %d, log %s\n", n.Name, c.Process.Pid, logPath)
	}
	fmt.Fprint(out, "\n", tn.Summary())

	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed []string
	)
	for _, c := range children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.cmd.Wait()
			c.log.Close()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", c.name, err))
			}
			fmt.Fprintf(out, "%s exited (%v)\n", c.name, c.cmd.ProcessState)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case s := <-sig:
		fmt.Fprintf(out, "%v: stopping %d nodes\n", s, len(children))
		stopAll(s)
		<-done
	case <-done:
	}
	if len(failed) > 0 {
		return fmt.Errorf("nodes failed: %v", failed)
	}
	return nil
}
