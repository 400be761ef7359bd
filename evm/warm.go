package evm

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// warmPrecompiles is a StateDB whose fork precompiles are warm by rule
// rather than by entries in the access list.
//
// Why: for every message, go-ethereum's Prepare puts each precompile it is
// given (17 from Prague on, 18 from Osaka) into a fresh access-list map, which grows twice
// on the way. For a light eth_call that cost more than the call itself.
//
// Gas is unchanged: an address is warm when the access list holds it or
// when it is one of the precompiles Prepare was given, which is exactly the
// set the access list would have held. Precompile entries were never
// journaled (Prepare adds them outside the journal), so a revert cannot
// make one cold; here too it cannot.
type warmPrecompiles struct {
	*state.StateDB
	precompiles []common.Address // as Prepare got them; ≤ 20, so a scan beats a map
}

// Prepare is state.StateDB's, minus the precompiles, which it remembers.
func (s *warmPrecompiles) Prepare(rules params.Rules, sender, coinbase common.Address, dst *common.Address, precompiles []common.Address, list types.AccessList) {
	s.precompiles = nil
	if rules.IsEIP2929 {
		s.precompiles = precompiles
	}
	s.StateDB.Prepare(rules, sender, coinbase, dst, nil, list)
}

func (s *warmPrecompiles) isPrecompile(addr common.Address) bool {
	for _, p := range s.precompiles {
		if p == addr {
			return true
		}
	}
	return false
}

func (s *warmPrecompiles) AddressInAccessList(addr common.Address) bool {
	return s.StateDB.AddressInAccessList(addr) || s.isPrecompile(addr)
}

func (s *warmPrecompiles) SlotInAccessList(addr common.Address, slot common.Hash) (addressOk bool, slotOk bool) {
	addressOk, slotOk = s.StateDB.SlotInAccessList(addr, slot)
	return addressOk || s.isPrecompile(addr), slotOk
}
