package homes

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/emberchain/ember/node/config"
)

// stateSyncDiscovery is how long a joining node gathers snapshot offers
// before choosing one (CometBFT's minimum).
const stateSyncDiscovery = 5 * time.Second

// stateSyncTrust is a block the new node's light client trusts.
type stateSyncTrust struct {
	height int64
	hash   string // CometBFT block hash, hex
}

// AddStateSyncNode adds a full node home to a running testnet (as
// AddTestnetNode) that joins by CometBFT state sync: config.toml's
// [statesync] is enabled, its light client reads two of the validators'
// RPCs and trusts the latest block one of them reports now. Started, it
// restores the newest snapshot the validators serve ([state-sync]
// snapshot-interval in their app.toml), then block-syncs from there.
func AddStateSyncNode(dir string) (*TestnetNode, error) {
	tn, err := LoadTestnet(dir)
	if err != nil {
		return nil, err
	}
	vals := tn.Validators()
	if len(vals) == 0 {
		return nil, errors.New("the testnet has no validator to state-sync from")
	}
	var servers []string
	for _, v := range vals {
		servers = append(servers, fmt.Sprintf("http://127.0.0.1:%d", v.Ports.RPC))
	}
	if len(servers) == 1 { // CometBFT wants two entries: the same one twice is accepted
		servers = append(servers, servers[0])
	}
	trust, err := latestTrust(servers)
	if err != nil {
		return nil, err
	}
	n, err := AddTestnetNode(dir)
	if err != nil {
		return nil, err
	}
	cc, err := config.LoadComet(n.Home)
	if err != nil {
		return nil, err
	}
	cc.StateSync.Enable = true
	cc.StateSync.RPCServers = servers[:2]
	cc.StateSync.TrustHeight = trust.height
	cc.StateSync.TrustHash = trust.hash
	cc.StateSync.DiscoveryTime = stateSyncDiscovery
	if err := cc.StateSync.ValidateBasic(); err != nil {
		return nil, fmt.Errorf("statesync config: %w", err)
	}
	cmtcfg.WriteConfigFile(filepath.Join(n.Home, "config", "config.toml"), cc)
	return n, nil
}

// latestTrust reads the latest committed block from the first server that
// answers.
func latestTrust(servers []string) (*stateSyncTrust, error) {
	var errs []error
	for _, s := range servers {
		c, err := rpchttp.New(s, "/websocket")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := c.Commit(ctx, nil)
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s, err))
			continue
		}
		h := res.SignedHeader
		return &stateSyncTrust{height: h.Height, hash: h.Commit.BlockID.Hash.String()}, nil
	}
	return nil, fmt.Errorf("no validator answered for a trusted block (is the testnet running?): %w", errors.Join(errs...))
}
