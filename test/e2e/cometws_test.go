package e2e

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/gorilla/websocket"
)

// cometWS is a client of CometBFT's JSON-RPC over WebSocket (/websocket)
// that sorts what arrives: answers by request id, event notifications by
// the query they carry.
type cometWS struct {
	t    *testing.T
	conn *websocket.Conn

	mu      sync.Mutex
	answers map[string]cometEnvelope // by id as JSON text
	events  map[string][]cometEvent  // by query
	changed chan struct{}            // closed and renewed on every message
	errs    []error
}

// cometEvent is one notification: result {query, data: {type, value}, events}.
type cometEvent struct {
	ID    string // the subscribe request's id, as JSON text
	Query string
	Type  string // data.type, e.g. tendermint/event/Tx
	Value json.RawMessage
	// Events are the notification's composite keys, e.g.
	// "ethereum_tx.ethereumTxHash" -> ["0x…"].
	Events map[string][]string
}

func dialCometWS(t *testing.T, n *Node) *cometWS {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws://"+n.CometRPC+"/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &cometWS{t: t, conn: conn, answers: map[string]cometEnvelope{}, events: map[string][]cometEvent{}, changed: make(chan struct{})}
	t.Cleanup(func() { conn.Close() })
	go c.read()
	return c
}

func (c *cometWS) read() {
	for {
		_, msg, err := c.conn.ReadMessage()
		if err != nil {
			return
		}
		var env cometEnvelope
		var res struct {
			Query string `json:"query"`
			Data  struct {
				Type  string          `json:"type"`
				Value json.RawMessage `json:"value"`
			} `json:"data"`
			Events map[string][]string `json:"events"`
		}
		c.mu.Lock()
		if err := json.Unmarshal(msg, &env); err != nil {
			c.errs = append(c.errs, fmt.Errorf("not JSON: %s", msg))
		} else if env.Error == nil && json.Unmarshal(env.Result, &res) == nil && res.Query != "" {
			c.events[res.Query] = append(c.events[res.Query], cometEvent{ID: string(env.ID), Query: res.Query, Type: res.Data.Type, Value: res.Data.Value, Events: res.Events})
		} else if _, seen := c.answers[string(env.ID)]; seen {
			c.errs = append(c.errs, fmt.Errorf("second answer to id %s: %s", env.ID, msg))
		} else {
			c.answers[string(env.ID)] = env
		}
		close(c.changed)
		c.changed = make(chan struct{})
		c.mu.Unlock()
	}
}

// call sends a request and waits for the answer with its id.
func (c *cometWS) call(id any, method string, params any) cometEnvelope {
	c.t.Helper()
	idJSON, _ := json.Marshal(id)
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	if err := c.conn.WriteJSON(req); err != nil {
		c.t.Fatal(err)
	}
	var env cometEnvelope
	c.waitFor(fmt.Sprintf("answer to %s %s", method, idJSON), func() bool {
		var ok bool
		env, ok = c.answers[string(idJSON)]
		return ok
	})
	return env
}

// ok sends a request that must succeed with an empty result ({}).
func (c *cometWS) ok(id any, method string, params any) {
	c.t.Helper()
	env := c.call(id, method, params)
	if env.Error != nil || string(env.Result) != "{}" {
		c.t.Fatalf("%s %v: result %s error %+v", method, params, env.Result, env.Error)
	}
}

// waitFor waits up to 30 s until cond (called with the lock held) holds.
func (c *cometWS) waitFor(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		if len(c.errs) > 0 {
			errs := c.errs
			c.mu.Unlock()
			c.t.Fatal(errs)
		}
		done, changed := cond(), c.changed
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			c.t.Fatalf("WebSocket: no %s within 30s", what)
		}
	}
}

// got is a copy of the notifications of query so far.
func (c *cometWS) got(query string) []cometEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]cometEvent(nil), c.events[query]...)
}

// waitBlock waits for a NewBlock notification of height >= h on query (a
// NewBlock subscription of this connection). CometBFT publishes block h's NewBlock, then its Tx events; each
// subscription writes its own in order. Once NewBlock h+1 arrived (a block
// interval later), every Tx notification of blocks <= h has been written.
func (c *cometWS) waitBlock(query string, h uint64) {
	c.t.Helper()
	c.waitFor(fmt.Sprintf("NewBlock %d", h), func() bool {
		for _, ev := range c.events[query] {
			var v struct {
				Block struct {
					Header struct {
						Height string `json:"height"`
					} `json:"header"`
				} `json:"block"`
			}
			if json.Unmarshal(ev.Value, &v) != nil {
				continue
			}
			if got, err := strconv.ParseUint(v.Block.Header.Height, 10, 64); err == nil && got >= h {
				return true
			}
		}
		return false
	})
}

// checkCometWebSocket: subscribe with params as [query] and as {query}, with
// numeric and string ids; exactly one notification per matching tx on each
// subscription; unsubscribe and unsubscribe_all; the block and consensus
// events reachable; bad requests answered with errors.
func checkCometWebSocket(t *testing.T, nw *Network) {
	n := nw.Nodes[2]
	recipient := common.HexToAddress("0x00000000000000000000000000000000000C0B0B")
	txQuery := fmt.Sprintf("tm.event='Tx' AND ethereum.recipient='%s'", strings.ToLower(recipient.Hex()))
	const blockQuery = "tm.event='NewBlock'"

	a := dialCometWS(t, n) // params as an array, numeric ids
	a.ok(1, "subscribe", []any{txQuery})
	a.ok(2, "subscribe", []any{blockQuery})
	b := dialCometWS(t, n) // params by name, string ids
	b.ok("tx-sub", "subscribe", map[string]any{"query": txQuery})
	b.ok("block-sub", "subscribe", map[string]any{"query": blockQuery})

	// Three matching transfers in one batch (one or more blocks), and
	// around them transfers to other addresses from the same sender.
	other := common.HexToAddress("0x00000000000000000000000000000000000C0B0C")
	var batch []*types.Transaction
	nonce, err := n.Eth.PendingNonceAt(ctx(t), devKeys[3].Address)
	if err != nil {
		t.Fatal(err)
	}
	for i, to := range []common.Address{other, recipient, other, recipient, recipient, other} {
		batch = append(batch, n.signTx(t, devKeys[3].Private, txOpts{Nonce: ptr(nonce + uint64(i)), To: &to, Value: big.NewInt(int64(i + 1))}))
	}
	n.sendSigned(t, batch)
	var last uint64
	want := map[string]bool{}
	for _, tx := range batch {
		r := n.WaitReceipt(t, tx.Hash())
		last = max(last, r.BlockNumber.Uint64())
		if *tx.To() == recipient {
			want[tx.Hash().Hex()] = true
		}
	}
	checkTxNotifications := func(c *cometWS, id string, want map[string]bool) {
		t.Helper()
		c.waitBlock(blockQuery, last+1)
		got := c.got(txQuery)
		if len(got) != len(want) {
			t.Fatalf("%d Tx notifications, want exactly %d: %+v", len(got), len(want), got)
		}
		seen := map[string]bool{}
		for _, ev := range got {
			hashes := ev.Events["ethereum_tx.ethereumTxHash"]
			if ev.ID != id || ev.Type != "tendermint/event/Tx" || len(hashes) != 1 || !want[hashes[0]] || seen[hashes[0]] ||
				len(ev.Events["ethereum.recipient"]) != 1 || ev.Events["ethereum.recipient"][0] != strings.ToLower(recipient.Hex()) ||
				len(ev.Events["tm.event"]) != 1 || ev.Events["tm.event"][0] != "Tx" {
				t.Fatalf("notification %+v (want id %s, one of %v once)", ev, id, want)
			}
			seen[hashes[0]] = true
		}
	}
	checkTxNotifications(a, "1", want)
	checkTxNotifications(b, `"tx-sub"`, want)

	// b unsubscribes from the txs; a keeps them, then drops everything.
	b.ok("unsub", "unsubscribe", map[string]any{"query": txQuery})
	tx := n.send(t, devKeys[3].Private, txOpts{To: &recipient, Value: big.NewInt(9)})
	last = n.WaitReceipt(t, tx.Hash()).BlockNumber.Uint64()
	want[tx.Hash().Hex()] = true
	checkTxNotifications(a, "1", want)
	b.waitBlock(blockQuery, last+1)
	if got := b.got(txQuery); len(got) != 3 {
		t.Fatalf("after unsubscribe: %d Tx notifications, want still 3", len(got))
	}
	a.ok(3, "unsubscribe_all", []any{})
	if env := a.call(4, "unsubscribe", []any{txQuery}); env.Error == nil || !strings.Contains(env.Error.Data, "subscription not found") {
		t.Fatalf("unsubscribe after unsubscribe_all: %+v", env)
	}
	a.ok(5, "subscribe", []any{blockQuery}) // a marker to know when to stop waiting
	tx = n.send(t, devKeys[3].Private, txOpts{To: &recipient, Value: big.NewInt(10)})
	last = n.WaitReceipt(t, tx.Hash()).BlockNumber.Uint64()
	a.mu.Lock()
	a.events[blockQuery] = nil
	a.mu.Unlock()
	a.waitBlock(blockQuery, last+1)
	if got := a.got(txQuery); len(got) != 4 {
		t.Fatalf("after unsubscribe_all: %d Tx notifications, want still 4", len(got))
	}

	// Block and consensus events, five per connection (CometBFT's
	// max_subscriptions_per_client).
	c := dialCometWS(t, n)
	d := dialCometWS(t, n)
	kinds := []struct {
		conn     *cometWS
		event    string
		dataType string // data.type after tendermint/event/
	}{
		{c, "NewBlock", "NewBlock"}, {c, "NewBlockHeader", "NewBlockHeader"}, {c, "NewBlockEvents", "NewBlockEvents"},
		{c, "NewRound", "NewRound"}, {c, "NewRoundStep", "RoundState"},
		{d, "Vote", "Vote"}, {d, "CompleteProposal", "CompleteProposal"}, {d, "ValidBlock", "RoundState"}, {d, "Tx", "Tx"},
	}
	for i, k := range kinds {
		k.conn.ok(100+i, "subscribe", map[string]any{"query": "tm.event='" + k.event + "'"})
	}
	if env := c.call(200, "subscribe", []any{"tm.event='Lock'"}); env.Error == nil || !strings.Contains(env.Error.Data, "max_subscriptions_per_client 5 reached") {
		t.Fatalf("sixth subscription: %+v", env)
	}
	n.WaitReceipt(t, n.send(t, devKeys[3].Private, txOpts{To: &other, Value: big.NewInt(11)}).Hash())
	for i, k := range kinds {
		q := "tm.event='" + k.event + "'"
		k.conn.waitFor(k.event+" event", func() bool { return len(k.conn.events[q]) > 0 })
		ev := k.conn.got(q)[0]
		if ev.Type != "tendermint/event/"+k.dataType || ev.ID != jsonUint(uint64(100+i)) || len(ev.Events["tm.event"]) != 1 || ev.Events["tm.event"][0] != k.event {
			t.Fatalf("%s notification: %+v", k.event, ev)
		}
	}

	// Bad requests: errors, and the connection stays usable.
	for i, bad := range []struct {
		method string
		params any
		want   string
	}{
		{"subscribe", []any{"tm.event=="}, "failed to parse query"},
		{"subscribe", map[string]any{}, "query"},
		{"no_such_method", []any{}, "Method not found"},
	} {
		env := d.call(300+i, bad.method, bad.params)
		if env.Error == nil || !strings.Contains(env.Error.Message+" "+env.Error.Data, bad.want) {
			t.Errorf("%s %v: %+v, want an error with %q", bad.method, bad.params, env, bad.want)
		}
	}
	if err := d.conn.WriteMessage(websocket.TextMessage, []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	d.waitFor("parse error", func() bool { env, ok := d.answers[""]; return ok && env.Error != nil && env.Error.Code == -32700 })
	d.ok(400, "unsubscribe", map[string]any{"query": "tm.event='Tx'"})
}
