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

// blocked tells whether a may not be a withdraw address, as the SDK
// blocks its module accounts: the precompiles (0x…01 to 0x…01FF) and the
// system accounts of the modules (0x…0B00 to 0x…0BFF), where coins would be
// lost or would break a module's accounting.
func blocked(a common.Address) bool {
	for _, b := range a[:18] {
		if b != 0 {
			return false
		}
	}
	v := uint16(a[18])<<8 | uint16(a[19])
	return v <= 0x1ff || v&0xff00 == 0x0b00
}
