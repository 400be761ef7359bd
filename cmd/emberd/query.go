package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	rpcclient "github.com/cometbft/cometbft/rpc/client"
	cmthttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/emberchain/ember/app"
)

func queryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Ask a running node about chain state (through its CometBFT RPC)",
	}
	cmd.AddCommand(queryAccountCmd(), queryValidatorsCmd(), querySlashingCmd(), queryDistributionCmd(), queryMintCmd(), queryGovCmd(), queryUpgradeCmd())
	return cmd
}

func queryAccountCmd() *cobra.Command {
	var (
		nodeAddr string
		output   string
		height   int64
	)
	cmd := &cobra.Command{
		Use:   "account ADDRESS",
		Short: "Print an account (number, sequence, public key, code hash) as the REST endpoint does",
		Long: "Print the account at ADDRESS (ember1… or 0x…) in the JSON of GET /cosmos/auth/v1beta1/accounts/{address}\n" +
			"(the \"account\" member), read through the node's CometBFT RPC (abci_query " + app.QueryNativeAccount + "<address>).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "json" && output != "text" {
				return fmt.Errorf("invalid --output %q: want json or text", output)
			}
			raw, err := abciQuery(cmd.Context(), nodeAddr, app.QueryNativeAccount+args[0], height)
			if err != nil {
				return err
			}
			return printJSON(cmd, raw, output)
		},
	}
	cmd.Flags().StringVar(&nodeAddr, "node", "tcp://127.0.0.1:26657", "CometBFT RPC address of the node")
	cmd.Flags().StringVarP(&output, "output", "o", "json", "output format: json or text")
	cmd.Flags().Int64Var(&height, "height", 0, "block height to read at (0 = latest)")
	return cmd
}

// abciQuery runs an app query and returns its value, or the app's error.
func abciQuery(ctx context.Context, nodeAddr, path string, height int64) ([]byte, error) {
	client, err := cmthttp.New(nodeAddr, "/websocket")
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", nodeAddr, err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := client.ABCIQueryWithOptions(ctx, path, nil, rpcclient.ABCIQueryOptions{Height: height})
	if err != nil {
		return nil, fmt.Errorf("query node %s: %w", nodeAddr, err)
	}
	if res.Response.Code != 0 {
		return nil, fmt.Errorf("%s", res.Response.Log)
	}
	return res.Response.Value, nil
}

// printJSON prints raw JSON as is, or as YAML with sorted keys (the Cosmos
// CLI's text output).
func printJSON(cmd *cobra.Command, raw []byte, output string) error {
	if output == "json" {
		fmt.Fprintln(cmd.OutOrStdout(), string(raw))
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	fmt.Fprint(cmd.OutOrStdout(), strings.TrimRight(string(out), "\n")+"\n")
	return nil
}
