package eth

import (
	"context"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/evm"
)

// AccessListResult is the eth_createAccessList answer, in geth's shape.
type AccessListResult struct {
	AccessList *types.AccessList `json:"accessList"`
	Error      string            `json:"error,omitempty"`
	GasUsed    hexutil.Uint64    `json:"gasUsed"`
}

// CreateAccessList returns the EIP-2930 access list the call would use and
// the gas it used with it, on the state of the given block (default latest).
// A call that reverts still gets a list, with the error beside it. State
// overrides apply as in eth_call.
func (api *API) CreateAccessList(ctx context.Context, args TransactionArgs, bnh *rpc.BlockNumberOrHash, overrides *StateOverride) (*AccessListResult, error) {
	env, err := api.prepareCall(args, bnh, overrides, nil, false)
	if err != nil {
		return nil, err
	}
	msg := env.msg
	if args.Nonce == nil {
		msg.Nonce = env.state.GetNonce(msg.From)
	}
	list, gasUsed, vmErr, err := evm.CreateAccessList(ctx, api.b.ChainConfig(), env.header, api.b, env.state, msg)
	if err != nil {
		return nil, err
	}
	res := &AccessListResult{AccessList: &list, GasUsed: hexutil.Uint64(gasUsed)}
	if vmErr != nil {
		res.Error = vmErr.Error()
	}
	return res, nil
}
