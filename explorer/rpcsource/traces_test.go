package rpcsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/indexer"
)

// debugAPI answers debug_traceBlockByNumber with callTracer frames: none
// for the first transfer, a call with a nested create and a reverted
// static call for the second.
type debugAPI struct {
	c     *chain
	calls int
}

func (d *debugAPI) TraceBlockByNumber(n hexutil.Uint64, cfg map[string]any) ([]map[string]any, error) {
	d.calls++
	if cfg["tracer"] != "callTracer" {
		return nil, fmt.Errorf("tracer %v", cfg["tracer"])
	}
	txs := d.c.block.Transactions()
	top := func(i int, calls []any) map[string]any {
		f := map[string]any{"type": "CALL", "from": d.c.from, "to": txs[i].To(), "value": "0x1", "gas": "0x5208", "gasUsed": "0x5208", "input": "0x"}
		if calls != nil {
			f["calls"] = calls
		}
		return map[string]any{"txHash": txs[i].Hash(), "result": f}
	}
	inner := []any{
		map[string]any{"type": "CALL", "from": "0x0000000000000000000000000000000000000b0b", "to": "0x00000000000000000000000000000000000000c1",
			"value": "0x7", "gas": "0x100", "gasUsed": "0x80", "input": "0x01020304", "calls": []any{
				map[string]any{"type": "CREATE2", "from": "0x00000000000000000000000000000000000000c1", "to": "0x00000000000000000000000000000000000000c2",
					"value": "0x0", "gas": "0x50", "gasUsed": "0x40", "input": "0x60", "output": "0x6001"},
			}},
		map[string]any{"type": "STATICCALL", "from": "0x0000000000000000000000000000000000000b0b", "to": "0x00000000000000000000000000000000000000c1",
			"gas": "0x30", "gasUsed": "0x30", "input": "0x", "error": "execution reverted"},
	}
	return []map[string]any{top(0, nil), top(1, inner)}, nil
}

func serveWithDebug(t *testing.T, c *chain, d *debugAPI) *Source {
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", &fullAPI{ethAPI{c}}); err != nil {
		t.Fatal(err)
	}
	if d != nil {
		if err := srv.RegisterName("debug", d); err != nil {
			t.Fatal(err)
		}
	}
	s := newSource(rpc.DialInProc(srv), "inproc", false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { s.Close(); srv.Stop() })
	return s
}

func TestInternalCallsFromCallTracer(t *testing.T) {
	c := newChain(t)
	d := &debugAPI{c: c}
	s := serveWithDebug(t, c, d)
	sb, err := s.Block(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(sb.Internal) != 2 || len(sb.Internal[0]) != 0 || len(sb.Internal[1]) != 3 {
		t.Fatalf("internal calls: %+v", sb.Internal)
	}
	ib, err := indexer.Convert(sb)
	if err != nil {
		t.Fatal(err)
	}
	if len(ib.InternalTxs) != 3 {
		t.Fatalf("%d internal txs", len(ib.InternalTxs))
	}
	call, create, static := ib.InternalTxs[0], ib.InternalTxs[1], ib.InternalTxs[2]
	c1, c2 := common.HexToAddress("0xc1"), common.HexToAddress("0xc2")
	if call.Type != "call" || call.Index != 1 || call.TxIndex != 1 || call.BlockIndex != 0 || *call.To != c1 || call.Value.Int64() != 7 ||
		call.Gas != 0x100 || call.GasUsed != 0x80 || fmt.Sprint(call.TraceAddress) != "[0]" || call.TxHash != c.block.Transactions()[1].Hash() {
		t.Fatalf("call: %+v", call)
	}
	if create.Type != "create2" || create.To != nil || create.Created == nil || *create.Created != c2 || fmt.Sprint(create.TraceAddress) != "[0 0]" {
		t.Fatalf("create2: %+v", create)
	}
	if static.Type != "staticcall" || static.Success() || static.Error != "execution reverted" || static.Value.Sign() != 0 ||
		fmt.Sprint(static.TraceAddress) != "[1]" || static.Index != 3 {
		t.Fatalf("staticcall: %+v", static)
	}
	// The created contract is a contract of the block, and the call's
	// sides (value moved) are touched.
	if len(ib.Contract) != 1 || ib.Contract[0].Address != c2 || ib.Contract[0].Creator != c1 {
		t.Fatalf("contracts: %+v", ib.Contract)
	}
	touched := map[common.Address]bool{}
	for _, a := range ib.Touched {
		touched[a.Address] = true
	}
	if !touched[c1] || !touched[c2] || !touched[common.HexToAddress("0xb0b")] {
		t.Fatalf("touched: %+v", ib.Touched)
	}
}

func TestInternalCallsWithoutDebugNamespace(t *testing.T) {
	c := newChain(t)
	s := serveWithDebug(t, c, nil)
	for i := 0; i < 2; i++ {
		sb, err := s.Block(context.Background(), 1)
		if err != nil || sb.Internal != nil {
			t.Fatalf("block without tracing: %v, internal %v", err, sb.Internal)
		}
	}
	if !s.tracing.off || !s.tracing.logged {
		t.Fatal("missing debug namespace not remembered")
	}
	if _, err := s.CallTrace(context.Background(), c.block.Transactions()[0].Hash()); !errors.Is(err, explorer.ErrCannotTrace) {
		t.Fatalf("CallTrace without tracing: %v", err)
	}
	if _, err := s.StateAround(context.Background(), c.block.Transactions()[0].Hash(), nil); !errors.Is(err, explorer.ErrCannotTrace) {
		t.Fatalf("StateAround without tracing: %v", err)
	}
}
