package sqlstore

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/explorer"
)

func traceAddressText(a []int) string {
	var b strings.Builder
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

// internalTxs records a block's internal transactions: the rows, one
// address row per side, and the per-address counts, each as multi-row
// statements. A block without internal transactions costs nothing.
func (w *writer) internalTxs(b *explorer.IndexedBlock) error {
	if len(b.InternalTxs) == 0 {
		return nil
	}
	rows := make([][]any, 0, len(b.InternalTxs))
	var sides [][]any
	counts := map[common.Address]int64{}
	for i := range b.InternalTxs {
		t := &b.InternalTxs[i]
		var errText any
		if t.Error != "" {
			errText = t.Error
		}
		rows = append(rows, []any{
			int64(t.BlockNumber), t.TxIndex, t.Index, t.BlockIndex, key(t.TxHash[:]), int64(t.Time), t.Type,
			addrKey(t.From), optAddr(t.To), optAddr(t.Created), w.wei(t.Value), int64(min(t.Gas, 1<<63-1)),
			int64(min(t.GasUsed, 1<<63-1)), nonNil(t.Input), nonNil(t.Output), errText, traceAddressText(t.TraceAddress),
		})
		s := map[common.Address][2]int{t.From: {1, 0}}
		for _, to := range []*common.Address{t.To, t.Created} {
			if to != nil {
				v := s[*to]
				v[1] = 1
				s[*to] = v
			}
		}
		addrs := make([]common.Address, 0, len(s))
		for a := range s {
			addrs = append(addrs, a)
		}
		sort.Slice(addrs, func(i, j int) bool { return addrs[i].Cmp(addrs[j]) < 0 })
		for _, a := range addrs {
			sides = append(sides, []any{addrKey(a), int64(t.BlockNumber), t.TxIndex, t.Index, s[a][0], s[a][1]})
			counts[a]++
		}
	}
	if err := w.execRows(`INSERT INTO internal_txs (block_number, tx_index, idx, block_index, tx_hash, timestamp, type,
		from_addr, to_addr, created_contract, value, gas, gas_used, input, output, error, trace_address) VALUES `, rows, ``); err != nil {
		return err
	}
	if err := w.execRows(`INSERT INTO address_internal_txs (address, block_number, tx_index, idx, sent, received) VALUES `, sides, ``); err != nil {
		return err
	}
	addrs := make([]common.Address, 0, len(counts))
	for a := range counts {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i].Cmp(addrs[j]) < 0 })
	crows := make([][]any, len(addrs))
	for i, a := range addrs {
		crows[i] = []any{addrKey(a), counts[a]}
	}
	return w.execRows(`INSERT INTO address_internal_counts (address, count) VALUES `, crows,
		` ON CONFLICT (address) DO UPDATE SET count = address_internal_counts.count + excluded.count`)
}
