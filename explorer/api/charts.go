package api

// chartDays is how many days /stats/charts/transactions covers, as
// Blockscout's default history.
const chartDays = 30

// txChart is /api/v2/stats/charts/transactions: the transactions of each
// UTC day, newest first, from today (counted so far) back chartDays days
// but not before the chain's first block; days without transactions count 0.
func (h *handlers) txChart(r *request) (any, error) {
	out := txChartJSON{ChartData: []txChartDay{}}
	genesis, err := h.b.Store.Block(r.Context(), 0)
	if err != nil {
		if ignoreNotFound(err) != nil {
			return nil, err
		}
		return out, nil // nothing indexed yet
	}
	today := h.b.Now().Unix() / day
	first := max(today-chartDays+1, int64(genesis.Time)/day)
	counts, err := h.b.Store.DailyTxCounts(r.Context(), first)
	if err != nil {
		return nil, err
	}
	for d := today; d >= first; d-- {
		out.ChartData = append(out.ChartData, txChartDay{Date: isoDate(d * day), TxCount: counts[d]})
	}
	return out, nil
}

// marketChart is /api/v2/stats/charts/market: no price source is
// configured, so the series is empty; the supply is the indexed total.
func (h *handlers) marketChart(r *request) (any, error) {
	supply, err := h.totalSupply(r.Context())
	if err != nil {
		return nil, err
	}
	return marketChart{AvailableSupply: coins(supply)}, nil
}
