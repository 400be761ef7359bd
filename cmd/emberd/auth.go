package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/emberchain/ember/node/homes"
	"github.com/emberchain/ember/rpc"
)

func authCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Credentials for the private JSON-RPC namespaces (personal, miner)",
	}
	cmd.AddCommand(authTokenCmd())
	return cmd
}

func authTokenCmd() *cobra.Command {
	var home string
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Print a JWT for the private JSON-RPC namespaces, valid for 60 seconds",
		Long: `Print an HS256 JWT signed with the node's secret (<home>/` + rpc.JWTSecretFile + `), its iat set to
now. The node accepts it for 60 seconds as the header 'Authorization: Bearer <token>':

  curl -H "Authorization: Bearer $(emberd auth token --home H)" -H 'Content-Type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"personal_listAccounts","params":[]}' http://127.0.0.1:8545

Clients that make their own tokens from the secret (Foundry: cast rpc --jwt-secret
<hex>) need only the file's contents. The secret is created if the home has none yet.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !homes.Initialized(home) {
				return fmt.Errorf("%s is not an initialized home (no config/genesis.json)", home)
			}
			secret, err := rpc.EnsureJWTSecret(filepath.Join(home, rpc.JWTSecretFile))
			if err != nil {
				return err
			}
			token, err := rpc.NewJWT(secret, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), token)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	return cmd
}
