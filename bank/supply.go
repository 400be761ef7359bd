package bank

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/module"
)

// SupplyAddress is the system account whose storage slot 0 holds the total
// supply of the coin: the genesis balances, plus what mint creates, minus
// what is burned (the EVM's base fee, slashes). Like every system account
// it has nonce 1, so EIP-161 never clears it.
var SupplyAddress = common.HexToAddress("0x0000000000000000000000000000000000000B40")

var supplySlot = common.Hash{}

// Supply is the total supply the state records.
func Supply(st module.Reader) *big.Int {
	v := st.GetState(SupplyAddress, supplySlot)
	return new(big.Int).SetBytes(v[:])
}

func setSupply(st module.State, v *big.Int) {
	if st.GetNonce(SupplyAddress) == 0 {
		st.SetNonce(SupplyAddress, 1, tracing.NonceChangeGenesis)
	}
	st.SetState(SupplyAddress, supplySlot, common.BigToHash(v))
}

// Mint creates amount in to's balance and adds it to the supply.
func Mint(st module.State, to common.Address, amount *big.Int) error {
	a, overflow := uint256.FromBig(amount)
	if overflow || amount.Sign() < 0 {
		return fmt.Errorf("mint %v: out of range", amount)
	}
	st.AddBalance(to, a, tracing.BalanceChangeUnspecified)
	setSupply(st, new(big.Int).Add(Supply(st), amount))
	return nil
}

// Burn destroys amount of from's balance and takes it from the supply.
func Burn(st module.State, from common.Address, amount *big.Int) error {
	a, overflow := uint256.FromBig(amount)
	if overflow || amount.Sign() < 0 {
		return fmt.Errorf("burn %v: out of range", amount)
	}
	if st.GetBalance(from).Cmp(a) < 0 {
		return fmt.Errorf("burn %v from %s: balance is %s", amount, from.Hex(), st.GetBalance(from).Dec())
	}
	st.SubBalance(from, a, tracing.BalanceDecreaseSelfdestructBurn)
	return RecordBurn(st, amount)
}

// RecordBurn takes amount, already gone from every balance (the base fee
// the EVM burns), from the supply.
func RecordBurn(st module.State, amount *big.Int) error {
	s := Supply(st)
	if s.Cmp(amount) < 0 {
		return fmt.Errorf("burn %v: the supply is %v", amount, s)
	}
	setSupply(st, s.Sub(s, amount))
	return nil
}

// InitSupply records the genesis supply; it is for InitGenesis only.
func InitSupply(st module.State, total *big.Int) { setSupply(st, total) }
