package main

import (
	"errors"
	"fmt"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	upgradev1beta1 "cosmossdk.io/api/cosmos/upgrade/v1beta1"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/upgrade"
)

// proposalFlags are what a gov proposal carries beside its message.
type proposalFlags struct {
	title, summary, metadata, deposit string
	expedited                         bool
}

func (p *proposalFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&p.title, "title", "", "the proposal's title")
	cmd.Flags().StringVar(&p.summary, "summary", "", "the proposal's summary")
	cmd.Flags().StringVar(&p.metadata, "metadata", "", "the proposal's metadata (e.g. an ipfs:// URI)")
	cmd.Flags().StringVar(&p.deposit, "deposit", "", "initial deposit, e.g. 10000000000000000000aember")
	cmd.Flags().BoolVar(&p.expedited, "expedited", false, "submit as an expedited proposal")
}

// submit wraps msg in a gov v1 MsgSubmitProposal from t's signer and sends
// it.
func (p *proposalFlags) submit(t *txEnv, msg proto.Message) error {
	if p.title == "" {
		return errors.New("a proposal needs --title")
	}
	deposit, err := parseAmount(p.deposit, app.DefaultDenom)
	if p.deposit == "" || err != nil {
		return fmt.Errorf("a proposal needs --deposit, an amount of %s: %v", app.DefaultDenom, err)
	}
	b, err := proto.Marshal(msg)
	if err != nil {
		return err
	}
	return t.send(&govv1.MsgSubmitProposal{
		Messages:       []*anypb.Any{{TypeUrl: "/" + string(proto.MessageName(msg)), Value: b}},
		InitialDeposit: []*basev1beta1.Coin{{Denom: app.DefaultDenom, Amount: deposit.String()}},
		Proposer:       accounts.Bech32(t.b.Prefix, t.from), Metadata: p.metadata, Title: p.title, Summary: p.summary, Expedited: p.expedited,
	})
}

func txUpgradeCmd(f *txFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "upgrade", Short: "Software-upgrade proposals (gov v1 MsgSubmitProposal carrying cosmos.upgrade.v1beta1 messages)"}
	var (
		up, cancel proposalFlags
		height     int64
		info       string
	)
	upCmd := &cobra.Command{
		Use:   "software-upgrade NAME",
		Short: "Propose a software upgrade: MsgSoftwareUpgrade with the plan NAME at --upgrade-height",
		Long: `Submit a gov proposal whose message is MsgSoftwareUpgrade (authority: the gov account).
If it passes, every node halts at --upgrade-height unless its binary has the handler of NAME;
cosmovisor then starts upgrades/NAME/bin/emberd (see docs/upgrades.md).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p := upgrade.Plan{Name: args[0], Height: height, Info: info}
			if err := p.ValidateBasic(); err != nil {
				return fmt.Errorf("plan: %w", err)
			}
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			return up.submit(t, upgrade.NewMsgSoftwareUpgrade(t.b.Prefix, p))
		},
	}
	upCmd.Flags().Int64Var(&height, "upgrade-height", 0, "the height at which the upgrade applies")
	upCmd.Flags().StringVar(&info, "upgrade-info", "", "the plan's info: what cosmovisor reads (e.g. a JSON of binaries by platform)")
	up.register(upCmd)
	cancelCmd := &cobra.Command{
		Use:   "cancel-software-upgrade",
		Short: "Propose to cancel the current upgrade plan (MsgCancelUpgrade)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			return cancel.submit(t, upgrade.NewMsgCancelUpgrade(t.b.Prefix))
		},
	}
	cancel.register(cancelCmd)
	cmd.AddCommand(upCmd, cancelCmd)
	return cmd
}

func queryUpgradeCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "upgrade", Short: "Upgrade plans (cosmos.upgrade.v1beta1.Query)"}
	var plan, applied, versions queryFlags
	planCmd := &cobra.Command{
		Use: "plan", Short: "Print the upgrade plan scheduled, if any", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return plan.run(cmd, "/cosmos.upgrade.v1beta1.Query/CurrentPlan", &upgradev1beta1.QueryCurrentPlanRequest{}, &upgradev1beta1.QueryCurrentPlanResponse{})
		},
	}
	appliedCmd := &cobra.Command{
		Use: "applied NAME", Short: "Print the height at which the plan NAME was applied (0: never)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return applied.run(cmd, "/cosmos.upgrade.v1beta1.Query/AppliedPlan", &upgradev1beta1.QueryAppliedPlanRequest{Name: args[0]}, &upgradev1beta1.QueryAppliedPlanResponse{})
		},
	}
	versionsCmd := &cobra.Command{
		Use: "module-versions", Short: "Print the modules and their consensus versions", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return versions.run(cmd, "/cosmos.upgrade.v1beta1.Query/ModuleVersions", &upgradev1beta1.QueryModuleVersionsRequest{}, &upgradev1beta1.QueryModuleVersionsResponse{})
		},
	}
	plan.register(planCmd)
	applied.register(appliedCmd)
	versions.register(versionsCmd)
	cmd.AddCommand(planCmd, appliedCmd, versionsCmd)
	return cmd
}
