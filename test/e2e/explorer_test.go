package e2e

import (
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/node/config"
)

// explorerBatch signs count transfers from key with consecutive nonces and
// submits them in one JSON-RPC batch, so that blocks hold many of them.
func (n *Node) explorerBatch(t *testing.T, key *accounts.Key, to common.Address, count int) []*types.Transaction {
	t.Helper()
	nonce, err := n.Eth.PendingNonceAt(ctx(t), key.Address)
	if err != nil {
		t.Fatal(err)
	}
	var txs []*types.Transaction
	var batch []rpc.BatchElem
	for i := 0; i < count; i++ {
		tx := n.signTx(t, key.Private, txOpts{Nonce: ptr(nonce + uint64(i)), To: &to, Value: big.NewInt(int64(1000 + i))})
		raw, _ := tx.MarshalBinary()
		txs = append(txs, tx)
		batch = append(batch, rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Bytes(raw)}, Result: new(common.Hash)})
	}
	n.mustBatch(t, batch)
	return txs
}

// waitAll waits for every receipt and returns the highest block.
func (n *Node) waitAll(t *testing.T, txs []*types.Transaction) (map[common.Hash]*types.Receipt, uint64) {
	out := map[common.Hash]*types.Receipt{}
	var last uint64
	for _, tx := range txs {
		r := n.WaitReceipt(t, tx.Hash())
		out[tx.Hash()] = r
		last = max(last, r.BlockNumber.Uint64())
	}
	return out, last
}

// chainTxCount counts the transactions of blocks 0..head through JSON-RPC.
func (n *Node) chainTxCount(t *testing.T, head uint64) int {
	total := 0
	for i := uint64(0); i <= head; i++ {
		c, err := n.Eth.TransactionCount(ctx(t), blockHash(t, n, i))
		if err != nil {
			t.Fatal(err)
		}
		total += int(c)
	}
	return total
}

func blockHash(t *testing.T, n *Node, number uint64) common.Hash {
	h, err := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(number))
	if err != nil {
		t.Fatal(err)
	}
	return h.Hash()
}

// TestExplorerAPI indexes transfers, a token deploy and a token transfer,
// then checks every served endpoint against the Blockscout schemas and the
// chain's own numbers.
func TestExplorerAPI(t *testing.T) {
	t.Parallel()
	testExplorerAPI(t)
}

// testExplorerAPI is TestExplorerAPI's body on the store that extra flags
// select (SQLite by default); explorer_pg_test.go runs it on PostgreSQL.
func testExplorerAPI(t *testing.T, extra ...string) {
	n := StartDev(t, append([]string{"--explorer.enable"}, extra...)...)
	s := loadBlockscoutSchemas(t)

	sender, other := devKeys[3], devKeys[1]
	recipient := common.BytesToAddress(crypto.Keccak256([]byte("explorer-recipient"))[:20])
	txs := n.explorerBatch(t, sender, recipient, 60)
	txs = append(txs, n.send(t, other.Private, txOpts{To: &recipient, Value: ether(1)}))
	token := contracts.MustLoad("EmberToken")
	ctorArgs, _ := token.ABI.Pack("", big.NewInt(1_000_000))
	deploy := n.send(t, devKeys[2].Private, txOpts{Gas: 3_000_000, Data: append(append([]byte{}, token.Bytecode...), ctorArgs...)})
	receipts, _ := n.waitAll(t, append(txs, deploy))
	tokenAddr := receipts[deploy.Hash()].ContractAddress
	input, _ := token.ABI.Pack("transfer", recipient, big.NewInt(5))
	call := n.send(t, devKeys[2].Private, txOpts{To: &tokenAddr, Gas: 200_000, Data: input})
	txs = append(txs, deploy, call)
	receipts, last := n.waitAll(t, txs)
	n.waitIndexed(t, last)

	t.Run("blocks", func(t *testing.T) { checkExplorerBlocks(t, n, s, last) })
	t.Run("transactions", func(t *testing.T) { checkExplorerTxs(t, n, s, txs, receipts, last) })
	t.Run("addresses", func(t *testing.T) { checkExplorerAddresses(t, n, s, sender.Address, recipient, last) })
	t.Run("logs", func(t *testing.T) { checkExplorerLogs(t, n, s, call.Hash(), receipts[call.Hash()], tokenAddr) })
	t.Run("search", func(t *testing.T) { checkExplorerSearch(t, n, s, recipient, call.Hash(), last) })
	t.Run("stats", func(t *testing.T) { checkExplorerStats(t, n, s, last) })
	t.Run("errors", func(t *testing.T) { checkExplorerErrors(t, n) })
}

func checkExplorerBlocks(t *testing.T, n *Node, s *blockscoutSchemas, last uint64) {
	header, err := n.Eth.HeaderByNumber(ctx(t), new(big.Int).SetUint64(last))
	if err != nil {
		t.Fatal(err)
	}
	var b map[string]any
	n.explorerJSON(t, s, "Block", fmt.Sprintf("/api/v2/blocks/%d", last), &b)
	var byHash map[string]any
	n.explorerJSON(t, s, "Block", "/api/v2/blocks/"+header.Hash().Hex(), &byHash)
	if b["hash"] != header.Hash().Hex() || byHash["height"] != float64(last) ||
		b["gas_used"] != fmt.Sprint(header.GasUsed) || b["miner"].(map[string]any)["hash"] != header.Coinbase.Hex() {
		t.Fatalf("block %d = %v, header %+v", last, b, header)
	}
	count, _ := n.Eth.TransactionCount(ctx(t), header.Hash())
	blockTxs := n.followPages(t, s, "Transaction", fmt.Sprintf("/api/v2/blocks/%d/transactions", last))
	if len(blockTxs) != int(count) || b["transactions_count"] != float64(count) {
		t.Fatalf("block %d: %d listed, %v counted, chain has %d", last, len(blockTxs), b["transactions_count"], count)
	}
	// Every block from the newest down to genesis, each once and in order.
	all := n.followPages(t, s, "Block", "/api/v2/blocks?type=block")
	top := uint64(all[0]["height"].(float64))
	if top < last || len(all) != int(top)+1 {
		t.Fatalf("blocks list: %d items from %d", len(all), top)
	}
	for i, item := range all {
		if uint64(item["height"].(float64)) != top-uint64(i) {
			t.Fatalf("blocks list item %d is block %v", i, item["height"])
		}
	}
	var main []map[string]any
	n.explorerJSON(t, s, "array:Block", "/api/v2/main-page/blocks", &main)
	if len(main) == 0 {
		t.Fatal("main-page blocks empty")
	}
}

func checkExplorerTxs(t *testing.T, n *Node, s *blockscoutSchemas, txs []*types.Transaction, receipts map[common.Hash]*types.Receipt, last uint64) {
	for _, tx := range []*types.Transaction{txs[0], txs[len(txs)-2], txs[len(txs)-1]} {
		r := receipts[tx.Hash()]
		var got map[string]any
		n.explorerJSON(t, s, "Transaction", "/api/v2/transactions/"+tx.Hash().Hex(), &got)
		fee := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
		if got["block_number"] != float64(r.BlockNumber.Uint64()) || got["position"] != float64(r.TransactionIndex) ||
			got["gas_used"] != fmt.Sprint(r.GasUsed) || got["fee"].(map[string]any)["value"] != fee.String() ||
			got["status"] != "ok" || got["value"] != tx.Value().String() || got["gas_price"] != r.EffectiveGasPrice.String() {
			t.Fatalf("tx %s = %v, receipt %+v", tx.Hash().Hex(), got, r)
		}
		if tx.To() == nil {
			if cc, _ := got["created_contract"].(map[string]any); cc == nil || cc["hash"] != r.ContractAddress.Hex() || cc["is_contract"] != true {
				t.Fatalf("deploy created_contract = %v, want %s", got["created_contract"], r.ContractAddress.Hex())
			}
		}
	}
	// Paging through all validated transactions reaches each chain tx once.
	all := n.followPages(t, s, "Transaction", "/api/v2/transactions?filter=validated")
	seen := map[string]int{}
	for _, item := range all {
		seen[item["hash"].(string)]++
	}
	for h, c := range seen {
		if c != 1 {
			t.Fatalf("tx %s listed %d times", h, c)
		}
	}
	for _, tx := range txs {
		if seen[tx.Hash().Hex()] != 1 {
			t.Fatalf("tx %s not listed", tx.Hash().Hex())
		}
	}
	head := uint64(all[0]["block_number"].(float64))
	if want := n.chainTxCount(t, max(head, last)); len(all) != want {
		t.Fatalf("%d txs listed, chain has %d", len(all), want)
	}
	var pending explorerPage
	n.explorerJSON(t, s, "page:Transaction", "/api/v2/transactions?filter=pending", &pending)
	var main []map[string]any
	n.explorerJSON(t, s, "array:Transaction", "/api/v2/main-page/transactions", &main)
	if len(main) == 0 {
		t.Fatal("main-page transactions empty")
	}
}

func checkExplorerAddresses(t *testing.T, n *Node, s *blockscoutSchemas, sender, recipient common.Address, last uint64) {
	for _, a := range []common.Address{sender, recipient} {
		var got map[string]any
		n.explorerJSON(t, s, "Address", "/api/v2/addresses/"+a.Hex(), &got)
		atBlock := uint64(got["block_number_balance_updated_at"].(float64))
		bal, err := n.Eth.BalanceAt(ctx(t), a, new(big.Int).SetUint64(atBlock))
		if err != nil {
			t.Fatal(err)
		}
		if got["hash"] != a.Hex() || got["coin_balance"] != bal.String() {
			t.Fatalf("address %s = %v, balance at %d is %s", a.Hex(), got, atBlock, bal)
		}
		// The balance history adds up to the balance, to the wei.
		hist := n.followPages(t, s, "CoinBalanceHistoryEntry", "/api/v2/addresses/"+a.Hex()+"/coin-balance-history")
		if len(hist) == 0 || hist[0]["value"] != bal.String() {
			t.Fatalf("coin balance history of %s: %v, want latest %s", a.Hex(), hist, bal)
		}
		sum := new(big.Int)
		for _, h := range hist {
			d, _ := new(big.Int).SetString(h["delta"].(string), 10)
			sum.Add(sum, d)
		}
		// Genesis funding is the first entry (block 0): from zero, the
		// deltas add up to the balance.
		if sum.Cmp(bal) != 0 {
			t.Fatalf("history deltas of %s sum to %s, balance %s", a.Hex(), sum, bal)
		}
	}
	var counters map[string]any
	n.explorerJSON(t, s, "AddressCounters", "/api/v2/addresses/"+sender.Hex()+"/counters", &counters)
	if counters["transactions_count"] != "60" || counters["gas_usage_count"] != fmt.Sprint(60*21000) {
		t.Fatalf("sender counters = %v", counters)
	}
	// 60 transfers: two pages, each tx once; filters split the sides.
	for path, want := range map[string]int{
		"/api/v2/addresses/" + sender.Hex() + "/transactions":                        60,
		"/api/v2/addresses/" + sender.Hex() + "/transactions?filter=from":            60,
		"/api/v2/addresses/" + sender.Hex() + "/transactions?filter=to":              0,
		"/api/v2/addresses/" + recipient.Hex() + "/transactions?filter=to":           61,
		"/api/v2/addresses/" + accounts.Bech32("ember", recipient) + "/transactions": 61,
	} {
		items := n.followPages(t, s, "Transaction", path)
		seen := map[string]bool{}
		for _, it := range items {
			if seen[it["hash"].(string)] {
				t.Fatalf("%s lists %s twice", path, it["hash"])
			}
			seen[it["hash"].(string)] = true
		}
		if len(items) != want {
			t.Fatalf("%s: %d items, want %d", path, len(items), want)
		}
	}
}

func checkExplorerLogs(t *testing.T, n *Node, s *blockscoutSchemas, hash common.Hash, r *types.Receipt, token common.Address) {
	logs := n.followPages(t, s, "Log", "/api/v2/transactions/"+hash.Hex()+"/logs")
	if len(logs) != len(r.Logs) || len(logs) == 0 {
		t.Fatalf("%d logs listed, receipt has %d", len(logs), len(r.Logs))
	}
	for i, l := range logs {
		want := r.Logs[i]
		topics := l["topics"].([]any)
		if l["index"] != float64(want.Index) || l["address"].(map[string]any)["hash"] != token.Hex() ||
			len(topics) != len(want.Topics) || topics[0] != want.Topics[0].Hex() || l["data"] != hexutil.Encode(want.Data) {
			t.Fatalf("log %d = %v, receipt log %+v", i, l, want)
		}
	}
}

func checkExplorerSearch(t *testing.T, n *Node, s *blockscoutSchemas, addr common.Address, tx common.Hash, last uint64) {
	blockHash := blockHash(t, n, last)
	cases := map[string][2]string{ // query -> type, parameter
		fmt.Sprint(last):               {"block", blockHash.Hex()},
		blockHash.Hex():                {"block", blockHash.Hex()},
		tx.Hex():                       {"transaction", tx.Hex()},
		strings.ToLower(addr.Hex()):    {"address", addr.Hex()},
		accounts.Bech32("ember", addr): {"address", addr.Hex()},
	}
	for q, want := range cases {
		var page explorerPage
		n.explorerJSON(t, s, "page:Search", "/api/v2/search?q="+q, &page)
		if len(page.Items) != 1 {
			t.Fatalf("search %s: %v", q, page.Items)
		}
		var red map[string]any
		n.explorerJSON(t, s, "SearchResultRedirect", "/api/v2/search/check-redirect?q="+q, &red)
		if red["redirect"] != true || red["type"] != want[0] || red["parameter"] != want[1] {
			t.Fatalf("check-redirect %s = %v, want %v", q, red, want)
		}
	}
	var red map[string]any
	n.explorerJSON(t, s, "SearchResultRedirect", "/api/v2/search/check-redirect?q=nothing", &red)
	if red["redirect"] != false {
		t.Fatalf("check-redirect of nothing = %v", red)
	}
}

func checkExplorerStats(t *testing.T, n *Node, s *blockscoutSchemas, last uint64) {
	var st map[string]any
	n.explorerJSON(t, s, "StatsResponse", "/api/v2/stats", &st)
	var status map[string]any
	n.explorerJSON(t, s, "IndexingStatus", "/api/v2/main-page/indexing-status", &status)
	var blocks explorerPage
	n.explorerJSON(t, s, "page:Block", "/api/v2/blocks", &blocks)
	top := uint64(blocks.Items[0]["height"].(float64))
	if st["total_blocks"] == "" || st["total_transactions"] == "0" {
		t.Fatalf("stats = %v", st)
	}
	want := n.chainTxCount(t, top)
	var total int
	fmt.Sscan(st["total_transactions"].(string), &total)
	if total < want {
		t.Fatalf("stats total_transactions %d, chain has %d up to %d", total, want, top)
	}
	status2, body := n.explorerGet(t, "/api/health")
	if status2 != http.StatusOK || !strings.Contains(string(body), `"healthy":true`) {
		t.Fatalf("health: %d %s", status2, body)
	}
}

func checkExplorerErrors(t *testing.T, n *Node) {
	missing := common.BytesToHash(crypto.Keccak256([]byte("missing"))).Hex()
	for path, want := range map[string]int{
		"/api/v2/transactions/0x12":       http.StatusUnprocessableEntity,
		"/api/v2/transactions/" + missing: http.StatusNotFound,
		"/api/v2/blocks/abc":              http.StatusUnprocessableEntity,
		"/api/v2/blocks/99999999":         http.StatusNotFound,
		"/api/v2/addresses/0xzz":          http.StatusUnprocessableEntity,
		"/api/v2/blocks?block_number=-1":  http.StatusUnprocessableEntity,
		"/api/v2/no-such-endpoint":        http.StatusNotFound,
	} {
		status, body := n.explorerGet(t, path)
		if status != want || !strings.Contains(string(body), `"message":`) {
			t.Fatalf("GET %s = %d %s, want %d with a message", path, status, body, want)
		}
		if want == http.StatusNotFound && string(body) != `{"message":"Not found"}` {
			t.Fatalf("GET %s = %s", path, body)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+n.Explorer+"/api/v2/stats", nil)
	req.Header.Set("Origin", "http://example.test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("no CORS header: %v", resp.Header)
	}
}

// TestExplorerRestart stops the node while the indexer is busy, restarts
// it with `start`, and checks the index caught up without counting a block
// twice.
func TestExplorerRestart(t *testing.T) {
	t.Parallel()
	testExplorerRestart(t, "")
}

// testExplorerRestart is TestExplorerRestart's body on the database db
// names ("" for SQLite in the node home).
func testExplorerRestart(t *testing.T, db string) {
	n := StartDev(t, "--explorer.enable", "--explorer.db", db)
	cfg, err := config.Load(n.Home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Explorer.Enable, cfg.Explorer.DB = true, db // `start` reads app.toml
	if err := config.Write(n.Home, cfg); err != nil {
		t.Fatal(err)
	}
	sender := devKeys[5]
	recipient := common.BytesToAddress(crypto.Keccak256([]byte("explorer-restart"))[:20])
	first := n.explorerBatch(t, sender, recipient, 40)
	n.waitAll(t, first[len(first)-1:])
	n.Stop()
	n.Start("start")
	second := n.explorerBatch(t, sender, recipient, 30)
	_, last := n.waitAll(t, append(first, second...))
	n.waitIndexed(t, last)

	var counters map[string]any
	n.explorerJSON(t, nil, "", "/api/v2/addresses/"+sender.Address.Hex()+"/counters", &counters)
	if counters["transactions_count"] != "70" || counters["gas_usage_count"] != fmt.Sprint(70*21000) {
		t.Fatalf("after restart sender counters = %v, want 70 txs", counters)
	}
	all := n.followPages(t, nil, "", "/api/v2/transactions")
	top := uint64(all[0]["block_number"].(float64))
	n.waitIndexed(t, top)
	var st map[string]any
	n.explorerJSON(t, nil, "", "/api/v2/stats", &st)
	if want := n.chainTxCount(t, top); len(all) != want || st["total_transactions"] != fmt.Sprint(want) {
		t.Fatalf("after restart: %d listed, stats %v, chain has %d", len(all), st["total_transactions"], want)
	}
	bal, _ := n.Eth.BalanceAt(ctx(t), recipient, nil)
	var addr map[string]any
	n.explorerJSON(t, nil, "", "/api/v2/addresses/"+recipient.Hex(), &addr)
	if addr["coin_balance"] != bal.String() {
		t.Fatalf("recipient balance %v, chain %s", addr["coin_balance"], bal)
	}
}
