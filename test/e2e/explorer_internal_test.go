package e2e

import (
	"fmt"
	"math/big"
	"net/http"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/contracts"
)

// The spec's InternalTransaction, StateChange and TokenInfo declare
// properties non-null that blockscout-fields.md (and the real backend)
// send as null: a call's created_contract, a creation's to, a success's
// error, a coin change's token and token_id, a token without a price.
func init() {
	for name, props := range map[string][]string{
		"InternalTransaction": {"created_contract", "to", "error"},
		"StateChange":         {"token", "token_id", "balance_before", "balance_after"},
		"TokenInfo":           {"circulating_market_cap", "icon_url", "exchange_rate", "name", "symbol", "decimals", "total_supply", "holders_count"},
	} {
		specNullable[name] = append(specNullable[name], props...)
	}
}

// TestExplorerInternalTxs: the Tracee call tree (CREATE with value,
// CREATE2, CALL, STATICCALL, DELEGATECALL, a caught revert, SELFDESTRUCT)
// run seven times, and a swap on SwapPool that forwards an ETH fee by an
// internal call and pays out an ERC-20: internal transactions (per tx, per
// address, all, paged), raw trace, state changes, balances and counters of
// the internal recipient, contracts created internally. Every response is
// validated against the spec and compared with debug_traceTransaction and
// the chain's balances.
func TestExplorerInternalTxs(t *testing.T) {
	t.Parallel()
	testExplorerInternalTxs(t)
}

func TestExplorerInternalTxsPostgres(t *testing.T) {
	t.Parallel()
	testExplorerInternalTxs(t, "--explorer.db", pgDSN(t))
}

type swapFixture struct {
	pool, token, feeTo, recipient common.Address
	sender                        common.Address
	tx                            *types.Transaction
	receipt                       *types.Receipt
	value, ethFee, out, tokenFee  *big.Int
	poolTokens                    *big.Int
}

func testExplorerInternalTxs(t *testing.T, extra ...string) {
	n := StartDev(t, append([]string{"--explorer.enable", "--empty-block-interval", "0"}, extra...)...)
	s := loadBlockscoutSchemas(t)
	f := buildTraceFixture(t, n)

	// Five more runs (distinct CREATE2 salts): 7 × 8 frames, two pages.
	nonce, _ := n.Eth.PendingNonceAt(ctx(t), f.sender)
	runs := n.signTxs(t, 5, func(i int) txOpts {
		in, _ := f.treeABI.ABI.Pack("run", big.NewInt(int64(20+i)))
		return txOpts{Nonce: ptr(nonce + uint64(i)), To: &f.tracee, Value: big.NewInt(10), Data: in, Gas: 1_000_000}
	})
	n.sendBatch(t, runs)
	for _, tx := range runs {
		if r := n.WaitReceipt(t, tx.Hash()); r.Status != 1 {
			t.Fatalf("run %s failed", tx.Hash().Hex())
		}
	}
	sw := buildSwapFixture(t, n)
	nft := buildNFTFixture(t, n)
	n.waitIndexed(t, nft.batch.BlockNumber.Uint64())

	t.Run("tx internal transactions", func(t *testing.T) { checkTxInternal(t, n, s, f) })
	t.Run("raw trace", func(t *testing.T) { checkRawTrace(t, n, s, f) })
	t.Run("lists", func(t *testing.T) { checkInternalLists(t, n, s, f, sw) })
	t.Run("internal value", func(t *testing.T) { checkInternalValue(t, n, s, sw) })
	t.Run("internal creations", func(t *testing.T) { checkInternalCreations(t, n, s, f) })
	t.Run("state changes", func(t *testing.T) { checkStateChanges(t, n, s, sw) })
	t.Run("nft state changes", func(t *testing.T) { checkNFTStateChanges(t, n, s, nft) })
	t.Run("errors", func(t *testing.T) { checkInternalErrors(t, n, f) })
}

type nftFixture struct {
	nft, multi, owner, recipient common.Address
	transfer, batch              *types.Receipt
}

// buildNFTFixture mints EmberNFT 1 and 2 to devKeys[5] and transfers 1 to a
// new address, then batch-mints EmberMultiToken ids 7 and 8 (5 and 6 units)
// to it.
func buildNFTFixture(t *testing.T, n *Node) *nftFixture {
	key := devKeys[5]
	fx := &nftFixture{owner: key.Address, recipient: common.BytesToAddress(crypto.Keccak256([]byte("nft-recipient"))[:20])}
	nftC, multiC := contracts.MustLoad("EmberNFT"), contracts.MustLoad("EmberMultiToken")
	deploy := func(c *contracts.Contract, args ...any) common.Address {
		enc, _ := c.ABI.Pack("", args...)
		r := n.WaitReceipt(t, n.send(t, key.Private, txOpts{Gas: 5_000_000, Data: append(append([]byte{}, c.Bytecode...), enc...)}).Hash())
		if r.Status != 1 {
			t.Fatalf("deploy %s failed", c.Name)
		}
		return r.ContractAddress
	}
	call := func(to common.Address, c *contracts.Contract, method string, args ...any) *types.Receipt {
		in, err := c.ABI.Pack(method, args...)
		if err != nil {
			t.Fatal(err)
		}
		r := n.WaitReceipt(t, n.send(t, key.Private, txOpts{To: &to, Gas: 500_000, Data: in}).Hash())
		if r.Status != 1 {
			t.Fatalf("%s failed", method)
		}
		return r
	}
	fx.nft = deploy(nftC)
	fx.multi = deploy(multiC, "ipfs://x/{id}")
	call(fx.nft, nftC, "mint", fx.owner)
	call(fx.nft, nftC, "mint", fx.owner)
	fx.transfer = call(fx.nft, nftC, "transferFrom", fx.owner, fx.recipient, big.NewInt(1))
	fx.batch = call(fx.multi, multiC, "mintBatch", fx.recipient, []*big.Int{big.NewInt(7), big.NewInt(8)}, []*big.Int{big.NewInt(5), big.NewInt(6)})
	return fx
}

// checkNFTStateChanges: an ERC-721 transfer lists each side's NFT change
// (direction and token id) with its token count before and after; an
// ERC-1155 batch mint one change per id.
func checkNFTStateChanges(t *testing.T, n *Node, s *blockscoutSchemas, fx *nftFixture) {
	var p explorerPage
	n.explorerJSON(t, s, "page:StateChange", "/api/v2/transactions/"+fx.transfer.TxHash.Hex()+"/state-changes", &p)
	var tokens []map[string]any
	for _, it := range p.Items {
		if it["type"] == "token" {
			tokens = append(tokens, it)
		}
	}
	if len(tokens) != 2 {
		t.Fatalf("ERC-721 transfer: %d token changes: %v", len(tokens), p.Items)
	}
	for _, it := range tokens {
		tok := it["token"].(map[string]any)
		if tok["type"] != "ERC-721" || tok["name"] != "Ember NFT" || tok["symbol"] != "EMBN" || tok["address_hash"] != fx.nft.Hex() {
			t.Fatalf("ERC-721 token info: %v", tok)
		}
		want := map[string][3]string{fx.owner.Hex(): {"2", "1", "from"}, fx.recipient.Hex(): {"0", "1", "to"}}[addrField(it["address"])]
		change, _ := it["change"].([]any)
		if it["balance_before"] != want[0] || it["balance_after"] != want[1] || len(change) != 1 ||
			mustJSON(change[0]) != `{"direction":"`+want[2]+`","total":{"token_id":"1"}}` {
			t.Fatalf("ERC-721 change of %v: %v (want %v)", it["address"], it, want)
		}
	}
	n.explorerJSON(t, s, "page:StateChange", "/api/v2/transactions/"+fx.batch.TxHash.Hex()+"/state-changes", &p)
	tokens = tokens[:0]
	for _, it := range p.Items {
		if it["type"] == "token" {
			tokens = append(tokens, it)
		}
	}
	if len(tokens) != 2 {
		t.Fatalf("ERC-1155 batch mint: %d token changes: %v", len(tokens), p.Items)
	}
	for i, it := range tokens {
		id, amount := fmt.Sprint(7+i), fmt.Sprint(5+i)
		tok := it["token"].(map[string]any)
		if addrField(it["address"]) != fx.recipient.Hex() || it["token_id"] != id || it["balance_before"] != "0" ||
			it["balance_after"] != amount || it["change"] != amount || tok["type"] != "ERC-1155" || tok["address_hash"] != fx.multi.Hex() {
			t.Fatalf("ERC-1155 change %d: %v", i, it)
		}
	}
}

// buildSwapFixture deploys PoolToken and SwapPool, funds the pool with
// tokens and swaps 1 ETH alone in its block.
func buildSwapFixture(t *testing.T, n *Node) *swapFixture {
	tokenC, poolC := contracts.MustLoad("PoolToken"), contracts.MustLoad("SwapPool")
	key := devKeys[2]
	sw := &swapFixture{
		sender:     key.Address,
		feeTo:      common.BytesToAddress(crypto.Keccak256([]byte("swap-fee-recipient"))[:20]),
		recipient:  common.BytesToAddress(crypto.Keccak256([]byte("swap-recipient"))[:20]),
		value:      ether(1),
		poolTokens: new(big.Int).Mul(ether(1), big.NewInt(100_000)),
	}
	args, _ := tokenC.ABI.Pack("", new(big.Int).Mul(ether(1), big.NewInt(1_000_000)))
	r := n.WaitReceipt(t, n.send(t, key.Private, txOpts{Gas: 3_000_000, Data: append(append([]byte{}, tokenC.Bytecode...), args...)}).Hash())
	sw.token = r.ContractAddress
	args, _ = poolC.ABI.Pack("", sw.token, sw.feeTo)
	r = n.WaitReceipt(t, n.send(t, key.Private, txOpts{Gas: 3_000_000, Data: append(append([]byte{}, poolC.Bytecode...), args...)}).Hash())
	sw.pool = r.ContractAddress
	in, _ := tokenC.ABI.Pack("transfer", sw.pool, sw.poolTokens)
	if r := n.WaitReceipt(t, n.send(t, key.Private, txOpts{To: &sw.token, Gas: 200_000, Data: in}).Hash()); r.Status != 1 {
		t.Fatal("funding the pool failed")
	}
	in, _ = poolC.ABI.Pack("swap", sw.recipient)
	sw.tx = n.send(t, key.Private, txOpts{To: &sw.pool, Value: sw.value, Gas: 300_000, Data: in})
	sw.receipt = n.WaitReceipt(t, sw.tx.Hash())
	if sw.receipt.Status != 1 {
		t.Fatal("swap failed")
	}
	block, err := n.Eth.BlockByNumber(ctx(t), sw.receipt.BlockNumber)
	if err != nil || len(block.Transactions()) != 1 {
		t.Fatalf("swap block: %v, %d txs", err, len(block.Transactions()))
	}
	sw.ethFee = new(big.Int).Div(sw.value, big.NewInt(100))
	gross := new(big.Int).Mul(sw.value, big.NewInt(1000))
	sw.tokenFee = new(big.Int).Div(new(big.Int).Mul(gross, big.NewInt(3)), big.NewInt(1000))
	sw.out = new(big.Int).Sub(gross, sw.tokenFee)
	return sw
}

// flatFrame is one callTracer frame below the top with its trace address.
type flatFrame struct {
	callFrame
	addr []int
	subs int
}

func flatten(top *callFrame) []flatFrame {
	var out []flatFrame
	var walk func(f *callFrame, addr []int)
	walk = func(f *callFrame, addr []int) {
		for i := range f.Calls {
			a := append(append([]int{}, addr...), i)
			out = append(out, flatFrame{callFrame: f.Calls[i], addr: a, subs: len(f.Calls[i].Calls)})
			walk(&f.Calls[i], a)
		}
	}
	walk(top, nil)
	return out
}

func (n *Node) callTrace(t *testing.T, hash common.Hash) *callFrame {
	var top callFrame
	n.trace(t, &top, "debug_traceTransaction", hash, map[string]any{"tracer": "callTracer"})
	return &top
}

func valueOf(f *callFrame) string {
	if f.Value == nil {
		return "0"
	}
	return f.Value.ToInt().String()
}

func addrField(v any) string {
	if v == nil {
		return ""
	}
	return v.(map[string]any)["hash"].(string)
}

func checkTxInternal(t *testing.T, n *Node, s *blockscoutSchemas, f *traceFixture) {
	top := n.callTrace(t, f.tx.Hash())
	want := flatten(top)
	if len(want) != 8 {
		t.Fatalf("callTracer shows %d frames below the top, want 8 (7 calls and the selfdestruct)", len(want))
	}
	items := n.followPages(t, s, "InternalTransaction", "/api/v2/transactions/"+f.tx.Hash().Hex()+"/internal-transactions")
	if len(items) != len(want) {
		t.Fatalf("%d internal transactions, callTracer has %d: %v", len(items), len(want), items)
	}
	created := 0
	for i, it := range items {
		w := want[i]
		typ := strings.ToLower(w.Type)
		if it["type"] != typ || int(it["index"].(float64)) != i+1 || it["transaction_hash"] != f.tx.Hash().Hex() ||
			uint64(it["block_number"].(float64)) != f.blockNum.Uint64() || addrField(it["from"]) != w.From.Hex() ||
			it["value"] != valueOf(&w.callFrame) || it["gas_limit"] != fmt.Sprint(uint64(w.Gas)) {
			t.Fatalf("internal tx %d = %v, callTracer frame %+v", i, it, w)
		}
		if typ == "create" || typ == "create2" {
			created++
			if it["to"] != nil || addrField(it["created_contract"]) != w.To.Hex() {
				t.Fatalf("internal tx %d: creation of %s shown as to=%v created=%v", i, w.To.Hex(), it["to"], it["created_contract"])
			}
		} else if addrField(it["to"]) != w.To.Hex() || it["created_contract"] != nil {
			t.Fatalf("internal tx %d: to=%v created=%v, want to %s", i, it["to"], it["created_contract"], w.To.Hex())
		}
		if w.Error != "" {
			if it["success"] != false || it["error"] != w.Error {
				t.Fatalf("internal tx %d: success=%v error=%v, callTracer error %q", i, it["success"], it["error"], w.Error)
			}
		} else if it["success"] != true || it["error"] != nil {
			t.Fatalf("internal tx %d: success=%v error=%v, callTracer has no error", i, it["success"], it["error"])
		}
	}
	if created != 2 {
		t.Fatalf("%d creations, want 2", created)
	}
	// The reverted frame is the STATICCALL of fail(), sixth in the tree.
	if items[5]["type"] != "staticcall" || items[5]["error"] != "execution reverted" || items[7]["type"] != "selfdestruct" {
		t.Fatalf("tree order: %v / %v", items[5], items[7])
	}
	// The block's: run(7)'s eight, then run(8)'s, counted on the block.
	num := f.blockNum.String()
	blockItems := n.followPages(t, s, "InternalTransaction", "/api/v2/blocks/"+num+"/internal-transactions")
	if len(blockItems) != 16 || blockItems[0]["transaction_hash"] != f.first.Hash().Hex() || blockItems[8]["transaction_hash"] != f.tx.Hash().Hex() ||
		blockItems[8]["index"].(float64) != 1 || blockItems[15]["index"].(float64) != 8 {
		t.Fatalf("block %s internal txs: %d, %v", num, len(blockItems), blockItems)
	}
	var blk map[string]any
	n.explorerJSON(t, s, "Block", "/api/v2/blocks/"+num, &blk)
	if blk["internal_transactions_count"] != float64(16) {
		t.Fatalf("block internal_transactions_count = %v", blk["internal_transactions_count"])
	}
	// The transaction page tells the caught revert.
	var tx map[string]any
	n.explorerJSON(t, s, "Transaction", "/api/v2/transactions/"+f.tx.Hash().Hex(), &tx)
	if tx["has_error_in_internal_transactions"] != true {
		t.Fatalf("has_error_in_internal_transactions = %v", tx["has_error_in_internal_transactions"])
	}
}

func checkRawTrace(t *testing.T, n *Node, s *blockscoutSchemas, f *traceFixture) {
	top := n.callTrace(t, f.tx.Hash())
	var items []map[string]any
	n.explorerJSON(t, s, "array:RawTrace", "/api/v2/transactions/"+f.tx.Hash().Hex()+"/raw-trace", &items)
	want := append([]flatFrame{{callFrame: *top, addr: []int{}, subs: len(top.Calls)}}, flatten(top)...)
	if len(items) != len(want) {
		t.Fatalf("raw trace has %d items, want %d", len(items), len(want))
	}
	for i, it := range items {
		w := want[i]
		if fmt.Sprint(it["traceAddress"]) != fmt.Sprint(intsToAny(w.addr)) || int(it["subtraces"].(float64)) != w.subs {
			t.Fatalf("raw trace %d: traceAddress %v subtraces %v, want %v %d", i, it["traceAddress"], it["subtraces"], w.addr, w.subs)
		}
		action := it["action"].(map[string]any)
		lower := func(a common.Address) string { return strings.ToLower(a.Hex()) }
		hexValue := "0x0"
		if w.Value != nil {
			hexValue = w.Value.String()
		}
		switch typ := strings.ToLower(w.Type); typ {
		case "create", "create2":
			result, _ := it["result"].(map[string]any)
			if it["type"] != "create" || action["from"] != lower(w.From) || action["value"] != hexValue ||
				action["init"] != w.Input.String() || result["address"] != lower(*w.To) || result["code"] != w.Output.String() ||
				result["gasUsed"] != w.GasUsed.String() {
				t.Fatalf("raw trace %d: %v, callTracer %+v", i, it, w.callFrame)
			}
		case "selfdestruct":
			if it["type"] != "selfdestruct" || action["address"] != lower(w.From) || action["refundAddress"] != lower(*w.To) ||
				action["balance"] != hexValue {
				t.Fatalf("raw trace %d: %v, callTracer %+v", i, it, w.callFrame)
			}
		default:
			if it["type"] != "call" || action["callType"] != typ || action["from"] != lower(w.From) || action["to"] != lower(*w.To) ||
				action["gas"] != w.Gas.String() || action["input"] != w.Input.String() || action["value"] != hexValue {
				t.Fatalf("raw trace %d: %v, callTracer %+v", i, it, w.callFrame)
			}
			if w.Error != "" {
				if it["error"] != w.Error || it["result"] != nil {
					t.Fatalf("raw trace %d: error %v result %v, callTracer error %q", i, it["error"], it["result"], w.Error)
				}
				continue
			}
			result := it["result"].(map[string]any)
			if result["gasUsed"] != w.GasUsed.String() || result["output"] != w.Output.String() {
				t.Fatalf("raw trace %d: result %v, callTracer %+v", i, result, w.callFrame)
			}
		}
	}
	if items[0]["type"] != "call" || int(items[0]["subtraces"].(float64)) != 7 || fmt.Sprint(items[8]["traceAddress"]) != "[6 0]" {
		t.Fatalf("raw trace shape: %v ... %v", items[0], items[8])
	}
}

func intsToAny(a []int) []any {
	out := make([]any, len(a))
	for i, v := range a {
		out[i] = float64(v)
	}
	return out
}

func checkInternalLists(t *testing.T, n *Node, s *blockscoutSchemas, f *traceFixture, sw *swapFixture) {
	// All: 7 Tracee runs × 8 + the swap's 3 (fee call, two token
	// transfers), newest first, over two pages, each once.
	runs := 7
	all := n.followPages(t, s, "InternalTransaction", "/api/v2/internal-transactions")
	if len(all) != runs*8+3 {
		t.Fatalf("%d internal transactions, want %d (%d runs)", len(all), runs*8+3, runs)
	}
	seen := map[string]bool{}
	for i, it := range all {
		k := fmt.Sprint(it["transaction_hash"], "/", it["index"])
		if seen[k] {
			t.Fatalf("%s listed twice", k)
		}
		seen[k] = true
		if i > 0 {
			prev := all[i-1]
			pb, b := prev["block_number"].(float64), it["block_number"].(float64)
			pt, ti := prev["transaction_index"].(float64), it["transaction_index"].(float64)
			if pb < b || (pb == b && (pt < ti || (pt == ti && prev["index"].(float64) <= it["index"].(float64)))) {
				t.Fatalf("not newest first at %d: %v then %v", i, prev, it)
			}
		}
	}
	if all[0]["transaction_hash"] != sw.tx.Hash().Hex() || all[0]["index"].(float64) != 3 {
		t.Fatalf("newest internal tx: %v", all[0])
	}
	// The Tracee contract: from of each creation and the top-level calls
	// (6 per run), to of the delegate call's none.
	childA := crypto.CreateAddress(f.tracee, 3) // run(8)'s first creation
	for path, want := range map[string]int{
		"/api/v2/addresses/" + f.tracee.Hex() + "/internal-transactions":             7 * 7, // every frame of a run but the selfdestruct
		"/api/v2/addresses/" + f.tracee.Hex() + "/internal-transactions?filter=from": 7 * 7,
		"/api/v2/addresses/" + f.tracee.Hex() + "/internal-transactions?filter=to":   0,
		"/api/v2/addresses/" + childA.Hex() + "/internal-transactions":               5, // created, set, fail, die, selfdestruct
		"/api/v2/addresses/" + childA.Hex() + "/internal-transactions?filter=from":   1,
		"/api/v2/addresses/" + childA.Hex() + "/internal-transactions?filter=to":     4,
		"/api/v2/addresses/" + f.sender.Hex() + "/internal-transactions?filter=to":   runs, // each run's selfdestruct refund
	} {
		items := n.followPages(t, s, "InternalTransaction", path)
		if len(items) != want {
			t.Fatalf("%s: %d items, want %d", path, len(items), want)
		}
	}
}

// checkInternalValue: the fee recipient only ever received value through
// the swap's internal call; its balance, history and counters say so.
func checkInternalValue(t *testing.T, n *Node, s *blockscoutSchemas, sw *swapFixture) {
	var a map[string]any
	n.explorerJSON(t, s, "Address", "/api/v2/addresses/"+sw.feeTo.Hex(), &a)
	bal, err := n.Eth.BalanceAt(ctx(t), sw.feeTo, nil)
	if err != nil || bal.Cmp(sw.ethFee) != 0 {
		t.Fatalf("fee recipient balance on chain %v (%v), want %s", bal, err, sw.ethFee)
	}
	if a["coin_balance"] != sw.ethFee.String() {
		t.Fatalf("fee recipient coin_balance %v, want %s", a["coin_balance"], sw.ethFee)
	}
	hist := n.followPages(t, s, "CoinBalanceHistoryEntry", "/api/v2/addresses/"+sw.feeTo.Hex()+"/coin-balance-history")
	if len(hist) != 1 || hist[0]["delta"] != sw.ethFee.String() || hist[0]["value"] != sw.ethFee.String() ||
		hist[0]["transaction_hash"] != sw.tx.Hash().Hex() || uint64(hist[0]["block_number"].(float64)) != sw.receipt.BlockNumber.Uint64() {
		t.Fatalf("fee recipient balance history: %v", hist)
	}
	items := n.followPages(t, s, "InternalTransaction", "/api/v2/addresses/"+sw.feeTo.Hex()+"/internal-transactions?filter=to")
	if len(items) != 1 || items[0]["value"] != sw.ethFee.String() || addrField(items[0]["from"]) != sw.pool.Hex() ||
		items[0]["type"] != "call" || items[0]["index"].(float64) != 1 {
		t.Fatalf("fee recipient internal txs: %v", items)
	}
	var tabs map[string]any
	n.explorerJSON(t, s, "", "/api/v2/addresses/"+sw.feeTo.Hex()+"/tabs-counters", &tabs)
	if tabs["internal_transactions_count"] != float64(1) || tabs["transactions_count"] != float64(0) ||
		tabs["token_transfers_count"] != float64(1) || tabs["token_balances_count"] != float64(1) { // the token fee
		t.Fatalf("fee recipient tabs counters: %v", tabs)
	}
	n.explorerJSON(t, s, "", "/api/v2/addresses/"+sw.pool.Hex()+"/tabs-counters", &tabs)
	// Txs: deploy, swap; token transfers: funding in, payout and fee out.
	if tabs["internal_transactions_count"] != float64(3) || tabs["transactions_count"] != float64(2) ||
		tabs["token_transfers_count"] != float64(3) || tabs["token_balances_count"] != float64(1) {
		t.Fatalf("pool tabs counters: %v", tabs)
	}
	// The pool's balance moved by the value in and the fee out, exactly.
	hist = n.followPages(t, s, "CoinBalanceHistoryEntry", "/api/v2/addresses/"+sw.pool.Hex()+"/coin-balance-history")
	if len(hist) != 1 || hist[0]["delta"] != new(big.Int).Sub(sw.value, sw.ethFee).String() {
		t.Fatalf("pool balance history: %v", hist)
	}
}

// checkInternalCreations: CREATE2's child of run(8), alive after the
// transaction, is a contract created by Tracee in that transaction.
func checkInternalCreations(t *testing.T, n *Node, s *blockscoutSchemas, f *traceFixture) {
	salt := common.BigToHash(big.NewInt(8))
	childB := crypto.CreateAddress2(f.tracee, salt, crypto.Keccak256(append(append([]byte{}, f.childABI.Bytecode...), word(9)...)))
	var a map[string]any
	n.explorerJSON(t, s, "Address", "/api/v2/addresses/"+childB.Hex(), &a)
	if a["is_contract"] != true || a["creator_address_hash"] != f.tracee.Hex() || a["creation_transaction_hash"] != f.tx.Hash().Hex() {
		t.Fatalf("child created by CREATE2: %v", a)
	}
}

func (n *Node) balanceAt(t *testing.T, a common.Address, block *big.Int) *big.Int {
	b, err := n.Eth.BalanceAt(ctx(t), a, block)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (n *Node) tokenBalanceAt(t *testing.T, token, holder common.Address, block *big.Int) *big.Int {
	in, _ := contracts.MustLoad("PoolToken").ABI.Pack("balanceOf", holder)
	out, err := n.Eth.CallContract(ctx(t), ethereum.CallMsg{To: &token, Data: in}, block)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// checkStateChanges: the swap, alone in its block, changes the coin
// balances of sender, pool, fee recipient and block's fee recipient and the
// token balances of pool, recipient and fee recipient; each before/after is
// the chain's balance at the previous block and at the swap's block.
func checkStateChanges(t *testing.T, n *Node, s *blockscoutSchemas, sw *swapFixture) {
	var p explorerPage
	n.explorerJSON(t, s, "page:StateChange", "/api/v2/transactions/"+sw.tx.Hash().Hex()+"/state-changes", &p)
	at := sw.receipt.BlockNumber
	before := new(big.Int).Sub(at, big.NewInt(1))
	header, err := n.Eth.HeaderByNumber(ctx(t), at)
	if err != nil {
		t.Fatal(err)
	}
	miner := header.Coinbase
	type key struct{ typ, addr string }
	got := map[key]map[string]any{}
	for _, it := range p.Items {
		k := key{it["type"].(string), addrField(it["address"])}
		if got[k] != nil {
			t.Fatalf("%v listed twice", k)
		}
		got[k] = it
	}
	coins := []common.Address{sw.sender, sw.pool, sw.feeTo, miner}
	tokens := []common.Address{sw.pool, sw.recipient, sw.feeTo}
	if len(p.Items) != len(coins)+len(tokens) {
		t.Fatalf("%d state changes, want %d: %v", len(p.Items), len(coins)+len(tokens), p.Items)
	}
	for _, a := range coins {
		it := got[key{"coin", a.Hex()}]
		b, aft := n.balanceAt(t, a, before), n.balanceAt(t, a, at)
		if it == nil || it["balance_before"] != b.String() || it["balance_after"] != aft.String() ||
			it["change"] != new(big.Int).Sub(aft, b).String() || it["is_miner"] != (a == miner) || it["token"] != nil {
			t.Fatalf("coin change of %s: %v, chain %s -> %s", a.Hex(), it, b, aft)
		}
	}
	fee := new(big.Int).Mul(new(big.Int).SetUint64(sw.receipt.GasUsed), sw.receipt.EffectiveGasPrice)
	if c := got[key{"coin", sw.sender.Hex()}]["change"]; c != new(big.Int).Neg(new(big.Int).Add(sw.value, fee)).String() {
		t.Fatalf("sender change %v, want -(value + fee %s)", c, fee)
	}
	if c := got[key{"coin", sw.feeTo.Hex()}]["change"]; c != sw.ethFee.String() {
		t.Fatalf("fee recipient change %v, want %s", c, sw.ethFee)
	}
	wantTokens := map[common.Address]*big.Int{sw.pool: new(big.Int).Neg(new(big.Int).Add(sw.out, sw.tokenFee)), sw.recipient: sw.out, sw.feeTo: sw.tokenFee}
	for _, a := range tokens {
		it := got[key{"token", a.Hex()}]
		b, aft := n.tokenBalanceAt(t, sw.token, a, before), n.tokenBalanceAt(t, sw.token, a, at)
		if it == nil || it["balance_before"] != b.String() || it["balance_after"] != aft.String() ||
			it["change"] != wantTokens[a].String() || new(big.Int).Sub(aft, b).Cmp(wantTokens[a]) != 0 {
			t.Fatalf("token change of %s: %v, chain %s -> %s, want change %s", a.Hex(), it, b, aft, wantTokens[a])
		}
		tok := it["token"].(map[string]any)
		if tok["address_hash"] != sw.token.Hex() || tok["type"] != "ERC-20" || tok["name"] != "Pool Token" ||
			tok["symbol"] != "POOL" || tok["decimals"] != "18" || tok["total_supply"] != new(big.Int).Mul(ether(1), big.NewInt(1_000_000)).String() {
			t.Fatalf("token info: %v", tok)
		}
	}
	// Order: coins first, then tokens.
	kinds := make([]string, len(p.Items))
	for i, it := range p.Items {
		kinds[i] = it["type"].(string)
	}
	if !sort.SliceIsSorted(kinds, func(i, j int) bool { return kinds[i] == "coin" && kinds[j] == "token" }) {
		t.Fatalf("state change order: %v", kinds)
	}
}

func checkInternalErrors(t *testing.T, n *Node, f *traceFixture) {
	unknown := common.HexToHash("0x1234").Hex()
	for path, want := range map[string]int{
		"/api/v2/transactions/0x12/internal-transactions":                                    http.StatusUnprocessableEntity,
		"/api/v2/transactions/" + unknown + "/internal-transactions":                         http.StatusNotFound,
		"/api/v2/transactions/" + unknown + "/raw-trace":                                     http.StatusNotFound,
		"/api/v2/transactions/" + unknown + "/state-changes":                                 http.StatusNotFound,
		"/api/v2/transactions/0xzz/raw-trace":                                                http.StatusUnprocessableEntity,
		"/api/v2/addresses/" + f.tracee.Hex() + "/internal-transactions?filter=sideways":     http.StatusUnprocessableEntity,
		"/api/v2/addresses/" + f.tracee.Hex() + "/internal-transactions?block_number=x":      http.StatusUnprocessableEntity,
		"/api/v2/addresses/" + f.tracee.Hex() + "/internal-transactions?index=1":             http.StatusUnprocessableEntity,
		"/api/v2/addresses/0x0000000000000000000000000000000000abcdef/internal-transactions": http.StatusNotFound,
		"/api/v2/addresses/nope/internal-transactions":                                       http.StatusUnprocessableEntity,
		"/api/v2/internal-transactions?block_number=-1":                                      http.StatusUnprocessableEntity,
	} {
		if status, body := n.explorerGet(t, path); status != want {
			t.Fatalf("GET %s: %d %s, want %d", path, status, body, want)
		}
	}
}

// TestExplorerRPCSourceInternalTxs runs `emberd explorer --rpc` (http,
// SQLite) against a dev node with the in-process explorer: the internal
// transactions it reads with debug_traceBlockByNumber, the raw traces and
// the swap's state changes it traces with debug_traceTransaction must be
// the JSON the node's explorer serves from the frames captured while the
// blocks executed.
func TestExplorerRPCSourceInternalTxs(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--explorer.enable", "--empty-block-interval", "0")
	f := buildTraceFixture(t, n)
	sw := buildSwapFixture(t, n)
	rx := startRPCExplorer(t, "http://"+n.HTTP, "--genesis", filepath.Join(n.Home, "config", "genesis.json"))
	head := n.settledHead(t, map[string]string{"rpc": rx})
	if head < sw.receipt.BlockNumber.Uint64() {
		t.Fatalf("head %d before the swap", head)
	}
	childA := crypto.CreateAddress(f.tracee, 3)
	paths := []string{"/api/v2/internal-transactions", "/api/v2/transactions/" + sw.tx.Hash().Hex() + "/state-changes"}
	for _, h := range []common.Hash{f.first.Hash(), f.tx.Hash(), sw.tx.Hash()} {
		paths = append(paths, "/api/v2/transactions/"+h.Hex()+"/internal-transactions", "/api/v2/transactions/"+h.Hex()+"/raw-trace",
			"/api/v2/transactions/"+h.Hex())
	}
	for _, a := range []common.Address{f.tracee, f.sender, childA, sw.pool, sw.feeTo, sw.recipient} {
		paths = append(paths, "/api/v2/addresses/"+a.Hex(), "/api/v2/addresses/"+a.Hex()+"/internal-transactions",
			"/api/v2/addresses/"+a.Hex()+"/internal-transactions?filter=to", "/api/v2/addresses/"+a.Hex()+"/tabs-counters",
			"/api/v2/addresses/"+a.Hex()+"/coin-balance-history")
	}
	for _, p := range paths {
		want, got := n.explorerGetJSON(t, n.Explorer, p), n.explorerGetJSON(t, rx, p)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("GET %s differs:\nin-process: %s\nrpc source: %s", p, mustJSON(want), mustJSON(got))
		}
	}
	// Not vacuous: the swap's state changes and the run's internal txs are there.
	var sc explorerPage
	n.explorerJSON(t, nil, "", "/api/v2/transactions/"+sw.tx.Hash().Hex()+"/state-changes", &sc)
	var itx explorerPage
	n.explorerJSON(t, nil, "", "/api/v2/transactions/"+f.tx.Hash().Hex()+"/internal-transactions", &itx)
	if len(sc.Items) != 7 || len(itx.Items) != 8 {
		t.Fatalf("%d state changes, %d internal txs", len(sc.Items), len(itx.Items))
	}
	t.Logf("%d responses identical up to block %d", len(paths), head)
}
