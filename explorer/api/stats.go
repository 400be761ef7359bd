package api

import (
	"fmt"
	"math/big"
)

func (h *handlers) stats(r *request) (any, error) {
	st, err := h.b.Store.Stats(r.Context(), h.b.Now().Unix())
	if err != nil {
		return nil, err
	}
	prices, pricedAt, err := h.gasPrices(r.Context(), st.AvgBlockMilli)
	if err != nil {
		return nil, err
	}
	return obj{
		"total_blocks":                   u64(st.Blocks),
		"total_addresses":                u64(st.Addresses),
		"total_transactions":             u64(st.Transactions),
		"average_block_time":             st.AvgBlockMilli,
		"coin_image":                     nil,
		"coin_price":                     nil, // no price source
		"coin_price_change_percentage":   nil,
		"total_gas_used":                 u64(st.GasUsed),
		"transactions_today":             u64(st.TxsToday),
		"gas_used_today":                 u64(st.GasUsedToday),
		"gas_prices":                     prices,
		"gas_price_updated_at":           pricedAt,
		"gas_prices_update_in":           0, // computed on each request
		"static_gas_price":               nil,
		"market_cap":                     nil,
		"network_utilization_percentage": st.Utilization,
		"tvl":                            nil,
	}, nil
}

// indexingStatus compares the indexed height with the chain head. Internal
// transactions are not indexed yet, so their ratio is null.
func (h *handlers) indexingStatus(*request) (any, error) {
	indexed, indexedOK, head, headOK := h.b.Status()
	ratio := "0.00"
	if indexedOK && headOK {
		r := new(big.Rat).SetFrac(new(big.Int).SetUint64(indexed+1), new(big.Int).SetUint64(head+1))
		if r.Cmp(big.NewRat(1, 1)) > 0 {
			r.SetInt64(1)
		}
		ratio = r.FloatString(2)
	}
	done := indexedOK && headOK && indexed >= head
	return obj{
		"finished_indexing":                   done,
		"finished_indexing_blocks":            done,
		"indexed_blocks_ratio":                ratio,
		"indexed_internal_transactions_ratio": nil,
	}, nil
}

// healthyLag is how many blocks the index may trail the chain and still
// count as healthy.
const healthyLag = 100

// indexHealthy reports whether the index keeps up with the chain.
func (h *handlers) indexHealthy() bool {
	indexed, indexedOK, head, headOK := h.b.Status()
	return indexedOK && headOK && head-min(head, indexed) <= healthyLag
}

// servingStatus is gRPC health's spelling of healthy.
func servingStatus(ok bool) string {
	if ok {
		return "SERVING"
	}
	return "NOT_SERVING"
}

// healthServices are the names /health?service= knows, as gRPC health
// checking does: "" is the whole server.
var healthServices = map[string]func(*handlers) bool{
	"":         (*handlers).indexHealthy,
	"explorer": (*handlers).indexHealthy,
	"indexer":  (*handlers).indexHealthy,
	"api":      func(*handlers) bool { return true }, // it is answering
}

// health is /api/health and /health. With ?service= it is the gRPC health
// check (v1HealthCheckResponse; an unknown service is NOT_FOUND). Without,
// it is that status plus Blockscout's own body (healthy, latest blocks), so
// clients of either shape read it.
func (h *handlers) health(r *request) (any, error) {
	q := r.URL.Query()
	if q.Has("service") {
		name := q.Get("service")
		check, ok := healthServices[name]
		if !ok {
			return nil, rpcNotFound(fmt.Sprintf("unknown service %q", name))
		}
		return obj{"status": servingStatus(check(h))}, nil
	}
	indexed, indexedOK, head, headOK := h.b.Status()
	db := obj{"number": nil, "timestamp": nil}
	if indexedOK {
		db["number"] = fmt.Sprint(indexed)
		if b, err := h.b.Store.Block(r.Context(), indexed); err == nil {
			db["timestamp"] = isoTime(b.Time)
		}
	}
	node := obj{"number": nil}
	if headOK {
		node["number"] = fmt.Sprint(head)
	}
	healthy := h.indexHealthy()
	return obj{"status": servingStatus(healthy), "healthy": healthy,
		"metadata": obj{"latest_block": obj{"db": db, "node": node}}}, nil
}
