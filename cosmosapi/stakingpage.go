package cosmosapi

import (
	"bytes"
	"sort"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	"github.com/ethereum/go-ethereum/common"
)

// defaultPageLimit is the SDK's default page size.
const defaultPageLimit = 100

// keyed is a list item with the key a page starts at (an address: the
// SDK's store keys order these lists by address too).
type keyed[T any] struct {
	key  common.Address
	item T
}

// paginate sorts items by key and cuts the page req asks for, as the SDK's
// query.Paginate does: by key or by offset (not both), limit 100 when 0,
// next_key when more items follow, total with count_total in offset mode.
func paginate[T any](items []keyed[T], req *queryv1beta1.PageRequest) ([]T, *queryv1beta1.PageResponse, error) {
	sort.SliceStable(items, func(i, j int) bool { return bytes.Compare(items[i].key[:], items[j].key[:]) < 0 })
	if req.GetReverse() {
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
	}
	if len(req.GetKey()) > 0 && req.GetOffset() > 0 {
		return nil, nil, invalid("invalid request, either offset or key is expected, got both")
	}
	limit := req.GetLimit()
	if limit == 0 {
		limit = defaultPageLimit
	}
	start := uint64(0)
	if k := req.GetKey(); len(k) > 0 {
		for start < uint64(len(items)) && before(items[start].key[:], k, req.GetReverse()) {
			start++
		}
	} else {
		start = min(req.GetOffset(), uint64(len(items)))
	}
	end := min(start+limit, uint64(len(items)))
	out := make([]T, 0, end-start)
	for _, it := range items[start:end] {
		out = append(out, it.item)
	}
	page := &queryv1beta1.PageResponse{}
	if end < uint64(len(items)) {
		page.NextKey = append([]byte{}, items[end].key[:]...)
	}
	if len(req.GetKey()) == 0 && (req == nil || req.GetCountTotal()) {
		page.Total = uint64(len(items))
	}
	return out, page, nil
}

// before tells whether key a comes before the page start k.
func before(a, k []byte, reverse bool) bool {
	if reverse {
		return bytes.Compare(a, k) > 0
	}
	return bytes.Compare(a, k) < 0
}
