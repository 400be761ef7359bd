package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/spf13/cobra"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/accounts/keyring"
	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/genutil"
	"github.com/emberchain/ember/node/homes"
)

// genesisFlags are the flags of the genesis commands: the home whose
// genesis.json they edit, and where the operator keys are.
type genesisFlags struct {
	home, backend, keyringDir string
}

func (f *genesisFlags) register(cmd *cobra.Command, keys bool) {
	fs := cmd.Flags()
	fs.StringVar(&f.home, "home", defaultHome(), "node home directory (its config/genesis.json is edited)")
	if keys {
		fs.StringVar(&f.backend, "keyring-backend", "", `keyring backend: test or file (default from app.toml [keyring] backend, else "file")`)
		fs.StringVar(&f.keyringDir, "keyring-dir", "", "directory of the keyring, when not the home (default: --home)")
	}
}

func (f *genesisFlags) genesisPath() string { return filepath.Join(f.home, "config", "genesis.json") }

// keys opens the keyring: the backend named by the flag or the home's
// app.toml, in --keyring-dir or the home.
func (f *genesisFlags) keys(cmd *cobra.Command) (*keysEnv, error) {
	kf := keysFlags{home: f.home, backend: f.backend}
	env, err := kf.open(cmd)
	if err != nil {
		return nil, err
	}
	if f.keyringDir != "" {
		if env.kr, err = keyring.Open(f.keyringDir, env.kr.Backend()); err != nil {
			return nil, err
		}
	}
	return env, nil
}

func genesisCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "genesis",
		Short: "Form a network's genesis from independent operators: add-account, gentx, collect-gentxs, validate",
		Long: `Form a network as independent operators do (the Cosmos SDK's genutil flow, see docs/cli.md):
every operator runs 'emberd init' and 'emberd keys add'; the coordinator funds each
operator's account ('emberd genesis add-account') and hands the genesis out; each
operator signs a gentx for its node ('emberd genesis gentx') and sends it back; the
coordinator collects them ('emberd genesis collect-gentxs') and hands the final
genesis.json out. At InitChain the gentxs bond the validator set.`,
	}
	cmd.AddCommand(genesisAddAccountCmd("add-account"), genesisGentxCmd(), genesisCollectCmd(), genesisValidateCmd())
	return cmd
}

func genesisAddAccountCmd(use string) *cobra.Command {
	f := &genesisFlags{}
	cmd := &cobra.Command{
		Use:   use + " KEY_NAME|ADDRESS AMOUNT",
		Short: "Fund an account in genesis.json: a keyring key's name, ember1… or 0x…, and an amount such as 1000000000000000000000aember",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			gf, err := homes.LoadGenesis(f.genesisPath())
			if err != nil {
				return err
			}
			addr, err := f.accountArg(cmd, gf.State.Bech32Prefix, args[0])
			if err != nil {
				return err
			}
			amount, err := parseAmount(args[1], gf.State.Denom)
			if err != nil {
				return err
			}
			if err := gf.AddAccount(addr, amount); err != nil {
				return err
			}
			if err := gf.Save(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Added %s (%s) with %v%s to %s\n", accounts.Bech32(gf.State.Bech32Prefix, addr), addr.Hex(), amount, gf.State.Denom, gf.Path)
			return nil
		},
	}
	f.register(cmd, true)
	return cmd
}

// accountArg reads an address (0x… or bech32) or a key name of the keyring.
func (f *genesisFlags) accountArg(cmd *cobra.Command, prefix, s string) (a common.Address, err error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, prefix+"1") {
		return accounts.ParseAddress(prefix, s)
	}
	env, err := f.keys(cmd)
	if err != nil {
		return a, err
	}
	info, err := env.kr.Get(s)
	if err != nil {
		return a, fmt.Errorf("%q is neither an address (0x…, %s1…) nor a key of the keyring: %w", s, prefix, err)
	}
	return info.Address, nil
}

func genesisGentxCmd() *cobra.Command {
	var (
		f    genesisFlags
		o    homes.GentxOptions
		comm = genutil.DefaultCommission
	)
	cmd := &cobra.Command{
		Use:   "gentx KEY_NAME AMOUNT",
		Short: "Sign a genesis transaction creating this node's validator, operated by KEY_NAME with a self-bond of AMOUNT",
		Long: `Sign, with the operator key KEY_NAME, a native transaction holding one MsgCreateValidator for
this node's consensus key (<home>/config/priv_validator_key.json), self-bonding AMOUNT
(e.g. 10000000000000000000aember, power 10). It is signed as the SDK signs a gentx:
account number 0, sequence 0, no fee; its memo is the node's <id>@<ip>:<port>, which
collect-gentxs turns into the other nodes' persistent peers. The operator must hold at
least AMOUNT in the home's genesis (emberd genesis add-account). Writes
<home>/config/gentx/gentx-<node id>.json (or --output-document).`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			env, err := f.keys(cmd)
			if err != nil {
				return err
			}
			key, err := env.decrypt(args[0], fmt.Sprintf("Passphrase of key %q: ", args[0]))
			if err != nil {
				return err
			}
			if o.Amount, err = parseAmount(args[1], app.DefaultDenom); err != nil {
				return err
			}
			o.Home, o.Key, o.Commission = f.home, key, comm
			path, g, err := homes.Gentx(o)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Genesis transaction written to %s\n  validator %s (operator %s), self-bond %v%s, peer %s\n",
				path, g.Moniker, g.Operator.Hex(), g.SelfBond, app.DefaultDenom, g.Memo)
			return nil
		},
	}
	f.register(cmd, true)
	fs := cmd.Flags()
	fs.StringVar(&o.ChainID, "chain-id", "", "chain id (must be the genesis's; default: the genesis's)")
	fs.StringVar(&o.Moniker, "moniker", "", "validator name (default: config.toml's moniker)")
	fs.StringVar(&comm.Rate, "commission-rate", comm.Rate, "initial commission rate")
	fs.StringVar(&comm.MaxRate, "commission-max-rate", comm.MaxRate, "maximum commission rate")
	fs.StringVar(&comm.MaxChangeRate, "commission-max-change-rate", comm.MaxChangeRate, "maximum daily change of the commission rate")
	fs.StringVar(&comm.MinSelfDelegation, "min-self-delegation", comm.MinSelfDelegation, "minimum self delegation, in aember")
	fs.StringVar(&o.IP, "ip", "", "IP other nodes dial (default: config.toml's p2p.external_address, else p2p.laddr)")
	fs.IntVar(&o.P2PPort, "p2p-port", 0, "P2P port other nodes dial (default: from config.toml)")
	fs.StringVar(&o.Output, "output-document", "", "write the gentx here (default: <home>/config/gentx/gentx-<node id>.json)")
	return cmd
}

func genesisCollectCmd() *cobra.Command {
	var (
		f   genesisFlags
		dir string
	)
	cmd := &cobra.Command{
		Use:   "collect-gentxs",
		Short: "Write the gentxs of --gentx-dir into genesis.json (app_state.genutil.gen_txs) and their nodes into persistent_peers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := homes.CollectGentxs(f.home, dir)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "Collected %d gentxs into %s:\n", len(c.GenTxs), f.genesisPath())
			for i, g := range c.GenTxs {
				fmt.Fprintf(out, "  %s  %s  operator %s  self-bond %saember  %s\n", filepath.Base(c.Files[i]), g.Moniker, g.Operator.Hex(), g.SelfBond, g.Memo)
			}
			if c.RemovedValidators > 0 {
				fmt.Fprintf(out, "Removed %d CometBFT genesis validator(s): the gentxs make the set.\n", c.RemovedValidators)
			}
			fmt.Fprintf(out, "Validator set at genesis:\n  %s\n", strings.Join(c.Validators, "\n  "))
			fmt.Fprintf(out, "persistent_peers = %q (config.toml)\n", c.PersistentPeers)
			return nil
		},
	}
	f.register(cmd, false)
	cmd.Flags().StringVar(&dir, "gentx-dir", "", "directory of the gentx files (default: <home>/config/gentx)")
	return cmd
}

func genesisValidateCmd() *cobra.Command {
	var f genesisFlags
	cmd := &cobra.Command{
		Use:     "validate [FILE]",
		Aliases: []string{"validate-genesis"},
		Short:   "Check a genesis.json as InitChain will run it (default: the home's)",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := f.genesisPath()
			if len(args) == 1 {
				path = args[0]
			}
			vals, err := homes.ValidateGenesisFile(path)
			if err != nil {
				return errors.Join(errors.New("invalid genesis"), err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "File at %s is a valid genesis file; validators:\n  %s\n", path, strings.Join(vals, "\n  "))
			return nil
		},
	}
	f.register(cmd, false)
	return cmd
}
