package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// logFixture is a chain with two emitter contracts called by three senders,
// in batches so blocks hold several txs, and every log read from receipts.
type logFixture struct {
	a, b    common.Address
	callers []common.Address
	logs    []*types.Log // every log from the receipts, in chain order
	blocks  map[common.Hash]bool
	txs     []common.Hash
}

func buildLogFixture(t *testing.T, n *Node, rounds int) *logFixture {
	t.Helper()
	f := &logFixture{blocks: map[common.Hash]bool{}}
	deployA := n.send(t, devKeys[0].Private, txOpts{Gas: 300_000, Data: deployCode(emitterRuntime())})
	deployB := n.send(t, devKeys[1].Private, txOpts{Gas: 300_000, Data: deployCode(emitterRuntime())})
	f.a = n.WaitReceipt(t, deployA.Hash()).ContractAddress
	f.b = n.WaitReceipt(t, deployB.Hash()).ContractAddress
	f.txs = append(f.txs, deployA.Hash(), deployB.Hash())
	senders := devKeys[2:5]
	for _, k := range senders {
		f.callers = append(f.callers, k.Address)
	}
	var all []*types.Transaction
	for r := 0; r < rounds; r++ {
		var batch []*types.Transaction
		for i, k := range senders {
			nonce, _ := n.Eth.PendingNonceAt(ctx(t), k.Address)
			for j := 0; j < 2; j++ {
				to := f.a
				if (r+i+j)%3 == 0 {
					to = f.b
				}
				batch = append(batch, n.signTx(t, k.Private, txOpts{Nonce: ptr(nonce + uint64(j)), To: &to, Gas: 100_000, Data: word(uint64(1000*r + 10*i + j + 1))}))
			}
		}
		n.sendBatch(t, batch)
		all = append(all, batch...)
	}
	for _, tx := range all {
		f.txs = append(f.txs, tx.Hash())
		n.WaitReceipt(t, tx.Hash())
	}
	// Ground truth: the logs of every receipt of every block, in order.
	head, _ := n.Eth.BlockNumber(ctx(t))
	for num := uint64(0); num <= head; num++ {
		b, err := n.Eth.BlockByNumber(ctx(t), new(big.Int).SetUint64(num))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range b.Transactions() {
			r := n.WaitReceipt(t, tx.Hash())
			f.logs = append(f.logs, r.Logs...)
			if len(r.Logs) > 0 {
				f.blocks[b.Hash()] = true
			}
		}
	}
	return f
}

// sendBatch submits txs in one JSON-RPC batch.
func (n *Node) sendBatch(t *testing.T, txs []*types.Transaction) {
	t.Helper()
	batch := make([]rpc.BatchElem, len(txs))
	for i, tx := range txs {
		raw, _ := tx.MarshalBinary()
		batch[i] = rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(raw)}, Result: new(common.Hash)}
	}
	n.mustBatch(t, batch)
}

func (f *logFixture) want(from, to uint64, addrs []common.Address, topics [][]common.Hash) []*types.Log {
	out := []*types.Log{}
	for _, l := range f.logs {
		if l.BlockNumber < from || l.BlockNumber > to {
			continue
		}
		if len(addrs) > 0 && !contains(addrs, l.Address) {
			continue
		}
		ok := true
		for i, ts := range topics {
			if len(ts) > 0 && (i >= len(l.Topics) || !contains(ts, l.Topics[i])) {
				ok = false
			}
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func TestGetLogsExactSets(t *testing.T) {
	t.Parallel()
	// Sends answered at admission: the fixture batches sends into shared
	// blocks (answered once mined, as on anvil, each would have its own).
	n := StartDev(t, "--empty-block-interval", "0", "--json-rpc.dev-answer-mined=false")
	f := buildLogFixture(t, n, 4)
	head, _ := n.Eth.BlockNumber(ctx(t))
	shared := false
	for h := range f.blocks {
		b, _ := n.Eth.BlockByHash(ctx(t), h)
		shared = shared || len(b.Transactions()) > 1
	}
	if len(f.logs) != 4*3*2 || !shared {
		t.Fatalf("fixture: %d logs, want 24; multi-tx blocks: %v", len(f.logs), shared)
	}
	caller := func(i int) common.Hash { return common.BytesToHash(f.callers[i].Bytes()) }
	other := common.HexToHash("0xdead")
	addrSets := [][]common.Address{nil, {f.a}, {f.b}, {f.a, f.b}, {common.HexToAddress("0x01")}}
	topicSets := [][][]common.Hash{
		nil,
		{{setTopic}},
		{nil, {caller(0)}},
		{{setTopic}, {caller(1), caller(2)}},
		{{other}},
		{{setTopic, other}, nil},
		{nil, nil, {other}}, // a position past every log's topics
	}
	ranges := []struct {
		from, to any // nil = omitted
		lo, hi   uint64
	}{
		{nil, nil, head, head},
		{"earliest", "latest", 0, head},
		{"0x0", nil, 0, head},
		{hexutil.EncodeUint64(head / 2), hexutil.EncodeUint64(head - 1), head / 2, head - 1},
		{"safe", "finalized", head, head},
	}
	checked := 0
	for _, addrs := range addrSets {
		for _, topics := range topicSets {
			for _, r := range ranges {
				crit := map[string]any{}
				if addrs != nil {
					crit["address"] = addrs
				}
				if topics != nil {
					crit["topics"] = topics
				}
				if r.from != nil {
					crit["fromBlock"] = r.from
				}
				if r.to != nil {
					crit["toBlock"] = r.to
				}
				var got []*types.Log
				if err := n.RPC.Call(&got, "eth_getLogs", crit); err != nil {
					t.Fatalf("%v: %v", crit, err)
				}
				assertLogs(t, fmt.Sprint(crit), got, f.want(r.lo, r.hi, addrs, topics))
				checked++
			}
			for h := range f.blocks {
				var got []*types.Log
				crit := map[string]any{"blockHash": h, "address": addrs, "topics": topics}
				if err := n.RPC.Call(&got, "eth_getLogs", crit); err != nil {
					t.Fatalf("%v: %v", crit, err)
				}
				hd, _ := n.Eth.HeaderByHash(ctx(t), h)
				assertLogs(t, fmt.Sprint(crit), got, f.want(hd.Number.Uint64(), hd.Number.Uint64(), addrs, topics))
			}
		}
	}
	t.Logf("%d range queries and %d blockHash queries matched the receipts", checked, len(addrSets)*len(topicSets)*len(f.blocks))

	// Bad criteria are invalid params.
	for crit, want := range map[string]string{
		`{"blockHash":"` + f.logs[0].BlockHash.Hex() + `","fromBlock":"0x1"}`: "invalid argument 0: cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other",
		`{"fromBlock":"0x5","toBlock":"0x2"}`:                                 "invalid block range params",
		`{"topics":[[],[],[],[],[]]}`:                                         "invalid argument 0: exceed max topics",
	} {
		var got []*types.Log
		err := n.RPC.Call(&got, "eth_getLogs", json.RawMessage(crit))
		var ec rpc.Error
		if err == nil || err.Error() != want || !errors.As(err, &ec) || ec.ErrorCode() != -32602 {
			t.Errorf("eth_getLogs %s: %v, want %q", crit, err, want)
		}
	}
}

// assertLogs compares logs field by field, in order.
func assertLogs(t *testing.T, what string, got, want []*types.Log) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d logs, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: log %d = %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

func TestFilterChangesExactlyOnce(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	// Blocks come unasked right after the start (CometBFT's first one) and
	// right after a block of txs (the one that commits its state root): wait
	// for the chain to settle before reading the head on either side.
	n.waitSettled(t)
	var logID, blockID, pendingID string
	if err := n.RPC.Call(&logID, "eth_newFilter", map[string]any{"topics": [][]common.Hash{{setTopic}}}); err != nil {
		t.Fatal(err)
	}
	_ = n.RPC.Call(&blockID, "eth_newBlockFilter")
	_ = n.RPC.Call(&pendingID, "eth_newPendingTransactionFilter")
	start, _ := n.Eth.BlockNumber(ctx(t))

	var (
		gotLogs    []*types.Log
		gotBlocks  []common.Hash
		gotPending []common.Hash
	)
	poll := func() {
		var l []*types.Log
		var b, p []common.Hash
		for id, out := range map[string]any{logID: &l, blockID: &b, pendingID: &p} {
			if err := n.RPC.Call(out, "eth_getFilterChanges", id); err != nil {
				t.Fatal(err)
			}
		}
		gotLogs, gotBlocks, gotPending = append(gotLogs, l...), append(gotBlocks, b...), append(gotPending, p...)
	}
	f := buildLogFixtureWith(t, n, 3, poll)
	n.waitSettled(t)
	poll()
	end, _ := n.Eth.BlockNumber(ctx(t))

	// Logs: exactly the fixture's logs from blocks after the filter was made.
	assertLogs(t, "filter changes", gotLogs, f.want(start+1, end, nil, [][]common.Hash{{setTopic}}))
	// Blocks: every block after creation, once, in order.
	if len(gotBlocks) != int(end-start) {
		t.Fatalf("block filter: %d hashes for blocks %d..%d", len(gotBlocks), start+1, end)
	}
	for i, h := range gotBlocks {
		hd, _ := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(start+1+uint64(i)))
		if hd.Hash() != h {
			t.Fatalf("block filter entry %d = %s, want %s", i, h, hd.Hash())
		}
	}
	// Pending: every tx sent, once.
	sort.Slice(gotPending, func(i, j int) bool { return gotPending[i].Cmp(gotPending[j]) < 0 })
	want := append([]common.Hash(nil), f.txs...)
	sort.Slice(want, func(i, j int) bool { return want[i].Cmp(want[j]) < 0 })
	if !reflect.DeepEqual(gotPending, want) {
		t.Fatalf("pending filter: %d hashes, want the %d sent", len(gotPending), len(want))
	}
	// getFilterLogs: the whole range of the criteria; not for other filters.
	var all []*types.Log
	if err := n.RPC.Call(&all, "eth_getFilterLogs", logID); err != nil {
		t.Fatal(err)
	}
	assertLogs(t, "getFilterLogs", all, f.want(end, end, nil, [][]common.Hash{{setTopic}}))
	err := n.RPC.Call(&all, "eth_getFilterLogs", blockID)
	if wantErr := fmt.Sprintf("filter %s doesn't have a LogsSubscription type: got 3", blockID); err == nil || err.Error() != wantErr {
		t.Fatalf("getFilterLogs on a block filter: %v, want %q", err, wantErr)
	}
	var ok bool
	for i, want := range []bool{true, false} {
		if err := n.RPC.Call(&ok, "eth_uninstallFilter", logID); err != nil || ok != want {
			t.Fatalf("uninstall #%d = %v, %v", i, ok, err)
		}
	}
	if err := n.RPC.Call(&all, "eth_getFilterChanges", logID); err == nil || err.Error() != "filter not found" {
		t.Fatalf("changes of an uninstalled filter: %v", err)
	}
}

// buildLogFixtureWith is buildLogFixture with a poll between rounds.
func buildLogFixtureWith(t *testing.T, n *Node, rounds int, between func()) *logFixture {
	var f *logFixture
	for r := 0; r < rounds; r++ {
		part := buildLogFixture(t, n, 1)
		if f == nil {
			f = part
		} else {
			f.txs = append(f.txs, part.txs...)
			f.logs = part.logs // ground truth is re-read from the whole chain
		}
		between()
	}
	return f
}

func TestFilterCapsAndTimeout(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0", "--json-rpc.dev-answer-mined=false") // the fixture's batches share blocks

	buildLogFixture(t, n, 1)
	n.Stop()
	setAppConfig(t, n, map[string]string{"block-range-cap": "2", "logs-cap": "3", "filter-timeout": `"1s"`, "filter-cap": "2"})
	n.Start("start")

	var logs []*types.Log
	err := n.RPC.Call(&logs, "eth_getLogs", map[string]any{"fromBlock": "0x1", "toBlock": "0x4"})
	if err == nil || err.Error() != "exceed maximum block range 2" {
		t.Fatalf("range cap: %v", err)
	}
	head, _ := n.Eth.BlockNumber(ctx(t))
	err = n.RPC.Call(&logs, "eth_getLogs", map[string]any{"fromBlock": hexutil.EncodeUint64(head - 2), "toBlock": "latest", "topics": [][]common.Hash{{setTopic}}})
	if err == nil || err.Error() != "query returned more than 3 results" {
		t.Fatalf("logs cap: %v (%d logs)", err, len(logs))
	}
	var id1, id2, id3 string
	_ = n.RPC.Call(&id1, "eth_newBlockFilter")
	_ = n.RPC.Call(&id2, "eth_newBlockFilter")
	if err := n.RPC.Call(&id3, "eth_newBlockFilter"); err == nil || err.Error() != "error creating filter: max limit reached" {
		t.Fatalf("filter cap: %v", err)
	}
	// An idle filter's expiry is what is checked: sleep past it.
	time.Sleep(2500 * time.Millisecond)
	var hashes []common.Hash
	if err := n.RPC.Call(&hashes, "eth_getFilterChanges", id1); err == nil || err.Error() != "filter not found" {
		t.Fatalf("idle filter still there: %v", err)
	}
}

// setAppConfig rewrites keys of the [json-rpc] section of app.toml.
func setAppConfig(t *testing.T, n *Node, kv map[string]string) {
	t.Helper()
	path := n.Home + "/config/app.toml"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i, line := range lines {
		key, _, ok := strings.Cut(strings.TrimSpace(line), " =")
		if v, want := kv[key]; ok && want {
			lines[i] = "  " + key + " = " + v
		}
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
