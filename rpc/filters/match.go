package filters

import (
	"slices"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth/filters"

	"github.com/emberchain/ember/app"
)

// matchLog reports whether l satisfies the address and topic criteria.
func matchLog(l *types.Log, crit *filters.FilterCriteria) bool {
	if len(crit.Addresses) > 0 && !slices.Contains(crit.Addresses, l.Address) {
		return false
	}
	for i, ts := range crit.Topics {
		if len(ts) == 0 {
			continue
		}
		if i >= len(l.Topics) || !slices.Contains(ts, l.Topics[i]) {
			return false
		}
	}
	return true
}

// blockLogs are the logs of a committed block that match crit.
func blockLogs(b *app.CommittedBlock, crit *filters.FilterCriteria) []*types.Log {
	var out []*types.Log
	for _, r := range b.Receipts {
		for _, l := range r.Logs {
			if matchLog(l, crit) {
				out = append(out, l)
			}
		}
	}
	return out
}
