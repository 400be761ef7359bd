package rpcsource

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

var _ explorer.GenesisSource = (*Source)(nil)

// SetGenesisAccounts names the accounts of the chain's genesis state (from
// its genesis file: JSON-RPC has no standard call listing them), so that
// funded accounts which never transact are indexed at block 0. Call it
// before indexing starts.
func (s *Source) SetGenesisAccounts(addrs []common.Address) {
	s.genesis = append([]common.Address(nil), addrs...)
}

// GenesisAccounts implements explorer.GenesisSource: the accounts given to
// SetGenesisAccounts, none by default.
func (s *Source) GenesisAccounts(context.Context) ([]common.Address, error) {
	return s.genesis, nil
}
