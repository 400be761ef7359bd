package staking

import (
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/module"
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

func bucketSlot(t uint64) common.Hash { return mapSlot(word(t), word(slotQueue)) }

func itemsSlot(t uint64) common.Hash { return offset(bucketSlot(t), 1) }

func nanos(t time.Time) uint64 {
	if t.UnixNano() <= 0 {
		return 1 // the earliest key: 0 marks the empty queue
	}
	return uint64(t.UnixNano())
}

func appendItem(st module.State, t uint64, it queueItem) {
	items := itemsSlot(t)
	n := getUint(st, items)
	w := addrWord(it.Delegator)
	w[0] = byte(it.Kind)
	e := elem(items, n, 3)
	set(st, e, w)
	set(st, offset(e, 1), addrWord(it.Val))
	set(st, offset(e, 2), addrWord(it.Dst))
	setUint(st, items, n+1)
}

func next(st module.Reader, t uint64) uint64 { return getUint(st, bucketSlot(t)) }

// enqueue adds it to the bucket of time at.
func enqueue(st module.State, at time.Time, it queueItem) {
	t := nanos(at)
	head, tail := getUint(st, word(slotQueueHead)), getUint(st, word(slotQueueTail))
	switch {
	case head == 0:
		setUint(st, word(slotQueueHead), t)
		setUint(st, word(slotQueueTail), t)
	case t > tail:
		setUint(st, bucketSlot(tail), t)
		setUint(st, word(slotQueueTail), t)
	case getUint(st, itemsSlot(t)) > 0: // the bucket exists
	case t < head:
		setUint(st, bucketSlot(t), head)
		setUint(st, word(slotQueueHead), t)
	default: // between two buckets: find its predecessor
		cur := head
		for n := next(st, cur); n != 0 && n < t; n = next(st, cur) {
			cur = n
		}
		setUint(st, bucketSlot(t), next(st, cur))
		setUint(st, bucketSlot(cur), t)
	}
	appendItem(st, t, it)
}

// dequeueMature removes and returns the items of every bucket whose time
// is at or before now, in time order then insertion order.
func dequeueMature(st module.State, now time.Time) []queueItem {
	var out []queueItem
	head := getUint(st, word(slotQueueHead))
	for head != 0 && head <= nanos(now) {
		items := itemsSlot(head)
		n := getUint(st, items)
		for i := uint64(0); i < n; i++ {
			e := elem(items, i, 3)
			w := get(st, e)
			out = append(out, queueItem{Kind: itemKind(w[0]), Delegator: wordAddr(w), Val: wordAddr(get(st, offset(e, 1))), Dst: wordAddr(get(st, offset(e, 2)))})
			for k := uint64(0); k < 3; k++ {
				set(st, offset(e, k), common.Hash{})
			}
		}
		set(st, items, common.Hash{})
		nx := next(st, head)
		set(st, bucketSlot(head), common.Hash{})
		head = nx
	}
	setUint(st, word(slotQueueHead), head)
	if head == 0 {
		setUint(st, word(slotQueueTail), 0)
	}
	return out
}
