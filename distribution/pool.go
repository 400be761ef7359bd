package distribution

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/module"
)

// move transfers amount from one account to another, with the bank's coin
// events (msg_index idx; "" in begin-block).
func move(st module.State, ev *module.Events, from, to common.Address, amount *big.Int, idx string) error {
	a, overflow := uint256.FromBig(amount)
	if overflow || amount.Sign() < 0 {
		return fmt.Errorf("distribution: move %v: out of range", amount)
	}
	if st.GetBalance(from).Cmp(a) < 0 {
		return fmt.Errorf("distribution: move %v from %s: balance is %s", amount, from.Hex(), st.GetBalance(from).Dec())
	}
	st.SubBalance(from, a, tracing.BalanceChangeTransfer)
	st.AddBalance(to, a, tracing.BalanceChangeTransfer)
	ev.Coins(from, to, amount, idx)
	ev.Add("transfer", "recipient", ev.Acc(to), "sender", ev.Acc(from), "amount", ev.Coin(amount), "msg_index", idx)
	return nil
}

// pay transfers amount out of the distribution pool.
func pay(st module.State, ev *module.Events, to common.Address, amount *big.Int, idx string) error {
	return move(st, ev, Pool, to, amount, idx)
}

// blocked tells whether a is a system address (precompiles and module
// accounts live below 2^16), which may not be a withdraw address: coins
// sent there would be lost or would corrupt a module's accounting, as the
// SDK's blocked module accounts.
func blocked(a common.Address) bool {
	for _, b := range a[:18] {
		if b != 0 {
			return false
		}
	}
	return true
}
