package eth

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
)

// StateOverride is the third parameter of eth_call and eth_estimateGas (and
// the fourth of eth_createAccessList): accounts to change on a private copy
// of the state before the call runs, in geth's format.
type StateOverride map[common.Address]OverrideAccount

// OverrideAccount replaces parts of one account. "state" replaces the whole
// storage, "stateDiff" only the slots it names; "movePrecompileToAddress"
// moves a precompile's code to another address (the original address then
// runs whatever code the state has there).
type OverrideAccount struct {
	Nonce            *hexutil.Uint64             `json:"nonce"`
	Code             *hexutil.Bytes              `json:"code"`
	Balance          *hexutil.Big                `json:"balance"`
	State            map[common.Hash]common.Hash `json:"state"`
	StateDiff        map[common.Hash]common.Hash `json:"stateDiff"`
	MovePrecompileTo *common.Address             `json:"movePrecompileToAddress"`
}

// apply writes the overrides into st and moves precompiles in precompiles.
// Accounts are visited in address order so errors do not depend on map order.
func (so StateOverride) apply(st *state.StateDB, precompiles vm.PrecompiledContracts) error {
	moved := make(map[common.Address]bool)
	for _, addr := range slices.SortedFunc(maps.Keys(so), common.Address.Cmp) {
		acct := so[addr]
		if moved[addr] {
			return fmt.Errorf("account %s has already been overridden by a precompile", addr.Hex())
		}
		if acct.State != nil && acct.StateDiff != nil {
			return fmt.Errorf("account %s has both 'state' and 'stateDiff'", addr.Hex())
		}
		pc, isPrecompile := precompiles[addr]
		if dst := acct.MovePrecompileTo; dst != nil {
			if !isPrecompile {
				return fmt.Errorf("account %s is not a precompile", addr.Hex())
			}
			if _, overridden := so[*dst]; overridden {
				return fmt.Errorf("account %s is already overridden", dst.Hex())
			}
			precompiles[*dst] = pc
			moved[*dst] = true
		}
		// An overridden precompile address runs the state's code, if any.
		delete(precompiles, addr)
		if acct.Nonce != nil {
			st.SetNonce(addr, uint64(*acct.Nonce), tracing.NonceChangeUnspecified)
		}
		if acct.Code != nil {
			st.SetCode(addr, *acct.Code, tracing.CodeChangeUnspecified)
		}
		if acct.Balance != nil {
			bal := acct.Balance.ToInt()
			if bal.Sign() < 0 {
				return fmt.Errorf("account %s: negative balance override", addr.Hex())
			}
			st.SetBalance(addr, bigToU256(bal), tracing.BalanceChangeUnspecified)
		}
		if acct.State != nil {
			st.SetStorage(addr, acct.State)
		}
		for slot, value := range acct.StateDiff {
			st.SetState(addr, slot, value)
		}
	}
	// Settle the writes as if a transaction before the call made them, so
	// the call sees them as committed (original) values.
	st.Finalise(params.Rules{})
	return nil
}

// BlockOverrides is the fourth parameter of eth_call and eth_estimateGas:
// fields of the block the call runs in, in geth's format.
type BlockOverrides struct {
	Number        *hexutil.Big       `json:"number"`
	Difficulty    *hexutil.Big       `json:"difficulty"`
	Time          *hexutil.Uint64    `json:"time"`
	GasLimit      *hexutil.Uint64    `json:"gasLimit"`
	FeeRecipient  *common.Address    `json:"feeRecipient"`
	PrevRandao    *common.Hash       `json:"prevRandao"`
	BaseFeePerGas *hexutil.Big       `json:"baseFeePerGas"`
	BlobBaseFee   *hexutil.Big       `json:"blobBaseFee"`
	BeaconRoot    *common.Hash       `json:"beaconRoot"`
	Withdrawals   *types.Withdrawals `json:"withdrawals"`
}

// check refuses the fields a single call cannot honour, with geth's words.
func (o *BlockOverrides) check() error {
	if o == nil {
		return nil
	}
	if o.BeaconRoot != nil {
		return errors.New(`block override "beaconRoot" is not supported for this RPC method`)
	}
	if o.Withdrawals != nil {
		return errors.New(`block override "withdrawals" is not supported for this RPC method`)
	}
	return nil
}

// applyContext changes the EVM's view of the block. BLOCKHASH keeps
// answering from the real chain, as on geth.
func (o *BlockOverrides) applyContext(ctx *vm.BlockContext) {
	if o == nil {
		return
	}
	if o.Number != nil {
		ctx.BlockNumber = new(big.Int).Set(o.Number.ToInt())
	}
	if o.Difficulty != nil {
		ctx.Difficulty = new(big.Int).Set(o.Difficulty.ToInt())
	}
	if o.Time != nil {
		ctx.Time = uint64(*o.Time)
	}
	if o.GasLimit != nil {
		ctx.GasLimit = uint64(*o.GasLimit)
	}
	if o.FeeRecipient != nil {
		ctx.Coinbase = *o.FeeRecipient
	}
	if o.PrevRandao != nil {
		r := *o.PrevRandao
		ctx.Random = &r
	}
	if o.BaseFeePerGas != nil {
		ctx.BaseFee = new(big.Int).Set(o.BaseFeePerGas.ToInt())
	}
	if o.BlobBaseFee != nil {
		ctx.BlobBaseFee = new(big.Int).Set(o.BlobBaseFee.ToInt())
	}
}

// applyHeader returns a copy of h with the overrides, for code that works
// from a header (the gas estimator, the effective gas price of the call).
// Difficulty stays zero on post-merge headers.
func (o *BlockOverrides) applyHeader(h *types.Header) *types.Header {
	if o == nil {
		return h
	}
	c := types.CopyHeader(h)
	if o.Number != nil {
		c.Number = new(big.Int).Set(o.Number.ToInt())
	}
	if o.Difficulty != nil && c.Difficulty != nil && c.Difficulty.Sign() != 0 {
		c.Difficulty = new(big.Int).Set(o.Difficulty.ToInt())
	}
	if o.Time != nil {
		c.Time = uint64(*o.Time)
	}
	if o.GasLimit != nil {
		c.GasLimit = uint64(*o.GasLimit)
	}
	if o.FeeRecipient != nil {
		c.Coinbase = *o.FeeRecipient
	}
	if o.PrevRandao != nil {
		c.MixDigest = *o.PrevRandao
	}
	if o.BaseFeePerGas != nil {
		c.BaseFee = new(big.Int).Set(o.BaseFeePerGas.ToInt())
	}
	return c
}

// blobBaseFee is the overridden blob base fee, or nil.
func (o *BlockOverrides) blobBaseFee() *big.Int {
	if o == nil || o.BlobBaseFee == nil {
		return nil
	}
	return o.BlobBaseFee.ToInt()
}
