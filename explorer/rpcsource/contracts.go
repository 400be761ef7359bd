package rpcsource

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/explorer"
)

var _ explorer.ChainReader = (*Source)(nil)

// CodeAt implements explorer.ChainReader with eth_getCode at latest.
func (s *Source) CodeAt(ctx context.Context, addr common.Address) ([]byte, error) {
	var out hexutil.Bytes
	err := s.c.CallContext(ctx, &out, "eth_getCode", addr, "latest")
	return out, err
}

// StorageAt implements explorer.ChainReader with eth_getStorageAt at latest.
func (s *Source) StorageAt(ctx context.Context, addr common.Address, slot common.Hash) (common.Hash, error) {
	var out hexutil.Bytes
	if err := s.c.CallContext(ctx, &out, "eth_getStorageAt", addr, slot, "latest"); err != nil {
		return common.Hash{}, err
	}
	return common.BytesToHash(out), nil
}

// CallContract implements explorer.ChainReader with eth_call at latest.
func (s *Source) CallContract(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
	var out hexutil.Bytes
	args := map[string]any{"to": to, "data": hexutil.Bytes(data)}
	err := s.c.CallContext(ctx, &out, "eth_call", args, "latest")
	return out, err
}

// blockStorage reads slots with eth_getStorageAt at one block number.
type blockStorage struct {
	s      *Source
	number hexutil.Uint64
}

func (b blockStorage) StorageAt(ctx context.Context, addr common.Address, slot common.Hash) (common.Hash, error) {
	var out hexutil.Bytes
	if err := b.s.c.CallContext(ctx, &out, "eth_getStorageAt", addr, slot, b.number); err != nil {
		return common.Hash{}, err
	}
	return common.BytesToHash(out), nil
}

// HeadState implements explorer.HeadStater: the node's block number now,
// every later read at it.
func (s *Source) HeadState(ctx context.Context) (explorer.StorageReader, uint64, error) {
	var n hexutil.Uint64
	if err := s.c.CallContext(ctx, &n, "eth_blockNumber"); err != nil {
		return nil, 0, err
	}
	return blockStorage{s: s, number: n}, uint64(n), nil
}
