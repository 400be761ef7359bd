package rpcsource

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"time"

	cmthttp "github.com/cometbft/cometbft/rpc/client/http"
	coretypes "github.com/cometbft/cometbft/rpc/core/types"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/nativetx"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/store"
)

// comet reads an Ember chain's native (Cosmos) transactions from its
// CometBFT RPC: they are in the CometBFT block, not in the EVM block that
// eth_getBlockByNumber serves.
type comet struct {
	c             *cmthttp.HTTP
	url           string
	prefix, denom string // from the chain's genesis: what decoding needs
}

// DialComet follows the CometBFT RPC at rawURL (http://host:26657) of the
// chain the source reads, so that blocks carry their native transactions.
// It refuses an endpoint of another chain (its genesis chain-id must name
// eth_chainId), and takes the bech32 prefix and denomination from that
// genesis.
func (s *Source) DialComet(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("--comet %q: not a URL (want http://host:port, e.g. http://127.0.0.1:26657)", rawURL)
	}
	switch u.Scheme {
	case "http", "https", "tcp":
	default:
		return fmt.Errorf("--comet %q: unsupported scheme %q (want http, https or tcp)", u.Redacted(), u.Scheme)
	}
	c, err := cmthttp.New(rawURL, "/websocket")
	if err != nil {
		return fmt.Errorf("--comet %s: %w", u.Redacted(), err)
	}
	callCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	g, err := c.Genesis(callCtx)
	if err != nil {
		return fmt.Errorf("%s does not answer CometBFT's /genesis: %w", u.Redacted(), err)
	}
	st, err := app.ParseAppState(g.Genesis.AppState, g.Genesis.ChainID)
	if err != nil {
		return fmt.Errorf("%s: not an Ember chain's genesis: %w", u.Redacted(), err)
	}
	id, err := app.ParseChainID(g.Genesis.ChainID)
	if err != nil {
		return fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	var chainID hexutil.Big
	if err := s.c.CallContext(callCtx, &chainID, "eth_chainId"); err != nil {
		return fmt.Errorf("%s: eth_chainId: %w", s.url, err)
	}
	if id.Cmp(chainID.ToInt()) != 0 {
		return fmt.Errorf("%s serves chain %s (EVM chain id %s), but %s serves EVM chain id %s: not the same chain",
			u.Redacted(), g.Genesis.ChainID, id, s.url, chainID.ToInt())
	}
	s.comet = &comet{c: c, url: u.Redacted(), prefix: st.Bech32Prefix, denom: st.Denom}
	return nil
}

// Bech32Prefix is the chain's bech32 prefix as the genesis of --comet
// gives it; "" without DialComet.
func (s *Source) Bech32Prefix() string {
	if s.comet == nil {
		return ""
	}
	return s.comet.prefix
}

// nativeTxs are the native transactions of the CometBFT block at b's
// height (EVM block number = CometBFT height), with their results; nil
// without a CometBFT RPC and for the genesis block, which CometBFT did not
// make.
func (s *Source) nativeTxs(ctx context.Context, b *types.Block) ([]explorer.NativeTx, error) {
	if s.comet == nil || b.NumberU64() == 0 {
		return nil, nil
	}
	height := int64(b.NumberU64())
	blk, err := s.comet.c.Block(ctx, &height)
	if err != nil {
		return nil, fmt.Errorf("%s block %d: %w", s.comet.url, height, err)
	}
	// Ember's header carries the CometBFT block hash (emberCometHash): the
	// two endpoints must be serving the same chain.
	if want := s.emberCometHash(b); want != nil && !bytes.Equal(want, blk.BlockID.Hash) {
		return nil, fmt.Errorf("%s block %d has hash %X, but the EVM block names %X: not the same chain",
			s.comet.url, height, []byte(blk.BlockID.Hash), want)
	}
	var (
		out []explorer.NativeTx
		res *coretypes.ResultBlockResults // read at the first native tx: most blocks hold none
	)
	for i, raw := range blk.Block.Txs {
		if !native.IsNative(raw) {
			continue
		}
		if res == nil {
			if res, err = s.comet.c.BlockResults(ctx, &height); err != nil {
				return nil, fmt.Errorf("%s block_results %d: %w", s.comet.url, height, err)
			}
			if len(res.TxsResults) != len(blk.Block.Txs) {
				return nil, fmt.Errorf("%s block_results %d: %d results for %d transactions", s.comet.url, height, len(res.TxsResults), len(blk.Block.Txs))
			}
		}
		r := res.TxsResults[i]
		n, derr := nativetx.Decode(store.NativeTx{Position: uint32(i), Raw: raw, Code: r.Code, Codespace: r.Codespace, Log: r.Log,
			GasWanted: uint64(max(r.GasWanted, 0)), GasUsed: uint64(max(r.GasUsed, 0))}, b, s.comet.prefix, s.comet.denom)
		if derr != nil {
			// The node records only the native transactions it could
			// decode when the block ran; one it could not is skipped here
			// too, so both sources index the same.
			s.log.Warn("undecodable native transaction skipped", "block", height, "position", i, "err", derr)
			continue
		}
		out = append(out, n)
	}
	return out, nil
}
