package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"time"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	rpcclient "github.com/cometbft/cometbft/rpc/client"
	cmthttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/rest"
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

// queryFlags are the flags of a query that reads through the node.
type queryFlags struct {
	node   string
	output string
	height int64
}

func (q *queryFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&q.node, "node", "tcp://127.0.0.1:26657", "CometBFT RPC address of the node")
	cmd.Flags().StringVarP(&q.output, "output", "o", "json", "output format: json or text")
	cmd.Flags().Int64Var(&q.height, "height", 0, "block height to read at (0 = latest)")
}

// service calls a gRPC query method through abci_query and prints the
// answer in the REST gateway's JSON.
func (q *queryFlags) service(cmd *cobra.Command, method string, req, res proto.Message) error {
	if q.output != "json" && q.output != "text" {
		return fmt.Errorf("invalid --output %q: want json or text", q.output)
	}
	data, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	client, err := cmthttp.New(q.node, "/websocket")
	if err != nil {
		return fmt.Errorf("node %s: %w", q.node, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := client.ABCIQueryWithOptions(ctx, method, data, rpcclient.ABCIQueryOptions{Height: q.height})
	if err != nil {
		return fmt.Errorf("query node %s: %w", q.node, err)
	}
	if out.Response.Code != 0 {
		return fmt.Errorf("%s", out.Response.Log)
	}
	if err := proto.Unmarshal(out.Response.Value, res); err != nil {
		return fmt.Errorf("decode %s: %w", method, err)
	}
	raw, err := rest.JSON(res)
	if err != nil {
		return err
	}
	return printJSON(cmd, raw, q.output)
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
			return params.service(cmd, "/cosmos.slashing.v1beta1.Query/Params", &slashingv1beta1.QueryParamsRequest{}, &slashingv1beta1.QueryParamsResponse{})
		},
	}
	oneCmd := &cobra.Command{
		Use: "signing-info VALCONS", Short: "Print the signing info of a validator by its consensus address (embervalcons1… or 0x…)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return one.service(cmd, "/cosmos.slashing.v1beta1.Query/SigningInfo", &slashingv1beta1.QuerySigningInfoRequest{ConsAddress: args[0]}, &slashingv1beta1.QuerySigningInfoResponse{})
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
			return all.service(cmd, "/cosmos.slashing.v1beta1.Query/SigningInfos", &slashingv1beta1.QuerySigningInfosRequest{Pagination: page}, &slashingv1beta1.QuerySigningInfosResponse{})
		},
	}
	params.add(paramsCmd)
	one.add(oneCmd)
	all.add(allCmd)
	allCmd.Flags().Uint64Var(&limit, "limit", 100, "signing infos per page")
	allCmd.Flags().StringVar(&key, "page-key", "", "the next_key of the previous page (base64)")
	cmd.AddCommand(paramsCmd, oneCmd, allCmd)
	return cmd
}
