package staking

import (
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slots"
)

// The maturity queue is a list of buckets sorted by time (unix ns), each
// bucket holding the items that mature then: unbonding delegations,
// redelegations and unbonding validators, as the SDK's three time-keyed
// queues hold them. Block times never decrease, so a new time is almost
// always the tail (now + unbonding time); only a redelegation from an
// unbonding validator takes an earlier time, which is that validator's
// own bucket. BeginBlock pops the buckets whose time has come and pays
// only for them.

type itemKind byte

const (
	itemUBD       itemKind = 1
	itemRed       itemKind = 2
	itemValidator itemKind = 3
)

// queueItem is one pending maturity: a (delegator, validator) unbonding
// delegation, a (delegator, src, dst) redelegation or a validator.
type queueItem struct {
	Kind           itemKind
	Delegator, Val common.Address
	Dst            common.Address
}

func bucketSlot(t uint64) common.Hash { return slots.Map(slots.Word(t), slots.Word(slotQueue)) }

func itemsSlot(t uint64) common.Hash { return slots.Offset(bucketSlot(t), 1) }

func nanos(t time.Time) uint64 {
	if t.UnixNano() <= 0 {
		return 1 // the earliest key: 0 marks the empty queue
	}
	return uint64(t.UnixNano())
}

func appendItem(st module.State, t uint64, it queueItem) {
	items := itemsSlot(t)
	n := store.Uint(st, items)
	w := slots.AddrWord(it.Delegator)
	w[0] = byte(it.Kind)
	e := slots.Elem(items, n, 3)
	store.Set(st, e, w)
	store.Set(st, slots.Offset(e, 1), slots.AddrWord(it.Val))
	store.Set(st, slots.Offset(e, 2), slots.AddrWord(it.Dst))
	store.SetUint(st, items, n+1)
}

func next(st module.Reader, t uint64) uint64 { return store.Uint(st, bucketSlot(t)) }

// enqueue adds it to the bucket of time at.
func enqueue(st module.State, at time.Time, it queueItem) {
	t := nanos(at)
	head, tail := store.Uint(st, slots.Word(slotQueueHead)), store.Uint(st, slots.Word(slotQueueTail))
	switch {
	case head == 0:
		store.SetUint(st, slots.Word(slotQueueHead), t)
		store.SetUint(st, slots.Word(slotQueueTail), t)
	case t > tail:
		store.SetUint(st, bucketSlot(tail), t)
		store.SetUint(st, slots.Word(slotQueueTail), t)
	case store.Uint(st, itemsSlot(t)) > 0: // the bucket exists
	case t < head:
		store.SetUint(st, bucketSlot(t), head)
		store.SetUint(st, slots.Word(slotQueueHead), t)
	default: // between two buckets: find its predecessor
		cur := head
		for n := next(st, cur); n != 0 && n < t; n = next(st, cur) {
			cur = n
		}
		store.SetUint(st, bucketSlot(t), next(st, cur))
		store.SetUint(st, bucketSlot(cur), t)
	}
	appendItem(st, t, it)
}

// dequeueMature removes and returns the items of every bucket whose time
// is at or before now, in time order then insertion order.
func dequeueMature(st module.State, now time.Time) []queueItem {
	var out []queueItem
	head := store.Uint(st, slots.Word(slotQueueHead))
	for head != 0 && head <= nanos(now) {
		items := itemsSlot(head)
		n := store.Uint(st, items)
		for i := uint64(0); i < n; i++ {
			e := slots.Elem(items, i, 3)
			w := store.Get(st, e)
			out = append(out, queueItem{Kind: itemKind(w[0]), Delegator: slots.WordAddr(w), Val: slots.WordAddr(store.Get(st, slots.Offset(e, 1))), Dst: slots.WordAddr(store.Get(st, slots.Offset(e, 2)))})
			for k := uint64(0); k < 3; k++ {
				store.Set(st, slots.Offset(e, k), common.Hash{})
			}
		}
		store.Set(st, items, common.Hash{})
		nx := next(st, head)
		store.Set(st, bucketSlot(head), common.Hash{})
		head = nx
	}
	store.SetUint(st, slots.Word(slotQueueHead), head)
	if head == 0 {
		store.SetUint(st, slots.Word(slotQueueTail), 0)
	}
	return out
}
