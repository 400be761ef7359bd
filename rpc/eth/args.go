package eth

import (
	"bytes"
	"errors"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// TransactionArgs is the call object of eth_call and eth_estimateGas, with
// geth's field names and decoding (hexutil types reject malformed QUANTITY
// and DATA).
type TransactionArgs struct {
	From                 *common.Address              `json:"from"`
	To                   *common.Address              `json:"to"`
	Gas                  *hexutil.Uint64              `json:"gas"`
	GasPrice             *hexutil.Big                 `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big                 `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big                 `json:"maxPriorityFeePerGas"`
	Value                *hexutil.Big                 `json:"value"`
	Nonce                *hexutil.Uint64              `json:"nonce"`
	Data                 *hexutil.Bytes               `json:"data"`
	Input                *hexutil.Bytes               `json:"input"`
	AccessList           *types.AccessList            `json:"accessList,omitempty"`
	ChainID              *hexutil.Big                 `json:"chainId,omitempty"`
	AuthorizationList    []types.SetCodeAuthorization `json:"authorizationList"`
}

// data is the call data, from "input" or its older name "data".
func (args *TransactionArgs) data() ([]byte, error) {
	switch {
	case args.Input != nil && args.Data != nil && !bytes.Equal(*args.Input, *args.Data):
		return nil, errors.New(`both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`)
	case args.Input != nil:
		return *args.Input, nil
	case args.Data != nil:
		return *args.Data, nil
	}
	return nil, nil
}

// toMessage builds the message a call executes, as geth does for calls: the
// gas limit defaults to (and is capped at) gasCap; with no fee fields the
// gas price is zero; with EIP-1559 fields the effective price at baseFee.
// The nonce and EOA checks are skipped.
func (args *TransactionArgs) toMessage(baseFee *big.Int, gasCap uint64) (*core.Message, error) {
	if args.GasPrice != nil && (args.MaxFeePerGas != nil || args.MaxPriorityFeePerGas != nil) {
		return nil, errors.New("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	data, err := args.data()
	if err != nil {
		return nil, err
	}
	gas := gasCap
	if gas == 0 {
		gas = math.MaxUint64 / 2
	}
	if args.Gas != nil && uint64(*args.Gas) < gas {
		gas = uint64(*args.Gas)
	}
	var from common.Address
	if args.From != nil {
		from = *args.From
	}
	gasPrice, feeCap, tip := new(big.Int), new(big.Int), new(big.Int)
	switch {
	case args.GasPrice != nil:
		gasPrice.Set(args.GasPrice.ToInt())
		feeCap.Set(gasPrice)
		tip.Set(gasPrice)
	case args.MaxFeePerGas != nil || args.MaxPriorityFeePerGas != nil:
		if args.MaxFeePerGas != nil {
			feeCap.Set(args.MaxFeePerGas.ToInt())
		}
		if args.MaxPriorityFeePerGas != nil {
			tip.Set(args.MaxPriorityFeePerGas.ToInt())
		}
		if feeCap.Sign() > 0 || tip.Sign() > 0 {
			gasPrice = new(big.Int).Add(tip, baseFee)
			if gasPrice.Cmp(feeCap) > 0 {
				gasPrice.Set(feeCap)
			}
		}
	}
	value := new(big.Int)
	if args.Value != nil {
		value = args.Value.ToInt()
	}
	msg := &core.Message{
		From:                  from,
		To:                    args.To,
		Value:                 bigToU256(value),
		GasLimit:              gas,
		GasPrice:              bigToU256(gasPrice),
		GasFeeCap:             bigToU256(feeCap),
		GasTipCap:             bigToU256(tip),
		Data:                  data,
		SetCodeAuthorizations: args.AuthorizationList,
		BlobGasFeeCap:         new(uint256.Int),
	}
	if args.AccessList != nil {
		msg.AccessList = *args.AccessList
	}
	if args.Nonce != nil {
		msg.Nonce = uint64(*args.Nonce)
	}
	// As go-ethereum's calls: a call's gas is bounded by the RPC gas cap,
	// not by EIP-7825's per-transaction cap (the estimator caps its search
	// at it under Osaka).
	return msg.SkipNonceCheck().SkipEOACheck().SkipGasLimitCapCheck(), nil
}

// bigToU256 saturates values wider than 256 bits.
func bigToU256(v *big.Int) *uint256.Int {
	u, overflow := uint256.FromBig(v)
	if overflow {
		return new(uint256.Int).SetAllOne()
	}
	return u
}
