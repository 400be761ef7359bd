package eth

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// simCall is one call of a simulated block with every default filled in:
// what it executes as (msg) and the unsigned transaction that stands for it
// in the block (tx), whose hash names the call in logs and receipts.
type simCall struct {
	from common.Address
	msg  *core.Message
	tx   *types.Transaction
}

// newSimCall fills the defaults of a simulated call the way geth does: the
// nonce is the sender's in the simulated state, the gas what the block has
// left (more is -38015), the fees zero; a "gasPrice" makes it a legacy (or,
// with an access list, EIP-2930) transaction, an authorization list a
// set-code one, anything else an EIP-1559 one. gas is already within the
// request's gas budget.
func newSimCall(args *TransactionArgs, nonce, gas uint64, baseFee, chainID *big.Int, validate bool) (*simCall, error) {
	if args.GasPrice != nil && (args.MaxFeePerGas != nil || args.MaxPriorityFeePerGas != nil) {
		return nil, errors.New("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	if args.To == nil && args.AuthorizationList != nil {
		return nil, core.ErrSetCodeTxCreate
	}
	if args.ChainID != nil && args.ChainID.ToInt().Cmp(chainID) != 0 {
		return nil, fmt.Errorf("chainId does not match node's (have=%v, want=%v)", args.ChainID.ToInt(), chainID)
	}
	data, err := args.data()
	if err != nil {
		return nil, err
	}
	if args.Nonce != nil {
		nonce = uint64(*args.Nonce)
	}
	c := &simCall{}
	if args.From != nil {
		c.from = *args.From
	}
	value := new(big.Int)
	if args.Value != nil {
		value = args.Value.ToInt()
	}
	var accessList types.AccessList
	if args.AccessList != nil {
		accessList = *args.AccessList
	}
	feeCap, tip := new(big.Int), new(big.Int)
	if args.MaxFeePerGas != nil {
		feeCap = args.MaxFeePerGas.ToInt()
	}
	if args.MaxPriorityFeePerGas != nil {
		tip = args.MaxPriorityFeePerGas.ToInt()
	}

	// The transaction that stands for the call.
	switch {
	case args.GasPrice != nil && args.AccessList != nil:
		c.tx = types.NewTx(&types.AccessListTx{ChainID: chainID, Nonce: nonce, GasPrice: args.GasPrice.ToInt(), Gas: gas,
			To: args.To, Value: value, Data: data, AccessList: accessList})
	case args.GasPrice != nil:
		c.tx = types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: args.GasPrice.ToInt(), Gas: gas, To: args.To, Value: value, Data: data})
	case args.AuthorizationList != nil:
		c.tx = types.NewTx(&types.SetCodeTx{ChainID: uint256.MustFromBig(chainID), Nonce: nonce,
			GasTipCap: bigToU256(tip), GasFeeCap: bigToU256(feeCap), Gas: gas, To: *args.To, Value: bigToU256(value),
			Data: data, AccessList: orEmpty(accessList), AuthList: args.AuthorizationList})
	default:
		c.tx = types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas,
			To: args.To, Value: value, Data: data, AccessList: orEmpty(accessList)})
	}

	// What it executes as: a legacy price pays itself; EIP-1559 fields pay
	// min(tip + base fee, fee cap), and no fee at all pays nothing.
	gasPrice := new(big.Int)
	if args.GasPrice != nil {
		gasPrice.Set(args.GasPrice.ToInt())
		feeCap, tip = gasPrice, gasPrice
	} else if feeCap.Sign() > 0 || tip.Sign() > 0 {
		gasPrice.Add(tip, baseFee)
		if gasPrice.Cmp(feeCap) > 0 {
			gasPrice.Set(feeCap)
		}
	}
	c.msg = &core.Message{
		From:                  c.from,
		To:                    args.To,
		Nonce:                 nonce,
		Value:                 bigToU256(value),
		GasLimit:              gas,
		GasPrice:              bigToU256(gasPrice),
		GasFeeCap:             bigToU256(feeCap),
		GasTipCap:             bigToU256(tip),
		Data:                  data,
		AccessList:            accessList,
		SetCodeAuthorizations: args.AuthorizationList,
		BlobGasFeeCap:         new(uint256.Int),
	}
	// The sender may be a contract, even with validation (as on geth).
	c.msg.SkipEOACheck().SkipGasLimitCapCheck()
	if !validate {
		c.msg.SkipNonceCheck().SkipExecutionGasCapCheck()
	}
	return c, nil
}

func orEmpty(al types.AccessList) types.AccessList {
	if al == nil {
		return types.AccessList{}
	}
	return al
}
