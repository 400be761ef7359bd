package api

import (
	"encoding/json"
	"testing"
)

// TestKeysetPage checks the pager's cut: PageSize+1 rows give PageSize items
// and the position of the last one kept; PageSize rows or fewer give no
// next page; no rows give [] (never null).
func TestKeysetPage(t *testing.T) {
	rows := make([]int, PageSize+1)
	for i := range rows {
		rows[i] = 1000 - i
	}
	render := func(rows []int) ([]int, error) { return rows, nil }
	next := func(last *int, n uint64) any { return blockPosition{BlockNumber: uint64(*last), ItemsCount: n} }
	for _, c := range []struct {
		rows []int
		want string
	}{
		{rows, `"next_page_params":{"block_number":951,"items_count":150}}`},
		{rows[:PageSize], `"next_page_params":null}`},
		{nil, `{"items":[],"next_page_params":null}`},
	} {
		p, err := keysetPage(c.rows, 100, render, next)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != min(len(c.rows), PageSize) {
			t.Fatalf("%d items of %d rows", len(p.Items), len(c.rows))
		}
		b, _ := json.Marshal(p)
		if got := string(b); len(got) < len(c.want) || got[len(got)-len(c.want):] != c.want {
			t.Fatalf("got %s, want it to end with %s", got, c.want)
		}
	}
}
