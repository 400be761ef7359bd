package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	mintv1beta1 "cosmossdk.io/api/cosmos/mint/v1beta1"
	rpcclient "github.com/cometbft/cometbft/rpc/client"
	cmthttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/rest"
)

// txDistributionCmd is `emberd tx distribution …`.
func txDistributionCmd(f *txFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "distribution", Short: "Distribution transactions: withdraw rewards and commission, set the withdraw address, fund the community pool"}
	var commission bool
	withdraw := &cobra.Command{
		Use:   "withdraw-rewards VALOPER",
		Short: "Withdraw the --from account's rewards from VALOPER (embervaloper1… or 0x…); --commission also withdraws the validator's commission (--from must be its operator)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			op, err := operatorArg(t.b.Prefix, args[0])
			if err != nil {
				return err
			}
			msgs := []proto.Message{t.b.WithdrawRewards(t.from, op)}
			if commission {
				msgs = append(msgs, t.b.WithdrawCommission(op))
			}
			return t.send(msgs...)
		},
	}
	withdraw.Flags().BoolVar(&commission, "commission", false, "also withdraw the validator's commission")
	cmd.AddCommand(withdraw, &cobra.Command{
		Use:   "withdraw-all-rewards",
		Short: "Withdraw the --from account's rewards from every validator it delegates to, in one tx",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			var vals distrv1beta1.QueryDelegatorValidatorsResponse
			if err := serviceQuery(cmd.Context(), f.node, "/cosmos.distribution.v1beta1.Query/DelegatorValidators",
				&distrv1beta1.QueryDelegatorValidatorsRequest{DelegatorAddress: accounts.Bech32(t.b.Prefix, t.from)}, &vals, 0); err != nil {
				return err
			}
			if len(vals.Validators) == 0 {
				return errors.New("no delegation to withdraw rewards from")
			}
			var msgs []proto.Message
			for _, v := range vals.Validators {
				op, err := operatorArg(t.b.Prefix, v)
				if err != nil {
					return err
				}
				msgs = append(msgs, t.b.WithdrawRewards(t.from, op))
			}
			return t.send(msgs...)
		},
	}, &cobra.Command{
		Use:   "set-withdraw-addr ADDRESS",
		Short: "Have the --from account's rewards (and commission, for an operator) paid to ADDRESS (ember1… or 0x…)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			w, err := accounts.ParseAddress(t.b.Prefix, args[0])
			if err != nil {
				return err
			}
			return t.send(t.b.SetWithdrawAddress(t.from, w))
		},
	}, &cobra.Command{
		Use:   "fund-community-pool AMOUNT",
		Short: "Move AMOUNT (e.g. 1000000000000000000aember) of the --from account into the community pool",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			amount, err := parseAmount(args[0], t.b.Denom)
			if err != nil {
				return err
			}
			return t.send(t.b.FundCommunityPool(t.from, amount))
		},
	})
	return cmd
}

// serviceQuery calls a Cosmos query service method through abci_query with
// protobuf bytes, as cosmjs does.
func serviceQuery(ctx context.Context, nodeAddr, path string, req, out proto.Message, height int64) error {
	data, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	client, err := cmthttp.New(nodeAddr, "/websocket")
	if err != nil {
		return fmt.Errorf("node %s: %w", nodeAddr, err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := client.ABCIQueryWithOptions(ctx, path, data, rpcclient.ABCIQueryOptions{Height: height})
	if err != nil {
		return fmt.Errorf("query node %s: %w", nodeAddr, err)
	}
	if res.Response.Code != 0 {
		return fmt.Errorf("%s", res.Response.Log)
	}
	return proto.Unmarshal(res.Response.Value, out)
}

// queryFlags are the flags of the service query commands.
type queryFlags struct {
	node, output string
	height       int64
}

func (f *queryFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.node, "node", "tcp://127.0.0.1:26657", "CometBFT RPC address of the node")
	cmd.Flags().StringVarP(&f.output, "output", "o", "json", "output format: json or text")
	cmd.Flags().Int64Var(&f.height, "height", 0, "block height to read at (0 = latest)")
}

// run queries path and prints the answer in the REST gateway's JSON.
func (f *queryFlags) run(cmd *cobra.Command, path string, req, out proto.Message) error {
	if f.output != "json" && f.output != "text" {
		return fmt.Errorf("invalid --output %q: want json or text", f.output)
	}
	if err := serviceQuery(cmd.Context(), f.node, path, req, out, f.height); err != nil {
		return err
	}
	raw, err := rest.Marshal(out)
	if err != nil {
		return err
	}
	return printJSON(cmd, raw, f.output)
}

// serviceQueryCmd is a query command over one service method: build makes
// the request from the arguments.
func serviceQueryCmd(use, short, path string, args int, build func(args []string) proto.Message, newOut func() proto.Message) *cobra.Command {
	var f queryFlags
	cmd := &cobra.Command{
		Use: use, Short: short, Long: short + ", read through the node's CometBFT RPC (abci_query " + path + ").",
		Args: cobra.ExactArgs(args),
		RunE: func(cmd *cobra.Command, a []string) error {
			return f.run(cmd, path, build(a), newOut())
		},
	}
	f.register(cmd)
	return cmd
}

func noRequest[T proto.Message](req T) func([]string) proto.Message {
	return func([]string) proto.Message { return req }
}

// queryDistributionCmd is `emberd query distribution …`.
func queryDistributionCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "distribution", Short: "Rewards, commission, community pool and parameters of x/distribution"}
	const svc = "/cosmos.distribution.v1beta1.Query/"
	cmd.AddCommand(
		serviceQueryCmd("params", "Print the distribution parameters", svc+"Params", 0,
			noRequest(&distrv1beta1.QueryParamsRequest{}), func() proto.Message { return new(distrv1beta1.QueryParamsResponse) }),
		serviceQueryCmd("community-pool", "Print the community pool", svc+"CommunityPool", 0,
			noRequest(&distrv1beta1.QueryCommunityPoolRequest{}), func() proto.Message { return new(distrv1beta1.QueryCommunityPoolResponse) }),
		serviceQueryCmd("commission VALOPER", "Print a validator's accumulated commission", svc+"ValidatorCommission", 1,
			func(a []string) proto.Message {
				return &distrv1beta1.QueryValidatorCommissionRequest{ValidatorAddress: a[0]}
			}, func() proto.Message { return new(distrv1beta1.QueryValidatorCommissionResponse) }),
		serviceQueryCmd("outstanding-rewards VALOPER", "Print a validator's outstanding rewards (commission included)", svc+"ValidatorOutstandingRewards", 1,
			func(a []string) proto.Message {
				return &distrv1beta1.QueryValidatorOutstandingRewardsRequest{ValidatorAddress: a[0]}
			}, func() proto.Message { return new(distrv1beta1.QueryValidatorOutstandingRewardsResponse) }),
		queryRewardsCmd(svc),
	)
	return cmd
}

// queryRewardsCmd is `rewards DELEGATOR [VALOPER]`: from one validator
// (DelegationRewards), or from all with the total (DelegationTotalRewards).
func queryRewardsCmd(svc string) *cobra.Command {
	var f queryFlags
	cmd := &cobra.Command{
		Use:   "rewards DELEGATOR [VALOPER]",
		Short: "Print a delegator's pending rewards: from VALOPER, or from every validator with the total",
		Long: "Print a delegator's pending rewards, read through the node's CometBFT RPC (abci_query " +
			svc + "DelegationRewards with VALOPER, " + svc + "DelegationTotalRewards without).",
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, a []string) error {
			del := a[0] // the services take bech32 or 0x hex
			if len(a) == 1 {
				return f.run(cmd, svc+"DelegationTotalRewards", &distrv1beta1.QueryDelegationTotalRewardsRequest{DelegatorAddress: del}, new(distrv1beta1.QueryDelegationTotalRewardsResponse))
			}
			return f.run(cmd, svc+"DelegationRewards", &distrv1beta1.QueryDelegationRewardsRequest{DelegatorAddress: del, ValidatorAddress: a[1]}, new(distrv1beta1.QueryDelegationRewardsResponse))
		},
	}
	f.register(cmd)
	return cmd
}

// queryMintCmd is `emberd query mint …`.
func queryMintCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "mint", Short: "Inflation, annual provisions and parameters of x/mint"}
	const svc = "/cosmos.mint.v1beta1.Query/"
	cmd.AddCommand(
		serviceQueryCmd("params", "Print the mint parameters", svc+"Params", 0,
			noRequest(&mintv1beta1.QueryParamsRequest{}), func() proto.Message { return new(mintv1beta1.QueryParamsResponse) }),
		serviceQueryCmd("inflation", "Print the current inflation rate", svc+"Inflation", 0,
			noRequest(&mintv1beta1.QueryInflationRequest{}), func() proto.Message { return new(mintv1beta1.QueryInflationResponse) }),
		serviceQueryCmd("annual-provisions", "Print the current annual provisions", svc+"AnnualProvisions", 0,
			noRequest(&mintv1beta1.QueryAnnualProvisionsRequest{}), func() proto.Message { return new(mintv1beta1.QueryAnnualProvisionsResponse) }),
	)
	return cmd
}
