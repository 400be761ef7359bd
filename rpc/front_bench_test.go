package rpc

import "testing"

// BenchmarkParseHead is the front's cost of reading wrk's request head.
func BenchmarkParseHead(b *testing.B) {
	head := []byte("POST / HTTP/1.1\r\nHost: 127.0.0.1:18545\r\nContent-Length: 120\r\nContent-Type: application/json\r\n") // as front cuts it: up to the last header line
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := parseHead(head, 1<<20, nil); !ok {
			b.Fatal("refused")
		}
	}
}
