package main

import (
	"encoding/base64"
	"fmt"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	"github.com/spf13/cobra"
)

func txSlashingCmd(f *txFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "slashing", Short: "Slashing transactions"}
	cmd.AddCommand(&cobra.Command{
		Use:   "unjail",
		Short: "Ask the --from operator's jailed validator back into the validator set (MsgUnjail)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			return t.send(t.b.Unjail(t.from))
		},
	})
	return cmd
}

func querySlashingCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "slashing",
		Short: "Slashing parameters and validators' signing infos (cosmos.slashing.v1beta1.Query)",
	}
	var params, one, all queryFlags
	var limit uint64
	var key string
	paramsCmd := &cobra.Command{
		Use: "params", Short: "Print the slashing parameters", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return params.run(cmd, "/cosmos.slashing.v1beta1.Query/Params", &slashingv1beta1.QueryParamsRequest{}, &slashingv1beta1.QueryParamsResponse{})
		},
	}
	oneCmd := &cobra.Command{
		Use: "signing-info VALCONS", Short: "Print the signing info of a validator by its consensus address (embervalcons1… or 0x…)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return one.run(cmd, "/cosmos.slashing.v1beta1.Query/SigningInfo", &slashingv1beta1.QuerySigningInfoRequest{ConsAddress: args[0]}, &slashingv1beta1.QuerySigningInfoResponse{})
		},
	}
	allCmd := &cobra.Command{
		Use: "signing-infos", Short: "Print the signing infos of all validators, a page at a time", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			page := &queryv1beta1.PageRequest{Limit: limit, CountTotal: true}
			if key != "" {
				var err error
				if page.Key, err = base64.StdEncoding.DecodeString(key); err != nil {
					return fmt.Errorf("invalid --page-key: %w", err)
				}
				page.CountTotal = false
			}
			return all.run(cmd, "/cosmos.slashing.v1beta1.Query/SigningInfos", &slashingv1beta1.QuerySigningInfosRequest{Pagination: page}, &slashingv1beta1.QuerySigningInfosResponse{})
		},
	}
	params.register(paramsCmd)
	one.register(oneCmd)
	all.register(allCmd)
	allCmd.Flags().Uint64Var(&limit, "limit", 100, "signing infos per page")
	allCmd.Flags().StringVar(&key, "page-key", "", "the next_key of the previous page (base64)")
	cmd.AddCommand(paramsCmd, oneCmd, allCmd)
	return cmd
}
