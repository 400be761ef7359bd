package e2e

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// TestSubscriptionsSeeEveryHeadAndLog subscribes over WebSocket to newHeads,
// logs and newPendingTransactions while 100+ blocks are made, and checks
// that every head arrives once and in order with the hash eth_getBlock*
// reports, and every matching log and pending tx arrives exactly once.
func TestSubscriptionsSeeEveryHeadAndLog(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	ws := n.dialWS(t)
	c := context.Background()
	contract := n.WaitReceipt(t, n.send(t, devKeys[0].Private, txOpts{Gas: 300_000, Data: deployCode(emitterRuntime())}).Hash()).ContractAddress

	heads := make(chan *types.Header, 1000)
	logs := make(chan types.Log, 1000)
	pending := make(chan common.Hash, 1000)
	wsEth := ethclient.NewClient(ws)
	hs, err := wsEth.SubscribeNewHead(c, heads)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Unsubscribe()
	caller := devKeys[1]
	ls, err := ws.EthSubscribe(c, logs, "logs", map[string]any{"address": contract, "topics": [][]common.Hash{{setTopic}, {common.BytesToHash(caller.Address.Bytes())}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ls.Unsubscribe()
	ps, err := ws.EthSubscribe(c, pending, "newPendingTransactions")
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Unsubscribe()
	start, _ := n.Eth.BlockNumber(ctx(t))

	// 50 calls from the subscribed caller and 10 from another, one at a time:
	// each makes a block and an empty one that commits its state root.
	var sent []common.Hash
	var mine []*types.Receipt
	for i := 0; i < 60; i++ {
		key := caller
		if i%6 == 5 {
			key = devKeys[2]
		}
		tx := n.send(t, key.Private, txOpts{To: &contract, Gas: 100_000, Data: word(uint64(i + 1))})
		sent = append(sent, tx.Hash())
		r := n.WaitReceipt(t, tx.Hash())
		if key == caller {
			mine = append(mine, r)
		}
	}
	end, _ := n.Eth.BlockNumber(ctx(t))
	if end-start < 60 { // one block per tx at least: each waited for its receipt
		t.Fatalf("only %d blocks made", end-start)
	}

	// Heads: start+1 .. end, each once, in order, hashes as served. (A
	// block committed between subscribing and reading start is skipped.)
	for num := start + 1; num <= end; num++ {
		select {
		case h := <-heads:
			if h.Number.Uint64() <= start {
				num--
				continue
			}
			want, _ := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(num))
			if h.Number.Uint64() != num || h.Hash() != want.Hash() {
				t.Fatalf("head #%d: got block %v %s, want %s", num, h.Number, h.Hash(), want.Hash())
			}
		case err := <-hs.Err():
			t.Fatal(err)
		case <-time.After(10 * time.Second):
			t.Fatalf("head %d not notified", num)
		}
	}
	// Logs: exactly the subscribed caller's, in order, as in the receipts.
	for i, r := range mine {
		select {
		case l := <-logs:
			want := r.Logs[0]
			if l.TxHash != want.TxHash || l.Index != want.Index || l.BlockHash != want.BlockHash || l.BlockNumber != want.BlockNumber ||
				l.Address != contract || string(l.Data) != string(want.Data) || l.Removed {
				t.Fatalf("log %d: %+v, want %+v", i, l, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("log %d not notified", i)
		}
	}
	// Pending: every sent tx once.
	seen := map[common.Hash]int{}
	deadline := time.After(10 * time.Second)
	for len(seen) < len(sent) {
		select {
		case h := <-pending:
			seen[h]++
		case <-deadline:
			t.Fatalf("%d of %d pending txs notified", len(seen), len(sent))
		}
	}
	for _, h := range sent {
		if seen[h] != 1 {
			t.Fatalf("pending tx %s notified %d times", h, seen[h])
		}
	}
	// Nothing extra arrived: the quiet 200 ms is what is checked.
	time.Sleep(200 * time.Millisecond)
	if len(logs) != 0 || len(pending) != 0 {
		t.Fatalf("extra notifications: %d logs, %d pending", len(logs), len(pending))
	}
}

// TestSubscriptionOptions checks newHeads with includeTransactions and
// newPendingTransactions with full objects.
func TestSubscriptionOptions(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	ws := n.dialWS(t)
	c := context.Background()
	blocks := make(chan map[string]any, 100)
	txs := make(chan map[string]any, 100)
	if _, err := ws.EthSubscribe(c, blocks, "newHeads", map[string]any{"includeTransactions": true}); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.EthSubscribe(c, txs, "newPendingTransactions", true); err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x00000000000000000000000000000000000000ab")
	tx := n.send(t, devKeys[3].Private, txOpts{To: &to, Value: big.NewInt(99)})
	r := n.WaitReceipt(t, tx.Hash())

	select {
	case p := <-txs:
		if p["hash"] != tx.Hash().Hex() || p["value"] != "0x63" || p["blockHash"] != nil || p["from"] != strings.ToLower(devKeys[3].Address.Hex()) {
			t.Fatalf("pending tx object = %v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no pending tx notified")
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case b := <-blocks:
			if b["hash"] != r.BlockHash.Hex() {
				continue
			}
			list, _ := b["transactions"].([]any)
			if len(list) != 1 {
				t.Fatalf("block with the tx lists %v", b["transactions"])
			}
			obj, _ := list[0].(map[string]any)
			if obj["hash"] != tx.Hash().Hex() || obj["blockHash"] != r.BlockHash.Hex() || obj["transactionIndex"] != "0x0" {
				t.Fatalf("tx in block = %v", obj)
			}
			return
		case <-deadline:
			t.Fatal("block with the tx not notified")
		}
	}
}

// dialWS connects a JSON-RPC client over WebSocket, closed with the test.
func (n *Node) dialWS(t *testing.T) *rpc.Client {
	t.Helper()
	ws, err := rpc.Dial("ws://" + n.WS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Close)
	return ws
}
