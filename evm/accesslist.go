package evm

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/tracers/logger"
	"github.com/ethereum/go-ethereum/params"
)

// CreateAccessList finds the EIP-2930 access list of msg as geth's
// eth_createAccessList does: run it with go-ethereum's access-list tracer,
// add what it touched, and repeat until the list stops changing. The
// sender, the recipient (or created contract), precompiles and EIP-7702
// authorities are left out. It returns the list, the gas the last run used,
// and that run's execution error (revert, out of gas, ...), if any; err is
// for a message that cannot run at all.
func CreateAccessList(ctx context.Context, cfg *params.ChainConfig, header *types.Header, headers HeaderReader, statedb *state.StateDB, msg *core.Message) (types.AccessList, uint64, error, error) {
	exclude := accessListExclusions(cfg, header, msg)
	prev := logger.NewAccessListTracer(msg.AccessList, exclude)
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, nil, err
		}
		list := prev.AccessList()
		run := *msg
		run.AccessList = list
		tracer := logger.NewAccessListTracer(list, exclude)
		evm := vm.NewEVM(BlockContext(cfg, header, headers), statedb.Copy(), cfg, vm.Config{Tracer: tracer.Hooks(), NoBaseFee: true})
		if run.GasPrice.Sign() == 0 {
			evm.Context.BaseFee = new(big.Int) // a free call must not trip basefee > feecap
		}
		res, err := core.ApplyMessage(evm, &run, core.NewGasPool(run.GasLimit))
		evm.Release()
		if err != nil {
			return nil, 0, nil, err
		}
		if tracer.Equal(prev) {
			return list, res.UsedGas, res.Err, nil
		}
		prev = tracer
	}
}

func accessListExclusions(cfg *params.ChainConfig, header *types.Header, msg *core.Message) map[common.Address]struct{} {
	to := crypto.CreateAddress(msg.From, msg.Nonce)
	if msg.To != nil {
		to = *msg.To
	}
	exclude := map[common.Address]struct{}{msg.From: {}, to: {}}
	for _, addr := range vm.ActivePrecompiles(Rules(cfg, header.Number, header.Time)) {
		exclude[addr] = struct{}{}
	}
	for _, auth := range msg.SetCodeAuthorizations {
		if (!auth.ChainID.IsZero() && auth.ChainID.CmpBig(cfg.ChainID) != 0) || auth.Nonce+1 < auth.Nonce {
			continue
		}
		if authority, err := auth.Authority(); err == nil {
			exclude[authority] = struct{}{}
		}
	}
	return exclude
}
