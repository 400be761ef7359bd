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
	return statsJSON{
		AverageBlockTime:   st.AvgBlockMilli,
		GasPriceUpdatedAt:  pricedAt,
		GasPrices:          prices,
		GasUsedToday:       u64(st.GasUsedToday),
		NetworkUtilization: st.Utilization,
		TotalAddresses:     u64(st.Addresses),
		TotalBlocks:        u64(st.Blocks),
		TotalGasUsed:       u64(st.GasUsed),
		TotalTxs:           u64(st.Transactions),
		TxsToday:           u64(st.TxsToday),
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
	return indexingStatus{Finished: done, FinishedBlocks: done, BlocksRatio: ratio}, nil
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
		return serviceHealth{Status: servingStatus(check(h))}, nil
	}
	indexed, indexedOK, head, headOK := h.b.Status()
	out := healthJSON{Healthy: h.indexHealthy()}
	out.Status = servingStatus(out.Healthy)
	latest := &out.Metadata.LatestBlock
	if indexedOK {
		latest.DB.Number = ptr(fmt.Sprint(indexed))
		if b, err := h.b.Store.Block(r.Context(), indexed); err == nil {
			latest.DB.Timestamp = ptr(isoTime(b.Time))
		}
	}
	if headOK {
		latest.Node.Number = ptr(fmt.Sprint(head))
	}
	return out, nil
}
