package staking

import (
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// UBDEntry is one entry of an unbonding delegation.
type UBDEntry struct {
	CreationHeight int64
	CompletionTime time.Time
	InitialBalance *big.Int
	Balance        *big.Int
	UnbondingID    uint64
}

func ubdSlot(del, op common.Address) common.Hash { return mapSlot2(del, op, slotUBDs) }

// UnbondingEntries are the entries of del's unbonding delegation from op,
// oldest first.
func UnbondingEntries(st module.Reader, del, op common.Address) []UBDEntry {
	base := ubdSlot(del, op)
	n := store.Uint(st, base)
	out := make([]UBDEntry, 0, n)
	for i := uint64(0); i < n; i++ {
		e := slots.Elem(base, i, 5)
		out = append(out, UBDEntry{
			CreationHeight: int64(store.Uint(st, e)), CompletionTime: wordTime(store.Get(st, slots.Offset(e, 1))),
			InitialBalance: store.Big(st, slots.Offset(e, 2)), Balance: store.Big(st, slots.Offset(e, 3)), UnbondingID: store.Uint(st, slots.Offset(e, 4)),
		})
	}
	return out
}

// setUnbondingEntries rewrites the entries (clearing the words of removed
// ones) and keeps the indexes.
func setUnbondingEntries(st module.State, del, op common.Address, es []UBDEntry) {
	base := ubdSlot(del, op)
	old := store.Uint(st, base)
	for i, x := range es {
		e := slots.Elem(base, uint64(i), 5)
		store.SetUint(st, e, uint64(x.CreationHeight))
		store.Set(st, slots.Offset(e, 1), timeWord(x.CompletionTime))
		store.SetBig(st, slots.Offset(e, 2), x.InitialBalance)
		store.SetBig(st, slots.Offset(e, 3), x.Balance)
		store.SetUint(st, slots.Offset(e, 4), x.UnbondingID)
	}
	for i := uint64(len(es)); i < old; i++ {
		for k := uint64(0); k < 5; k++ {
			store.Set(st, slots.Offset(slots.Elem(base, i, 5), k), common.Hash{})
		}
	}
	store.SetUint(st, base, uint64(len(es)))
	if len(es) > 0 {
		setOf(slotUBDDels, op).Add(st, del)
		setOf(slotUBDVals, del).Add(st, op)
	} else {
		setOf(slotUBDDels, op).Remove(st, del)
		setOf(slotUBDVals, del).Remove(st, op)
	}
}

// UnbondingDelegators are the delegators with unbonding entries from op.
func UnbondingDelegators(st module.Reader, op common.Address) []common.Address {
	return setOf(slotUBDDels, op).List(st)
}

// UnbondingValidators are the validators del has unbonding entries from.
func UnbondingValidators(st module.Reader, del common.Address) []common.Address {
	return setOf(slotUBDVals, del).List(st)
}

func nextUnbondingID(st module.State) uint64 {
	id := store.Uint(st, slots.Word(slotUnbondingID)) + 1
	store.SetUint(st, slots.Word(slotUnbondingID), id)
	return id
}

// CheckUndelegate reports why del cannot unbond amount from op now.
func CheckUndelegate(st module.Reader, del, op common.Address, amount *big.Int) error {
	v, ok := Get(st, op)
	if !ok {
		return Err(CodeNoValidator)
	}
	if _, err := sharesToUnbond(st, del, v, amount); err != nil {
		return err
	}
	if uint64(len(UnbondingEntries(st, del, op))) >= GetParams(st).MaxEntries {
		return Err(CodeMaxUnbondingEntries)
	}
	return checkKeepsSet(st, v, amount)
}

// checkKeepsSet refuses to take amount from v when that would leave the
// bonded set without power: CometBFT halts on an empty set.
func checkKeepsSet(st module.Reader, v *Validator, amount *big.Int) error {
	if !v.IsBonded() {
		return nil
	}
	total := int64(0)
	for _, other := range All(st) {
		if other.IsBonded() && !other.Jailed && other.Operator != v.Operator {
			total += other.Power()
		}
	}
	left := new(big.Int).Sub(v.Tokens, amount)
	if total == 0 && (v.Jailed || left.Sign() <= 0 || Power(left) == 0) {
		return amountErr(ErrEmptySet)
	}
	return nil
}

// Undelegate unbonds amount of del's delegation to op (SDK
// keeper.Undelegate): the tokens go to the not-bonded pool as an entry
// that completes at now + the unbonding time. It returns the completion
// time and the tokens the unbonded shares held.
func (k *Keeper) Undelegate(st module.State, del, op common.Address, amount *big.Int, height int64, now time.Time) (time.Time, *big.Int, error) {
	if err := CheckUndelegate(st, del, op, amount); err != nil {
		return time.Time{}, nil, err
	}
	v, _ := Get(st, op)
	shares, _ := sharesToUnbond(st, del, v, amount)
	wasBonded := v.IsBonded()
	out, err := k.unbond(st, del, v, shares)
	if err != nil {
		return time.Time{}, nil, err
	}
	if wasBonded {
		if err := transfer(st, BondedPool, NotBondedPool, out); err != nil {
			return time.Time{}, nil, err
		}
	}
	done := now.Add(GetParams(st).UnbondingTime)
	es := append(UnbondingEntries(st, del, op), UBDEntry{CreationHeight: height, CompletionTime: done, InitialBalance: out, Balance: new(big.Int).Set(out), UnbondingID: nextUnbondingID(st)})
	setUnbondingEntries(st, del, op, es)
	enqueue(st, done, queueItem{Kind: itemUBD, Delegator: del, Val: op})
	return done, out, nil
}

// completeUnbonding pays del every mature entry from op (SDK
// CompleteUnbonding) and returns the total paid and whether any entry
// matured.
func completeUnbonding(st module.State, del, op common.Address, now time.Time) (*big.Int, bool, error) {
	paid := new(big.Int)
	var keep []UBDEntry
	es := UnbondingEntries(st, del, op)
	for _, e := range es {
		if e.CompletionTime.After(now) {
			keep = append(keep, e)
			continue
		}
		if e.Balance.Sign() > 0 {
			if err := transfer(st, NotBondedPool, del, e.Balance); err != nil {
				return nil, false, err
			}
			paid.Add(paid, e.Balance)
		}
	}
	setUnbondingEntries(st, del, op, keep)
	return paid, len(keep) < len(es), nil
}

// CheckCancelUnbonding reports why del cannot take amount of the entry
// created at height back from its unbonding from op (the SDK's checks of
// MsgCancelUnbondingDelegation, in its order).
func (k *Keeper) CheckCancelUnbonding(st module.Reader, del, op common.Address, amount *big.Int, height int64, now time.Time) error {
	v, ok := Get(st, op)
	if !ok {
		return Err(CodeNoValidator)
	}
	if v.invalidExRate() {
		return Err(CodeDelegatorShareExRateZero)
	}
	if v.Jailed {
		return Err(CodeValidatorJailed)
	}
	if k.tombstoned(st, v) {
		return Err(CodeValidatorJailed).WithDetail("validator is tombstoned")
	}
	es := UnbondingEntries(st, del, op)
	if len(es) == 0 {
		return Err(CodeNoUnbondingDelegation)
	}
	i := findEntry(es, height)
	if i < 0 {
		return &module.Error{Codespace: module.CodespaceSDK, Code: codeSDKNotFound, Desc: "not found",
			Detail: fmt.Sprintf("unbonding delegation entry is not found at block height %d", height)}
	}
	if es[i].Balance.Cmp(amount) < 0 {
		return module.SDKError(module.CodeInvalidRequest, "amount is greater than the unbonding delegation entry balance")
	}
	if es[i].CompletionTime.Before(now) {
		return module.SDKError(module.CodeInvalidRequest, "unbonding delegation is already processed")
	}
	return nil
}

// codeSDKNotFound is the SDK's ErrNotFound (codespace sdk).
const codeSDKNotFound uint32 = 38

// findEntry is the first entry created at height.
func findEntry(es []UBDEntry, height int64) int {
	for i, e := range es {
		if e.CreationHeight == height {
			return i
		}
	}
	return -1
}

// CancelUnbonding delegates amount of the entry created at height back to
// op (SDK CancelUnbondingDelegation).
func (k *Keeper) CancelUnbonding(st module.State, del, op common.Address, amount *big.Int, height int64, now time.Time) error {
	if err := k.CheckCancelUnbonding(st, del, op, amount, height, now); err != nil {
		return err
	}
	v, _ := Get(st, op)
	if _, err := k.delegate(st, del, v, amount, Unbonded, false); err != nil {
		return err
	}
	es := UnbondingEntries(st, del, op)
	i := findEntry(es, height)
	left := new(big.Int).Sub(es[i].Balance, amount)
	if left.Sign() == 0 {
		es = append(es[:i], es[i+1:]...)
	} else {
		es[i].Balance = left
		es[i].InitialBalance = new(big.Int).Sub(es[i].InitialBalance, amount)
	}
	setUnbondingEntries(st, del, op, es)
	return nil
}

// slashUnbonding cuts the entries of del from op created at or after
// infraction that have not matured by fraction of their initial balance
// (capped at their balance), burns the cut and returns the total cut
// asked for (SDK SlashUnbondingDelegation).
func slashUnbonding(st module.State, del, op common.Address, infraction int64, fraction dec.Dec, now time.Time) (asked, burned *big.Int) {
	asked, burned = new(big.Int), new(big.Int)
	es := UnbondingEntries(st, del, op)
	for i, e := range es {
		if e.CreationHeight < infraction || !e.CompletionTime.After(now) {
			continue
		}
		cut := fraction.MulInt(e.InitialBalance).TruncateInt()
		asked.Add(asked, cut)
		if e.Balance.Cmp(cut) < 0 {
			cut = new(big.Int).Set(e.Balance)
		}
		es[i].Balance = new(big.Int).Sub(e.Balance, cut)
		burned.Add(burned, cut)
	}
	setUnbondingEntries(st, del, op, es)
	return asked, burned
}
