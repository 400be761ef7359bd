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

// BenchmarkLogsSingleBlockAtScale reads one block's 100 logs from a store
// holding a million logs over 10,000 blocks.
func BenchmarkLogsSingleBlockAtScale(b *testing.B) {
	t := &testing.T{}
	s := openTestStore(t)
	fillDense(t, s, 10_000, 100)
	stat, _ := s.kv.Stat()
	b.Logf("filled; pebble:\n%s", stat)
	q := LogQuery{From: 20, To: 20}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		logs, err := s.Logs(context.Background(), q)
		if err != nil || len(logs) != 100 {
			b.Fatal(len(logs), err)
		}
	}
}
