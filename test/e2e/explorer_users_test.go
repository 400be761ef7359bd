package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/contracts"
)

// usersChain is what TestExplorerUsersWeb browses: a verified ERC-20 and a
// verified Tracee (a contract calling others), an approval naming the
// Tracee, a Tracee run (internal calls), and transfers to two holders.
type usersChain struct {
	a              *accounts.Key
	token, tracee  common.Address
	approve, run   *types.Receipt
	holder1        common.Address
	holder2        common.Address
	sent1, sent2   *big.Int
	supply         *big.Int
	lastTransfer   *types.Receipt
	firstOfA       *types.Receipt // a's first transaction (the token's deployment)
	traceeCreation *types.Receipt
	tipped         *types.Receipt // the last of three sends in one block tipping 1, 2 and 5 gwei
	twin           common.Address // another Tracee, unverified
}

func buildUsersChain(t *testing.T, n *Node) *usersChain {
	c := &usersChain{a: devKeys[6],
		holder1: common.BytesToAddress(crypto.Keccak256([]byte("users-holder-1"))[:20]),
		holder2: common.BytesToAddress(crypto.Keccak256([]byte("users-holder-2"))[:20]),
		sent1:   new(big.Int).Mul(big.NewInt(250_000), e18), // a quarter of the supply
		sent2:   new(big.Int).Mul(big.NewInt(125), big.NewInt(1e17)),
	}
	erc20 := contracts.MustLoad("EmberToken")
	c.supply = new(big.Int).Mul(big.NewInt(1_000_000), e18)
	data, _ := erc20.DeployData(c.supply)
	c.firstOfA = n.WaitReceipt(t, n.send(t, c.a.Private, txOpts{Gas: 5_000_000, Data: data}).Hash())
	c.token = c.firstOfA.ContractAddress

	tracee := contracts.MustLoad("Tracee")
	data, _ = tracee.DeployData()
	c.traceeCreation = n.WaitReceipt(t, n.send(t, devKeys[4].Private, txOpts{Gas: 3_000_000, Data: data}).Hash())
	c.tracee = c.traceeCreation.ContractAddress
	n.waitIndexed(t, c.traceeCreation.BlockNumber.Uint64())
	for _, v := range []struct {
		at common.Address
		c  *contracts.Contract
	}{{c.token, erc20}, {c.tracee, tracee}} {
		if status, body := n.verifyMultipart(t, v.at, artifactFiles(v.c)); status != 200 {
			t.Fatalf("verify %s: %d %s", v.c.Name, status, body)
		}
	}
	in, _ := tracee.ABI.Pack("run", big.NewInt(7))
	c.run = n.WaitReceipt(t, n.send(t, devKeys[4].Private, txOpts{To: &c.tracee, Value: big.NewInt(10), Data: in, Gas: 1_000_000}).Hash())
	if c.run.Status != 1 {
		t.Fatal("Tracee.run failed")
	}
	// One block of three sends tipping 1, 2 and 5 gwei: the gas tracker's
	// levels differ.
	var null any
	mustCall(t, n, &null, "evm_setAutomine", false)
	nonce, _ := n.Eth.PendingNonceAt(ctx(t), devKeys[4].Address)
	tips := []int64{1, 2, 5}
	sends := n.signTxs(t, len(tips), func(i int) txOpts {
		return txOpts{Nonce: ptr(nonce + uint64(i)), To: &c.holder2, Value: big.NewInt(1), Gas: 21000,
			Tip: big.NewInt(tips[i] * 1e9), FeeCap: big.NewInt(100e9)}
	})
	n.sendBatch(t, sends)
	mustCall(t, n, &null, "evm_mine")
	mustCall(t, n, &null, "evm_setAutomine", true)
	c.tipped = n.WaitReceipt(t, sends[2].Hash())
	c.twin = n.deploy(t, devKeys[4], tracee) // left unverified: the verify form's
	c.approve = n.call(t, c.a, c.token, erc20, "approve", c.tracee, big.NewInt(5))
	n.call(t, c.a, c.token, erc20, "transfer", c.holder1, c.sent1)
	c.lastTransfer = n.call(t, c.a, c.token, erc20, "transfer", c.holder2, c.sent2)
	n.waitIndexed(t, c.lastTransfer.BlockNumber.Uint64())
	return c
}

// waitText waits until sel's text is want (a status an async handler sets).
func waitText(t *testing.T, br *browser, sel, want string) {
	t.Helper()
	get(t, br, "wait for "+sel+" to read "+want, chromedp.Poll[bool](fmt.Sprintf(`(document.querySelector(%q) || {}).textContent === %q`, sel, want)))
}

// shortHash is lib.js's short(): the first 10 and last 6 characters.
func shortHash(s string) string { return s[:10] + "…" + s[len(s)-6:] }

// TestExplorerUsersWeb checks what Blockscout and Etherscan users expect
// of the pages (issue 35's remaining items), in headless Chromium, with
// exact texts and values.
func TestExplorerUsersWeb(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--explorer.enable")
	br := startBrowser(t)
	c := buildUsersChain(t, n)
	base := "http://" + n.Explorer
	t.Run("contract names", func(t *testing.T) { checkUsersNames(t, n, br, base, c) })
	t.Run("holdings", func(t *testing.T) { checkUsersHoldings(t, n, br, base, c) })
	t.Run("gas tracker", func(t *testing.T) { checkUsersGas(t, n, br, base, c) })
	t.Run("amounts", func(t *testing.T) { checkUsersAmounts(t, n, br, base, c) })
	t.Run("wallets", func(t *testing.T) { checkUsersWallets(t, n, br, base, c) })
	t.Run("phone", func(t *testing.T) { checkUsersPhone(t, br, base, c) })
	t.Run("verify methods", func(t *testing.T) { checkUsersVerifyForm(t, n, br, base, c) })
}

// checkUsersNames: verified contracts are named and badged where an
// address appears (To, decoded inputs, logs, the call tree, internal
// txs), and the address page's tabs count their items and mark each row
// IN or OUT.
func checkUsersNames(t *testing.T, n *Node, br *browser, base string, c *usersChain) {
	traceeLabel := "Tracee (" + shortHash(c.tracee.Hex()) + ")"
	tokenLabel := "EmberToken (" + shortHash(c.token.Hex()) + ")"

	br.open(t, base+"/tx/"+c.approve.TxHash.Hex())
	br.expect(t, `[data-field="to-name"]`, "EmberToken")
	if got := br.attrs(t, `[data-field="to"] [data-verified]`, "title"); len(got) != 1 || got[0] != "Verified contract" {
		t.Errorf("To's verified badge: %q", got)
	}
	// The decoded spender: a link to the Tracee's page, by its name.
	br.run(t, "named spender", chromedp.WaitVisible(chromedp.CSS(`[data-field="input"] [data-arg="spender"] [data-verified]`)))
	br.expect(t, `[data-field="input"] [data-arg="spender"] a[data-address]`, traceeLabel)
	if got := br.attrs(t, `[data-field="input"] [data-arg="spender"] a[data-address]`, "href"); got[0] != "/address/"+c.tracee.Hex() {
		t.Errorf("spender link %q", got[0])
	}
	// The Approval log: its emitter and its decoded spender named.
	br.run(t, "logs tab", chromedp.Click(chromedp.CSS("#tab-logs")))
	br.expect(t, `#panel-logs .method > div:first-child a[data-address]`, tokenLabel)
	br.run(t, "named log spender", chromedp.WaitVisible(chromedp.CSS(`#panel-logs [data-arg="spender"] [data-verified]`)))
	br.expect(t, `#panel-logs [data-arg="spender"] a[data-address]`, traceeLabel)
	br.noErrors(t, "approve tx")

	// The run's call tree: every frame the Tracee makes is from it, named.
	br.open(t, base+"/tx/"+c.run.TxHash.Hex())
	br.expect(t, `[data-field="to-name"]`, "Tracee")
	br.run(t, "internal tab", chromedp.Click(chromedp.CSS("#tab-internal-transactions")),
		chromedp.WaitVisible(chromedp.CSS(`#call-tree > li > .named-addr [data-verified]`)))
	froms := get(t, br, "call tree", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#call-tree > li > .named-addr:first-of-type a[data-address]")].map(a => a.textContent)`))
	// The raw trace spells addresses in lowercase: compared without case.
	if len(froms) != 1 || !strings.EqualFold(froms[0], shortHash(devKeys[4].Address.Hex())) {
		t.Errorf("top frame from %q, want the sender %s", froms, shortHash(devKeys[4].Address.Hex()))
	}
	sub := get(t, br, "sub-frames", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#call-tree > li > ul > li > .named-addr:first-of-type a[data-address]")].map(a => a.textContent)`))
	if len(sub) == 0 {
		t.Fatal("no sub-frames in the call tree")
	}
	for _, s := range sub {
		if !strings.EqualFold(s, traceeLabel) {
			t.Errorf("sub-frame from %q, want %q", s, traceeLabel)
		}
	}
	br.noErrors(t, "run tx")

	// The Tracee's page: internal txns counted on its tab, each from it
	// (OUT, named and badged in the list).
	var tabs struct {
		Internal  uint64 `json:"internal_transactions_count"`
		Txs       uint64 `json:"transactions_count"`
		Transfers uint64 `json:"token_transfers_count"`
		Balances  int    `json:"token_balances_count"`
	}
	_, body := n.explorerGet(t, "/api/v2/addresses/"+c.tracee.Hex()+"/tabs-counters")
	if err := json.Unmarshal(body, &tabs); err != nil {
		t.Fatal(err)
	}
	if tabs.Internal == 0 || tabs.Txs != 2 { // its creation and the run
		t.Fatalf("Tracee tabs-counters %s", body)
	}
	br.open(t, base+"/address/"+c.tracee.Hex())
	br.expect(t, `#tab-internal-txns [data-count]`, grouped(tabs.Internal))
	br.expect(t, `#tab-transactions [data-count]`, "2")
	br.run(t, "internal txns tab", chromedp.Click(chromedp.CSS("#tab-internal-txns")), chromedp.WaitVisible(chromedp.CSS("#panel-internal-txns tbody tr")))
	dirs := get(t, br, "directions", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#panel-internal-txns tbody tr")].map(r => r.querySelector("[data-direction]") ? r.querySelector("[data-direction]").textContent : "")`))
	fromTexts := get(t, br, "froms", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#panel-internal-txns tbody tr td:nth-child(4) a[data-address]")].map(a => a.textContent)`))
	if uint64(len(dirs)) != tabs.Internal {
		t.Errorf("%d internal rows, tab says %d", len(dirs), tabs.Internal)
	}
	for i := range dirs {
		if fromTexts[i] == traceeLabel && dirs[i] != "OUT" || fromTexts[i] != traceeLabel && dirs[i] != "IN" {
			t.Errorf("internal row %d from %q marked %q", i, fromTexts[i], dirs[i])
		}
	}
	br.noErrors(t, "tracee page")

	// The first holder's token transfers: one, IN.
	br.open(t, base+"/address/"+c.holder1.Hex())
	br.expect(t, `#tab-token-transfers [data-count]`, "1")
	br.expect(t, `#tab-tokens [data-count]`, "1")
	br.run(t, "transfers tab", chromedp.Click(chromedp.CSS("#tab-token-transfers")))
	br.expect(t, `#panel-token-transfers tbody tr [data-direction]`, "IN")
	// a's transactions: the deployment, the approval and two transfers, all OUT.
	br.open(t, base+"/address/"+c.a.Address.Hex())
	br.expect(t, `#tab-transactions [data-count]`, "4")
	dirs = get(t, br, "a's directions", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#panel-transactions tbody tr [data-direction]")].map(b => b.textContent)`))
	if strings.Join(dirs, ",") != "OUT,OUT,OUT,OUT" {
		t.Errorf("a's rows marked %v, want OUT ×4", dirs)
	}
	br.noErrors(t, "holder pages")
}

// checkUsersHoldings: an address's token balances dropdown, nonce, first
// and last seen; a token's holders with their share of the supply.
func checkUsersHoldings(t *testing.T, n *Node, br *browser, base string, c *usersChain) {
	var tok struct {
		Name   string `json:"name"`
		Symbol string `json:"symbol"`
	}
	_, body := n.explorerGet(t, "/api/v2/tokens/"+c.token.Hex())
	if err := json.Unmarshal(body, &tok); err != nil || tok.Symbol == "" {
		t.Fatalf("token %s: %v", body, err)
	}
	br.open(t, base+"/address/"+c.holder1.Hex())
	br.expect(t, `[data-field="token-dropdown"] summary`, "1 token")
	br.run(t, "open the dropdown", chromedp.Click(chromedp.CSS(`[data-field="token-dropdown"] summary`)))
	br.expect(t, `[data-field="token-dropdown"] li`, tok.Name+" ("+tok.Symbol+") 250,000 "+tok.Symbol)
	br.expect(t, `[data-field="nonce"]`, "0")

	// a: four transactions sent; a genesis account (seen at block 0),
	// last seen in its last transfer's block.
	nonce, err := n.Eth.NonceAt(ctx(t), c.a.Address, nil)
	if err != nil || nonce != 4 {
		t.Fatalf("a's nonce %d %v", nonce, err)
	}
	br.open(t, base+"/address/"+c.a.Address.Hex())
	br.expect(t, `[data-field="nonce"]`, "4")
	br.expect(t, `[data-field="first-seen"]`, "0")
	br.expect(t, `[data-field="last-seen"]`, c.lastTransfer.BlockNumber.String())
	br.expect(t, `[data-field="token-dropdown"] summary`, "1 token")
	br.run(t, "open a's dropdown", chromedp.Click(chromedp.CSS(`[data-field="token-dropdown"] summary`)))
	left := new(big.Int).Sub(c.supply, new(big.Int).Add(c.sent1, c.sent2))
	br.expect(t, `[data-field="token-dropdown"] [data-field="held"]`, units(left, 18)+" "+tok.Symbol)

	// The Tracee: created in one block, last reached by its run; its
	// nonce counts the contracts it created (EIP-161 starts it at 1).
	tn, err := n.Eth.NonceAt(ctx(t), c.tracee, nil)
	if err != nil || tn < 2 {
		t.Fatalf("Tracee's nonce %d %v", tn, err)
	}
	br.open(t, base+"/address/"+c.tracee.Hex())
	br.expect(t, `[data-field="nonce"]`, grouped(tn))
	br.expect(t, `[data-field="first-seen"]`, c.traceeCreation.BlockNumber.String())
	br.expect(t, `[data-field="last-seen"]`, c.run.BlockNumber.String())
	br.run(t, "no dropdown", chromedp.WaitNotPresent(chromedp.CSS(`[data-field="token-dropdown"]`)))

	// Holders, largest first: a (the rest), holder1 (a quarter), holder2.
	br.open(t, base+"/token/"+c.token.Hex())
	br.run(t, "holders tab", chromedp.Click(chromedp.CSS("#tab-holders")), chromedp.WaitVisible(chromedp.CSS("#panel-holders tbody tr")))
	shares := get(t, br, "shares", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#panel-holders [data-field="share"]')].map(e => e.textContent)`))
	// a: 749,987.5 of 1,000,000 = 74.99875% (cut to 74.9987%); holder2:
	// 12.5 of 1,000,000 = 0.00125% (cut to 0.0012%).
	if want := "74.9987%,25%,0.0012%"; strings.Join(shares, ",") != want {
		t.Errorf("holder shares %v, want %s", shares, want)
	}
	br.noErrors(t, "holdings")
}

// checkUsersGas: the gas tracker shows the next base fee and the slow,
// average and fast prices computed from eth_feeHistory at the block it
// names, as go-ethereum's client reads the same history.
func checkUsersGas(t *testing.T, n *Node, br *browser, base string, c *usersChain) {
	br.open(t, base+"/gas-tracker")
	at := br.attrs(t, "#gas-levels", "data-block")[0]
	block, ok := new(big.Int).SetString(at, 10)
	if !ok || block.Cmp(c.tipped.BlockNumber) < 0 {
		t.Fatalf("gas tracker at block %q, before the tipped block %v", at, c.tipped.BlockNumber)
	}
	fh, err := n.Eth.FeeHistory(ctx(t), 20, block, []float64{35, 60, 90})
	if err != nil {
		t.Fatal(err)
	}
	next := fh.BaseFee[len(fh.BaseFee)-1]
	sums := []*big.Int{new(big.Int), new(big.Int), new(big.Int)}
	busy := int64(0)
	for i, r := range fh.Reward {
		if fh.GasUsedRatio[i] == 0 {
			continue
		}
		busy++
		for j := range sums {
			sums[j].Add(sums[j], r[j])
		}
	}
	if busy == 0 {
		t.Fatal("no block with transactions in the fee history")
	}
	gweiText := func(wei *big.Int) string { return units(wei, 9) + " Gwei" }
	br.expect(t, `[data-field="base-fee"]`, gweiText(next))
	var prices []string
	for j, level := range []string{"slow", "average", "fast"} {
		tip := new(big.Int).Div(sums[j], big.NewInt(busy))
		br.expect(t, `[data-level="`+level+`"] [data-field="tip"]`, gweiText(tip))
		price := br.text(t, `[data-level="`+level+`"] [data-field="price"]`)
		if want := gweiText(new(big.Int).Add(next, tip)); price != want {
			t.Errorf("%s price %q, want %q", level, price, want)
		}
		prices = append(prices, price)
	}
	if prices[0] == prices[2] {
		t.Errorf("slow and fast both %s: the 1 and 5 gwei tips of block %v are not told apart", prices[0], c.tipped.BlockNumber)
	}
	br.expect(t, `header nav a[href="/gas-tracker"]`, "Gas")
	br.noErrors(t, "gas tracker")
}

// checkUsersAmounts: coin amounts read in EMBER, exactly, with the wei
// amount on hover (title) and in data-wei, on the tx page, its state
// changes and an address's balance changes.
func checkUsersAmounts(t *testing.T, n *Node, br *browser, base string, c *usersChain) {
	r := c.tipped
	fee := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
	weiText := func(v *big.Int) string { return units(v, 0) + " wei" }
	br.open(t, base+"/tx/"+r.TxHash.Hex())
	br.expect(t, `[data-field="value"]`, "0.000000000000000001 EMBER")
	for field, want := range map[string]*big.Int{"value": big.NewInt(1), "fee": fee, "gas-price": r.EffectiveGasPrice} {
		if got := br.attrs(t, `[data-field="`+field+`"] .amount`, "title"); len(got) != 1 || got[0] != weiText(want) {
			t.Errorf("%s hover %q, want %q", field, got, weiText(want))
		}
		if got := br.attrs(t, `[data-field="`+field+`"] .amount`, "data-wei"); got[0] != want.String() {
			t.Errorf("%s data-wei %q, want %s", field, got[0], want)
		}
	}
	br.expect(t, `[data-field="fee"]`, coinText(fee))
	br.expect(t, `[data-field="gas-price"]`, units(r.EffectiveGasPrice, 9)+" Gwei")

	// State changes: holder2's coin balance rose by 1 wei in this tx.
	br.run(t, "state changes tab", chromedp.Click(chromedp.CSS("#tab-state-changes")), chromedp.WaitVisible(chromedp.CSS("#panel-state-changes tbody tr")))
	row := get(t, br, "holder2's row", chromedp.Evaluate[[]string](`(() => {
		const tr = [...document.querySelectorAll("#panel-state-changes tbody tr")].find(r => r.querySelector('a[data-address="`+c.holder2.Hex()+`"]') && r.cells[1].textContent === "EMBER");
		return tr ? [...tr.cells].slice(2).map(td => td.textContent + "|" + (td.querySelector(".amount") ? td.querySelector(".amount").title : "")) : [];
	})()`))
	before, err := n.Eth.BalanceAt(ctx(t), c.holder2, new(big.Int).Sub(r.BlockNumber, big.NewInt(1)))
	if err != nil {
		t.Fatal(err)
	}
	// Three 1-wei sends share the block; this tx is the third: before it
	// the two others had landed.
	was, is := new(big.Int).Add(before, big.NewInt(2)), new(big.Int).Add(before, big.NewInt(3))
	want := []string{coinText(was) + "|" + weiText(was), coinText(is) + "|" + weiText(is), "0.000000000000000001 EMBER|1 wei"}
	if strings.Join(row, ",") != strings.Join(want, ",") {
		t.Errorf("holder2's state change %q, want %q", row, want)
	}
	br.noErrors(t, "amounts")
}

// fakeWalletsJS injects an EIP-1193 wallet and Keplr that record every
// request object as the page made it. The EIP-1193 one answers
// eth_requestAccounts with %[1]q and forwards the rest (eth_sendTransaction
// from that keyring account) to the node at %[2]q.
const fakeWalletsJS = `window.walletRequests = []; window.keplrCalls = [];
window.ethereum = { request: async (r) => {
  window.walletRequests.push(JSON.parse(JSON.stringify(r)));
  if (r.method === "eth_requestAccounts") return [%[1]q];
  if (r.method === "wallet_addEthereumChain") return null;
  const res = await fetch(%[2]q, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: r.method, params: r.params || [] }) });
  const j = await res.json();
  if (j.error) throw new Error(j.error.message);
  return j.result;
} };
window.keplr = {
  experimentalSuggestChain: async (c) => { window.keplrCalls.push(["experimentalSuggestChain", JSON.parse(JSON.stringify(c))]); },
  enable: async (id) => { window.keplrCalls.push(["enable", id]); },
};`

// checkUsersWallets: connect a wallet (the header's button; the write
// forms send from that account), and add the chain to MetaMask and Keplr
// with exactly the request objects those wallets take.
func checkUsersWallets(t *testing.T, n *Node, br *browser, base string, c *usersChain) {
	from := devKeys[5].Address // unlocked in the dev keyring: eth_sendTransaction signs
	added := get(t, br, "inject wallets", chromedp.Action[*page.AddScriptToEvaluateOnNewDocumentResult](func(ctx context.Context, tg *chromedp.Target) (*page.AddScriptToEvaluateOnNewDocumentResult, error) {
		r, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fmt.Sprintf(fakeWalletsJS, strings.ToLower(from.Hex()), "http://"+n.HTTP)})
		return &r, err
	}))
	defer br.run(t, "remove wallets", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: added.Identifier})
		return err
	}))
	requests := func(t *testing.T, what string) []any {
		return get(t, br, what, chromedp.Evaluate[[]any](`window.walletRequests`))
	}

	// Connect from the header, then write approve(spender, 9) from the
	// contract page: sent from the connected account, asked for once.
	br.open(t, base+"/address/"+c.token.Hex()+"#contract")
	br.expect(t, "#connect-wallet", "Connect wallet")
	br.run(t, "connect button in the write methods", chromedp.WaitVisible(chromedp.CSS(`[data-field="write-from"] button[data-action="connect"]`)))
	br.run(t, "connect", chromedp.Click(chromedp.CSS("#connect-wallet")), chromedp.WaitVisible(chromedp.CSS(`#connect-wallet[data-account]`)))
	br.expect(t, "#connect-wallet", shortHash(strings.ToLower(from.Hex())))
	br.expect(t, `[data-field="write-account"]`, strings.ToLower(from.Hex()))
	spender := common.HexToAddress("0x00000000000000000000000000000000005e9de9")
	sel := `#write-methods [data-method="approve"]`
	br.run(t, "approve through the wallet",
		chromedp.SendKeys(chromedp.CSS(sel+` input[name="arg0"]`), spender.Hex()),
		chromedp.SendKeys(chromedp.CSS(sel+` input[name="arg1"]`), "9"),
		chromedp.Click(chromedp.CSS(sel+` button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(sel+` [data-field="result"] a`)))
	hash := common.HexToHash(br.text(t, sel+` [data-field="result"] a`))
	if r := n.WaitReceipt(t, hash); r.Status != 1 {
		t.Fatalf("approve from the page failed: %+v", r)
	}
	if got := n.viewUint(t, contracts.MustLoad("EmberToken"), c.token, "allowance", from, spender); got.Int64() != 9 {
		t.Errorf("allowance after the page's approve: %v, want 9", got)
	}
	data, _ := contracts.MustLoad("EmberToken").ABI.Pack("approve", spender, big.NewInt(9))
	wantReqs := []any{
		map[string]any{"method": "eth_requestAccounts"},
		map[string]any{"method": "eth_sendTransaction", "params": []any{map[string]any{
			"from": strings.ToLower(from.Hex()), "to": c.token.Hex(), "data": "0x" + common.Bytes2Hex(data)}}},
	}
	if got := requests(t, "requests"); !reflect.DeepEqual(got, wantReqs) {
		t.Errorf("wallet requests\n got %v\nwant %v", got, wantReqs)
	}

	// Add to MetaMask: EIP-3085's parameter.
	chainID, err := n.Eth.ChainID(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	st, err := n.cometClient(t).Status(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	cosmosID := st.NodeInfo.Network
	name := "Ember (" + cosmosID + ")"
	br.run(t, "add to MetaMask", chromedp.Click(chromedp.CSS("#add-metamask")))
	waitText(t, br, "#wallet-status", "Added to MetaMask.")
	got := requests(t, "add request")
	wantAdd := map[string]any{"method": "wallet_addEthereumChain", "params": []any{map[string]any{
		"chainId": "0x" + chainID.Text(16), "chainName": name, "rpcUrls": []any{"http://" + n.HTTP},
		"nativeCurrency":    map[string]any{"name": "Ember", "symbol": "EMBER", "decimals": float64(18)},
		"blockExplorerUrls": []any{base},
	}}}
	if len(got) != 3 || !reflect.DeepEqual(got[2], wantAdd) {
		t.Errorf("wallet_addEthereumChain request\n got %v\nwant %v", got, wantAdd)
	}

	// Add to Keplr: coin type 60 and Ethermint's features, so Keplr's
	// address of a mnemonic is the node's (ember1… of the same key).
	br.run(t, "add to Keplr", chromedp.Click(chromedp.CSS("#add-keplr")))
	waitText(t, br, "#wallet-status", "Added to Keplr.")
	calls := get(t, br, "keplr calls", chromedp.Evaluate[[]any](`window.keplrCalls`))
	currency := map[string]any{"coinDenom": "EMBER", "coinMinimalDenom": denom, "coinDecimals": float64(18)}
	wantKeplr := []any{
		[]any{"experimentalSuggestChain", map[string]any{
			"chainId": cosmosID, "chainName": name, "rpc": "http://" + n.CometRPC, "rest": "http://" + n.REST,
			"bip44": map[string]any{"coinType": float64(60)},
			"bech32Config": map[string]any{
				"bech32PrefixAccAddr": "ember", "bech32PrefixAccPub": "emberpub",
				"bech32PrefixValAddr": "embervaloper", "bech32PrefixValPub": "embervaloperpub",
				"bech32PrefixConsAddr": "embervalcons", "bech32PrefixConsPub": "embervalconspub",
			},
			"currencies": []any{currency}, "feeCurrencies": []any{currency}, "stakeCurrency": currency,
			"features": []any{"eth-address-gen", "eth-key-sign"},
		}},
		[]any{"enable", cosmosID},
	}
	if !reflect.DeepEqual(calls, wantKeplr) {
		t.Errorf("Keplr calls\n got %v\nwant %v", calls, wantKeplr)
	}
	br.noErrors(t, "wallets")
}

// midWordJS lists the words (letters only, two or more) of the page's
// text that wrap across lines; hashes, code and addresses may break
// anywhere and are left out.
const midWordJS = `(() => {
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    const el = n.parentElement;
    if (!el || el.closest(".hash, .mono, code, pre, svg, script, style, noscript, [data-address], input, textarea, select, title")) continue;
    for (const m of n.data.matchAll(/[A-Za-z]{2,}/g)) {
      const r = document.createRange();
      r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
      if (tops.size > 1) bad.push(m[0] + " (in " + el.tagName.toLowerCase() + (el.dataset.field ? "[data-field=" + el.dataset.field + "]" : "") + ")");
    }
  }
  return bad;
})()`

// chartFontJS is the smallest rendered size, in CSS px, of the charts'
// labels on the page (0 when it has none).
const chartFontJS = `Math.min(...[...document.querySelectorAll("svg.chart text")].map((e) =>
  parseFloat(getComputedStyle(e).fontSize) * e.ownerSVGElement.getScreenCTM().a), Infinity)`

// checkUsersPhone: at 390 px every page (each tab of the tx and address
// pages too) fits the screen without horizontal scrolling, breaks no
// word across lines, keeps its chart labels at 10 px or more, and
// collapses the menu behind its button.
func checkUsersPhone(t *testing.T, br *browser, base string, c *usersChain) {
	br.run(t, "phone", chromedp.EmulateViewport(390, 844))
	defer br.run(t, "desktop", chromedp.EmulateViewport(1280, 900))
	pages := []string{"/", "/blocks", "/txs", "/tokens", "/verified-contracts", "/validators", "/gas-tracker",
		"/block/" + c.run.BlockNumber.String(), "/tx/" + c.approve.TxHash.Hex(), "/tx/" + c.run.TxHash.Hex(),
		"/address/" + c.a.Address.Hex(), "/address/" + c.tracee.Hex(), "/address/" + c.token.Hex(),
		"/token/" + c.token.Hex(), "/search-results?q=Ember", "/address/" + c.holder1.Hex()}
	check := func(t *testing.T, what string) {
		t.Helper()
		// A phone's scrollbars overlay the page: its width is the
		// viewport's, 390.
		if w := get(t, br, "scroll width", chromedp.Evaluate[int](`document.scrollingElement.scrollWidth`)); w > 390 {
			// What sticks out: the text (a word too long for its box) whose
			// line reaches past the screen, outside any scrolling box.
			wide := get(t, br, "wide text", chromedp.Evaluate[[]string](`(() => {
				const out = [], max = 391;
				const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
				for (let n; (n = walker.nextNode());) {
					let clipped = false;
					for (let p = n.parentElement; p && !clipped; p = p.parentElement) clipped = getComputedStyle(p).overflowX !== "visible";
					const r = document.createRange(); r.selectNodeContents(n);
					const box = n.nodeType === 1 ? n.getBoundingClientRect() : r.getBoundingClientRect();
					const el = n.nodeType === 1 ? n : n.parentElement;
					if (!clipped && box.right > max) out.push(el.tagName + "." + el.className + ": " + (n.nodeType === 1 ? "" : n.data.slice(0, 50)));
				}
				return out.slice(0, 8);
			})()`))
			t.Errorf("%s at 390 px: scrollWidth %d; sticking out: %q", what, w, wide)
		}
		if bad := get(t, br, "mid-word breaks", chromedp.Evaluate[[]string](midWordJS)); len(bad) > 0 {
			t.Errorf("%s at 390 px: words broken across lines: %q", what, bad)
		}
	}
	for _, p := range pages {
		br.open(t, base+p)
		check(t, p)
		for _, id := range get(t, br, "tabs", chromedp.Evaluate[[]string](`[...document.querySelectorAll('[role="tab"]')].map(b => b.id)`)) {
			panel := "#panel-" + strings.TrimPrefix(id, "tab-")
			br.run(t, p+" "+id, chromedp.Click(chromedp.CSS("#"+id)), chromedp.WaitVisible(chromedp.CSS(panel)),
				chromedp.WaitNotPresent(chromedp.CSS(panel+` [role="status"], `+panel+` [aria-busy="true"]`)))
			check(t, p+"#"+strings.TrimPrefix(id, "tab-"))
			if id == "tab-coin-balance-history" {
				if px := get(t, br, "balance chart font", chromedp.Evaluate[float64](chartFontJS)); px < 10 {
					t.Errorf("%s balance chart labels at %.1f px", p, px)
				}
			}
		}
	}
	br.open(t, base+"/")
	// The check sees a broken word: a narrow box breaking anywhere.
	br.run(t, "a broken word", chromedp.Evaluate[chromedp.Void](`document.getElementById("main").append(Object.assign(document.createElement("p"), {id: "probe", textContent: "Transactions", className: "probe"}))`),
		chromedp.Evaluate[chromedp.Void](`Object.assign(document.getElementById("probe").style, {width: "40px", wordBreak: "break-all"})`))
	if bad := get(t, br, "probe", chromedp.Evaluate[[]string](midWordJS)); len(bad) != 1 || bad[0] != "Transactions (in p)" {
		t.Errorf("the mid-word check found %q in a 40 px box breaking anywhere, want [Transactions (in p)]", bad)
	}
	br.run(t, "remove the probe", chromedp.Evaluate[chromedp.Void](`document.getElementById("probe").remove()`))
	br.run(t, "home chart", chromedp.WaitVisible(chromedp.CSS("#tx-chart svg.chart")))
	if px := get(t, br, "home chart font", chromedp.Evaluate[float64](chartFontJS)); px < 10 {
		t.Errorf("home chart labels at %.1f px", px)
	}
	// The menu: hidden behind "Menu" until opened.
	visible := func() bool {
		return get(t, br, "menu shown", chromedp.Evaluate[bool](`document.querySelector('#main-menu a[href="/blocks"]').getClientRects().length > 0`))
	}
	br.expect(t, "#menu-toggle", "Menu")
	if visible() {
		t.Error("the menu's links show at 390 px before the menu is opened")
	}
	br.run(t, "open the menu", chromedp.Click(chromedp.CSS("#menu-toggle")))
	if !visible() || br.attrs(t, "#menu-toggle", "aria-expanded")[0] != "true" {
		t.Error("the menu did not open")
	}
	br.shot(t, "users-phone-menu")
	br.noErrors(t, "phone")
}

// checkUsersVerifyForm: the verification form sends standard-JSON input
// (a file) and flattened code (a JSON body) to their endpoints; this node
// has no [explorer] solc, so the API's answer, shown on the page, is the
// refusal it gives after reading the request (the contract found in the
// sources), and the contract stays unverified.
func checkUsersVerifyForm(t *testing.T, n *Node, br *browser, base string, c *usersChain) {
	tracee := contracts.MustLoad("Tracee")
	noSolc := "Verification failed: this verification compiles the sources, and the explorer has no compiler configured ([explorer] solc)"
	choose := func(method string) {
		br.run(t, "choose "+method, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById("verify-method"); s.value = %q; s.dispatchEvent(new Event("change")); })()`, method)))
	}
	setValue := func(id, v string) {
		b, _ := json.Marshal(v)
		br.run(t, "fill "+id, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.getElementById(%q).value = %s`, id, b)))
	}
	br.open(t, base+"/address/"+c.twin.Hex()+"#contract")
	br.expect(t, `p[data-field="verified"]`, "This contract's source is not verified.")

	// Flattened: Tracee.sol's text in the textarea.
	choose("flattened-code")
	br.run(t, "flattened fields", chromedp.WaitVisible(chromedp.CSS("#verify-source")), chromedp.WaitNotVisible(chromedp.CSS("#verify-files")))
	setValue("verify-compiler", "v0.8.28+commit.7893614a")
	setValue("verify-name", "Tracee")
	setValue("verify-source", tracee.Sources["Tracee.sol"])
	br.run(t, "submit flattened", chromedp.Click(chromedp.CSS(`#verify-files ~ button[type="submit"]`)))
	waitText(t, br, `[data-field="verify-result"]`, noSolc)

	// Standard-JSON input: one file.
	sources := map[string]any{}
	for p, src := range tracee.Sources {
		sources[p] = map[string]string{"content": src}
	}
	input, _ := json.Marshal(map[string]any{"language": "Solidity", "sources": sources, "settings": map[string]any{"optimizer": map[string]any{"enabled": true, "runs": 200}}})
	file := filepath.Join(t.TempDir(), "input.json")
	if err := os.WriteFile(file, input, 0o644); err != nil {
		t.Fatal(err)
	}
	choose("standard-input")
	br.run(t, "standard fields", chromedp.WaitVisible(chromedp.CSS("#verify-files")), chromedp.WaitNotVisible(chromedp.CSS("#verify-source")))
	setValue("verify-name", "Nothing")
	br.run(t, "submit standard input", chromedp.SetUploadFiles(chromedp.CSS("#verify-files"), []string{file}),
		chromedp.Click(chromedp.CSS(`#verify-files ~ button[type="submit"]`)))
	waitText(t, br, `[data-field="verify-result"]`, "Verification failed: no source declares contract Nothing")
	setValue("verify-name", "Tracee")
	br.run(t, "submit again", chromedp.Click(chromedp.CSS(`#verify-files ~ button[type="submit"]`)))
	waitText(t, br, `[data-field="verify-result"]`, noSolc)

	var sc struct {
		Verified *bool `json:"is_verified"`
	}
	n.explorerJSON(t, nil, "", "/api/v2/smart-contracts/"+c.twin.Hex(), &sc)
	if sc.Verified == nil || *sc.Verified {
		t.Errorf("the twin's is_verified is %v after refusals", sc.Verified)
	}
	// The refusals are 422s the page shows; the browser logs them.
	br.noErrors(t, "verify methods", regexp.MustCompile(`status of 422`))
}
