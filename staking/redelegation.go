package staking

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// REDEntry is one entry of a redelegation.
type REDEntry struct {
	CreationHeight int64
	CompletionTime time.Time
	InitialBalance *big.Int
	SharesDst      dec.Dec
}

// Redelegation is the entries of one (delegator, src, dst) triple.
type Redelegation struct {
	Delegator, Src, Dst common.Address
	Entries             []REDEntry
}

func redSlot(del, src, dst common.Address) common.Hash {
	return slots.Map(slots.AddrWord(dst), mapSlot2(del, src, slotReds))
}

func incomingSlot(del, dst common.Address) common.Hash { return mapSlot2(del, dst, slotIncoming) }

// RedelegationEntries are the entries of del's redelegation from src to
// dst, oldest first.
func RedelegationEntries(st module.Reader, del, src, dst common.Address) []REDEntry {
	base := redSlot(del, src, dst)
	n := store.Uint(st, base)
	out := make([]REDEntry, 0, n)
	for i := uint64(0); i < n; i++ {
		e := slots.Elem(base, i, 4)
		out = append(out, REDEntry{
			CreationHeight: int64(store.Uint(st, e)), CompletionTime: wordTime(store.Get(st, slots.Offset(e, 1))),
			InitialBalance: store.Big(st, slots.Offset(e, 2)), SharesDst: store.Dec(st, slots.Offset(e, 3)),
		})
	}
	return out
}

// setRedelegationEntries rewrites the entries and keeps the indexes.
func setRedelegationEntries(st module.State, del, src, dst common.Address, es []REDEntry) {
	base := redSlot(del, src, dst)
	old := store.Uint(st, base)
	for i, x := range es {
		e := slots.Elem(base, uint64(i), 4)
		store.SetUint(st, e, uint64(x.CreationHeight))
		store.Set(st, slots.Offset(e, 1), timeWord(x.CompletionTime))
		store.SetBig(st, slots.Offset(e, 2), x.InitialBalance)
		store.SetDec(st, slots.Offset(e, 3), x.SharesDst)
	}
	for i := uint64(len(es)); i < old; i++ {
		for k := uint64(0); k < 4; k++ {
			store.Set(st, slots.Offset(slots.Elem(base, i, 4), k), common.Hash{})
		}
	}
	store.SetUint(st, base, uint64(len(es)))
	dsts := setOf2(slotRedDsts, del, src)
	in := incomingSlot(del, dst)
	switch {
	case old == 0 && len(es) > 0:
		dsts.Add(st, dst)
		store.SetUint(st, in, store.Uint(st, in)+1)
		setOf(slotRedDels, src).Add(st, del)
		setOf(slotRedSrcs, del).Add(st, src)
	case old > 0 && len(es) == 0:
		dsts.Remove(st, dst)
		store.SetUint(st, in, store.Uint(st, in)-1)
		if dsts.Len(st) == 0 {
			setOf(slotRedDels, src).Remove(st, del)
			setOf(slotRedSrcs, del).Remove(st, src)
		}
	}
}

// Redelegations lists del's redelegations (every source when src is the
// zero address, every destination when dst is), in index order.
func Redelegations(st module.Reader, del, src, dst common.Address) []Redelegation {
	srcs := []common.Address{src}
	if src == (common.Address{}) {
		srcs = setOf(slotRedSrcs, del).List(st)
	}
	var out []Redelegation
	for _, s := range srcs {
		dsts := []common.Address{dst}
		if dst == (common.Address{}) {
			dsts = setOf2(slotRedDsts, del, s).List(st)
		}
		for _, d := range dsts {
			if es := RedelegationEntries(st, del, s, d); len(es) > 0 {
				out = append(out, Redelegation{Delegator: del, Src: s, Dst: d, Entries: es})
			}
		}
	}
	return out
}

// RedelegationsFrom lists every redelegation from src.
func RedelegationsFrom(st module.Reader, src common.Address) []Redelegation {
	var out []Redelegation
	for _, del := range setOf(slotRedDels, src).List(st) {
		out = append(out, Redelegations(st, del, src, common.Address{})...)
	}
	return out
}

// hasReceivingRedelegation tells whether del has a redelegation to val
// in progress (SDK HasReceivingRedelegation).
func hasReceivingRedelegation(st module.Reader, del, val common.Address) bool {
	return store.Uint(st, incomingSlot(del, val)) > 0
}

// CheckRedelegate reports why del cannot move amount from src to dst now
// (the SDK's checks of MsgBeginRedelegate, in its order).
func (k *Keeper) CheckRedelegate(st module.Reader, del, src, dst common.Address, amount *big.Int) error {
	sv, ok := Get(st, src)
	if !ok {
		return Err(CodeNoValidator)
	}
	shares, err := sharesToUnbond(st, del, sv, amount)
	if err != nil {
		return err
	}
	if src == dst {
		return Err(CodeSelfRedelegation)
	}
	dv, ok := Get(st, dst)
	if !ok || !dv.HasOperator {
		return Err(CodeBadRedelegationDst)
	}
	if k.tombstoned(st, dv) {
		return Err(CodeValidatorJailed).WithDetail("validator is tombstoned")
	}
	if hasReceivingRedelegation(st, del, src) {
		return Err(CodeTransitiveRedelegation)
	}
	if uint64(len(RedelegationEntries(st, del, src, dst))) >= GetParams(st).MaxEntries {
		return Err(CodeMaxRedelegationEntries)
	}
	if sv.TokensFromShares(shares).TruncateInt().Sign() == 0 && !shares.Equal(sv.DelegatorShares) {
		return Err(CodeTinyRedelegation)
	}
	if dv.invalidExRate() {
		return Err(CodeDelegatorShareExRateZero)
	}
	if Power(new(big.Int).Add(dv.Tokens, amount)) >= MaxPower {
		return amountErr(ErrPowerTooHigh)
	}
	if dv.Jailed { // the tokens would leave the set
		return checkKeepsSet(st, sv, amount)
	}
	return nil
}

// Redelegate moves amount of del's delegation from src to dst (SDK
// BeginRedelegation) and returns the completion time: now + the unbonding
// time from a bonded source, the source's own unbonding time from an
// unbonding one, and now (no entry) from an unbonded one.
func (k *Keeper) Redelegate(st module.State, del, src, dst common.Address, amount *big.Int, height int64, now time.Time) (time.Time, error) {
	if err := k.CheckRedelegate(st, del, src, dst, amount); err != nil {
		return time.Time{}, err
	}
	sv, _ := Get(st, src)
	dv, _ := Get(st, dst)
	shares, _ := sharesToUnbond(st, del, sv, amount)
	srcStatus := sv.Status
	out, err := k.unbond(st, del, sv, shares)
	if err != nil {
		return time.Time{}, err
	}
	if out.Sign() == 0 {
		return time.Time{}, Err(CodeTinyRedelegation)
	}
	created, err := k.delegate(st, del, dv, out, srcStatus, false)
	if err != nil {
		return time.Time{}, err
	}
	var done time.Time
	switch srcStatus {
	case Bonded:
		done = now.Add(GetParams(st).UnbondingTime)
	case Unbonding:
		done, height = sv.UnbondingTime, sv.UnbondingHeight
	default:
		return now, nil
	}
	es := append(RedelegationEntries(st, del, src, dst), REDEntry{CreationHeight: height, CompletionTime: done, InitialBalance: out, SharesDst: created})
	setRedelegationEntries(st, del, src, dst, es)
	enqueue(st, done, queueItem{Kind: itemRed, Delegator: del, Val: src, Dst: dst})
	return done, nil
}

// completeRedelegation removes the mature entries of (del, src, dst) and
// returns the sum of their initial balances and whether any matured (SDK
// CompleteRedelegation).
func completeRedelegation(st module.State, del, src, dst common.Address, now time.Time) (*big.Int, bool) {
	total := new(big.Int)
	var keep []REDEntry
	for _, e := range RedelegationEntries(st, del, src, dst) {
		if e.CompletionTime.After(now) {
			keep = append(keep, e)
			continue
		}
		total.Add(total, e.InitialBalance)
	}
	n := len(RedelegationEntries(st, del, src, dst))
	setRedelegationEntries(st, del, src, dst, keep)
	return total, len(keep) < n
}
