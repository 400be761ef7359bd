package nodesource

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/evm"
	"github.com/emberchain/ember/explorer"
)

var _ explorer.Caller = (*NodeSource)(nil)

// tokenCallGas and tokenCallTimeout bound one token call (name, totalSupply,
// tokenURI…): far more than a view needs, little enough that a hostile
// contract cannot hold the indexer.
const (
	tokenCallGas     = 50_000_000
	tokenCallTimeout = 5 * time.Second
)

// Call implements Caller through the node's own call machinery (what
// eth_call runs): from the zero address, no gas price, on a throwaway copy
// of the state block number committed.
func (s *NodeSource) Call(ctx context.Context, number uint64, to common.Address, data []byte) ([]byte, error) {
	h := s.st.HeaderByNumber(number)
	if h == nil {
		return nil, fmt.Errorf("block %d not in the node's store", number)
	}
	st, err := s.st.StateAt(h.Root)
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", number, err)
	}
	cfg := s.st.Config()
	msg := (&core.Message{
		To: &to, Data: data, GasLimit: tokenCallGas, Value: new(uint256.Int),
		GasPrice: new(uint256.Int), GasFeeCap: new(uint256.Int), GasTipCap: new(uint256.Int),
		BlobGasFeeCap: new(uint256.Int),
	}).SkipNonceCheck().SkipEOACheck().SkipGasLimitCapCheck() // a read, as eth_call: EIP-7825's cap binds transactions
	res, err := evm.Call(ctx, cfg, evm.BlockContext(cfg, h, s.st), st, msg, evm.CallOptions{Timeout: tokenCallTimeout})
	if err != nil {
		return nil, err
	}
	if res.Err != nil {
		return nil, fmt.Errorf("call to %s failed: %w", to.Hex(), res.Err)
	}
	return res.Return(), nil
}
