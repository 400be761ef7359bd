package rpcsource

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/explorer"
)

var _ explorer.Caller = (*Source)(nil)

// Call implements explorer.Caller with eth_call at the block number.
func (s *Source) Call(ctx context.Context, number uint64, to common.Address, data []byte) ([]byte, error) {
	var out hexutil.Bytes
	args := map[string]any{"to": to, "data": hexutil.Bytes(data)}
	if err := s.c.CallContext(ctx, &out, "eth_call", args, hexutil.EncodeUint64(number)); err != nil {
		return nil, err
	}
	return out, nil
}
