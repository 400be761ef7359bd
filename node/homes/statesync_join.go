package homes

import (
	"context"
	"fmt"
	"strings"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
)

// StateSyncTrustMargin is how many blocks below the first server's latest
// height the trusted block of JoinStateSync is: a block every server has
// surely committed.
const StateSyncTrustMargin = 10

// JoinTrust is what a node joining by state sync trusts, read from the
// network's RPC servers.
type JoinTrust struct {
	Servers []string // the servers as CometBFT's light client takes them (http://host:port, at least two entries)
	Height  int64
	Hash    string // CometBFT block hash, hex
}

// JoinStateSync reads a trusted block for a node joining by state sync:
// the first server's latest height less StateSyncTrustMargin (at least 1),
// its block hash, and the same height's hash from the second server, which
// must agree. One server is listed twice (CometBFT wants two entries).
func JoinStateSync(servers []string) (*JoinTrust, error) {
	var list []string
	for _, s := range servers {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !strings.Contains(s, "://") {
			s = "http://" + s
		}
		list = append(list, s)
	}
	switch len(list) {
	case 0:
		return nil, fmt.Errorf("--statesync.rpc-servers names no server")
	case 1:
		list = append(list, list[0])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	first, err := rpchttp.New(list[0], "/websocket")
	if err != nil {
		return nil, fmt.Errorf("state sync: %s: %w", list[0], err)
	}
	st, err := first.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("state sync: status of %s: %w", list[0], err)
	}
	height := max(st.SyncInfo.LatestBlockHeight-StateSyncTrustMargin, 1)
	hash, err := blockHash(ctx, first, height)
	if err != nil {
		return nil, fmt.Errorf("state sync: block %d from %s: %w", height, list[0], err)
	}
	second, err := rpchttp.New(list[1], "/websocket")
	if err != nil {
		return nil, fmt.Errorf("state sync: %s: %w", list[1], err)
	}
	other, err := blockHash(ctx, second, height)
	if err != nil {
		return nil, fmt.Errorf("state sync: block %d from %s: %w", height, list[1], err)
	}
	if other != hash {
		return nil, fmt.Errorf("state sync: block %d has hash %s at %s but %s at %s: the servers are not on one chain", height, hash, list[0], other, list[1])
	}
	return &JoinTrust{Servers: list, Height: height, Hash: hash}, nil
}

// blockHash is the hash of the committed block at height.
func blockHash(ctx context.Context, c *rpchttp.HTTP, height int64) (string, error) {
	res, err := c.Commit(ctx, &height)
	if err != nil {
		return "", err
	}
	return res.SignedHeader.Commit.BlockID.Hash.String(), nil
}
