package nodesource

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/explorer"
)

var _ explorer.ChainReader = (*NodeSource)(nil)

// headState is the state the newest committed block left.
func (s *NodeSource) headState() (*state.StateDB, *types.Header, error) {
	h := s.st.Head()
	if h == nil {
		return nil, nil, errors.New("no committed block yet")
	}
	st, err := s.st.StateAt(h.Root)
	if err != nil {
		return nil, nil, fmt.Errorf("state of block %d: %w", h.Number.Uint64(), err)
	}
	return st, h, nil
}

// CodeAt implements ChainReader.
func (s *NodeSource) CodeAt(_ context.Context, addr common.Address) ([]byte, error) {
	st, _, err := s.headState()
	if err != nil {
		return nil, err
	}
	return st.GetCode(addr), nil
}

// StorageAt implements ChainReader.
func (s *NodeSource) StorageAt(_ context.Context, addr common.Address, slot common.Hash) (common.Hash, error) {
	st, _, err := s.headState()
	if err != nil {
		return common.Hash{}, err
	}
	return st.GetState(addr, slot), nil
}

// readCallGas bounds the explorer's read-only calls (token facts, proxy
// beacons): far more than any view needs, little enough to stay cheap.
const readCallGas = 50_000_000

// CallContract implements ChainReader: an eth_call from the zero address
// with no gas price on a throwaway copy of the head state.
func (s *NodeSource) CallContract(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
	st, h, err := s.headState()
	if err != nil {
		return nil, err
	}
	cfg := s.st.Config()
	msg := (&core.Message{
		To: &to, Data: data, GasLimit: readCallGas, Value: new(uint256.Int),
		GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int),
	}).SkipNonceCheck().SkipEOACheck().SkipGasLimitCapCheck()
	res, err := evm.Call(ctx, cfg, evm.BlockContext(cfg, h, s.st), st, msg, evm.CallOptions{Timeout: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	if res.Err != nil {
		return nil, fmt.Errorf("call to %s failed: %w", to.Hex(), res.Err)
	}
	return res.Return(), nil
}

// headStorage is one committed state, read slot by slot.
type headStorage struct{ st *state.StateDB }

func (h headStorage) StorageAt(_ context.Context, addr common.Address, slot common.Hash) (common.Hash, error) {
	return h.st.GetState(addr, slot), nil
}

// HeadState implements explorer.HeadStater with the state the newest
// committed block left.
func (s *NodeSource) HeadState(context.Context) (explorer.StorageReader, uint64, error) {
	st, h, err := s.headState()
	if err != nil {
		return nil, 0, err
	}
	return headStorage{st}, h.Number.Uint64(), nil
}
