// Package feemarket keeps the fee market's parameters in the state trie, so
// that governance can change them: min_base_fee, the floor under the
// EIP-1559 base fee (elasticity 2, change denominator 8, as go-ethereum
// computes it). Every place that computes the base fee of the next block
// reads the floor from the parent block's state through MinBaseFee, so a
// change made in block h sets the floor of block h+1 on every node alike.
//
// The parameters live in the storage of StateAddress:
//
//	uint256 minBaseFee; // slot 0, wei
//
// The account's nonce is 1 once the parameters are written; a state whose
// account has nonce 0 holds none (a chain made before this package), and
// MinBaseFee answers the fallback the caller gives: the genesis value.
package feemarket

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/tracing"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// Name is the module's name and its legacy params subspace (x/params),
// as Evmos-era chains name it.
const Name = "feemarket"

// GenesisSection is the app_state section the parameters are read from at
// genesis.
const GenesisSection = "fee_market"

// StateAddress holds the parameters in its storage.
var StateAddress = common.HexToAddress("0x0000000000000000000000000000000000000B70")

var store = slots.Account(StateAddress)

const slotMinBaseFee = 0

// Params are the fee market's parameters.
type Params struct {
	// MinBaseFee is the floor under the base fee, in wei.
	MinBaseFee *big.Int
}

// Validate refuses a floor that is absent, negative or wider than a
// storage word.
func (p Params) Validate() error {
	switch {
	case p.MinBaseFee == nil:
		return fmt.Errorf("min base fee cannot be nil")
	case p.MinBaseFee.Sign() < 0:
		return fmt.Errorf("min base fee cannot be negative: %s", p.MinBaseFee)
	case p.MinBaseFee.BitLen() > 256:
		return fmt.Errorf("min base fee is too large: %s", p.MinBaseFee)
	}
	return nil
}

// GetParams reads the parameters; ok is false when the state holds none.
func GetParams(st module.Reader) (p Params, ok bool) {
	if st.GetNonce(StateAddress) == 0 {
		return Params{}, false
	}
	return Params{MinBaseFee: store.Big(st, slots.Word(slotMinBaseFee))}, true
}

// MinBaseFee is the base-fee floor st records, or a copy of fallback (the
// genesis value) when st holds no parameters.
func MinBaseFee(st module.Reader, fallback *big.Int) *big.Int {
	if p, ok := GetParams(st); ok {
		return p.MinBaseFee
	}
	if fallback == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(fallback)
}

// SetParams validates p and writes it.
func SetParams(st module.State, p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if st.GetNonce(StateAddress) == 0 {
		st.SetNonce(StateAddress, 1, tracing.NonceChangeGenesis)
	}
	store.SetBig(st, slots.Word(slotMinBaseFee), p.MinBaseFee)
	return nil
}

// Module is the fee-market module: its parameters at genesis. It has no
// messages; governance changes the floor through a legacy
// ParameterChangeProposal (package paramchange, subspace feemarket).
type Module struct{}

// Name implements module.Module.
func (Module) Name() string { return Name }

// Msgs implements module.Module.
func (Module) Msgs() []*module.MsgHandler { return nil }

// GenesisState is app_state.fee_market.
type GenesisState struct {
	MinBaseFee *math.HexOrDecimal256 `json:"min_base_fee"`
}

// InitGenesis writes app_state.fee_market.min_base_fee into the state;
// without one it writes nothing and MinBaseFee answers its fallback.
func (Module) InitGenesis(g *module.Genesis) error {
	var gs *GenesisState
	if err := g.Section(GenesisSection, &gs); err != nil {
		return err
	}
	if gs == nil || gs.MinBaseFee == nil {
		return nil
	}
	if _, taken := g.Alloc[StateAddress]; taken {
		return fmt.Errorf("genesis allocation names the fee market's system account %s", StateAddress.Hex())
	}
	if err := SetParams(g.State(), Params{MinBaseFee: (*big.Int)(gs.MinBaseFee)}); err != nil {
		return fmt.Errorf("app_state.%s: %w", GenesisSection, err)
	}
	return nil
}
