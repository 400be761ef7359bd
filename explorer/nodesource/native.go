package nodesource

import (
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/nativetx"
)

// SetNative gives the source the chain's bech32 prefix and denomination,
// which decoding its native transactions needs. Without it, blocks are
// delivered without their native transactions.
func (s *NodeSource) SetNative(prefix, denom string) { s.prefix, s.denom = prefix, denom }

// nativeTxs are the native transactions the node recorded with block
// number (see store.NativeTx), decoded into the explorer's model. They
// decoded when the block ran: an error here means a damaged store.
func (s *NodeSource) nativeTxs(b *types.Block) ([]explorer.NativeTx, error) {
	if s.denom == "" {
		return nil, nil
	}
	recs, err := s.st.NativeTxs(b.NumberU64())
	if err != nil {
		return nil, err
	}
	out := make([]explorer.NativeTx, 0, len(recs))
	for _, r := range recs {
		n, err := nativetx.Decode(r, b, s.prefix, s.denom)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}
