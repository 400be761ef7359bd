package store

import (
	"context"
	"math/rand"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// BenchmarkLogsByAddress reads every log of one of four addresses.
func BenchmarkLogsByAddress(b *testing.B) {
	t := &testing.T{}
	s := openTestStore(t)
	chainOfLogs(t, s, rand.New(rand.NewSource(3)), 2000, []common.Address{{1}, {2}, {3}, {4}}, []common.Hash{{0xa}, {0xb}})
	q := LogQuery{From: 0, To: 2000, Addresses: []common.Address{{1}}}
	logs, _ := s.Logs(context.Background(), q)
	b.ReportMetric(float64(len(logs)), "logs/op")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Logs(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}
