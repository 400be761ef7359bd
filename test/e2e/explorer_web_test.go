package e2e

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	cmted25519 "github.com/cometbft/cometbft/crypto/ed25519"
	coretypes "github.com/cometbft/cometbft/rpc/core/types"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/native"
)

// webChain is the chain the page test browses: one of each kind of object
// the pages show.
type webChain struct {
	a, b                    *accounts.Key
	token20, nft, multi     common.Address
	supply                  *big.Int
	recipient, nativeTo     common.Address
	deployTx                *types.Receipt // the ERC-20's creation
	reverted                *types.Receipt // burn by a stranger: "not allowed"
	seenCall                *types.Receipt // a zero-value call of b after b's last balance change (the reverted tx's fee)
	pageTo                  common.Address // received more transfers than one page holds (paging)
	trace                   *traceFixture  // internal calls
	transfer                *types.Receipt // the last tx: an ERC-20 transfer (the click path's)
	twin                    common.Address // the ERC-20's code again, left unverified (the verify form's)
	shapes                  common.Address // verified; read methods taking arrays and structs
	nativeAmount            *big.Int
	nativeSend, nativeStake *coretypes.ResultTx // the bank send and the create-validator, as CometBFT answers them
	nativeDelegate          *coretypes.ResultTx // a delegation to the new validator and a bank send, in one tx
	nativeFee               *big.Int            // each one's fee
	validatorOp             common.Address      // created by a native MsgCreateValidator
	validatorCons           string              // its CometBFT address (hex, as /validators spells it)
	nftImage, nftName, meta string
}

// buildWebChain makes the chain: an ERC-20 (deployed, verified, sent), an
// ERC-721 with metadata and an image, an ERC-1155, a reverted call, the
// Tracee's internal calls, a native bank send and a native
// create-validator, then one last ERC-20 transfer.
func buildWebChain(t *testing.T, n *Node) *webChain {
	w := &webChain{a: devKeys[6], b: devKeys[7],
		recipient: common.BytesToAddress(crypto.Keccak256([]byte("web-recipient"))[:20]),
		nativeTo:  common.BytesToAddress(crypto.Keccak256([]byte("web-native-recipient"))[:20]),
	}
	erc20 := contracts.MustLoad("EmberToken")
	w.supply, _ = new(big.Int).SetString("1000000000000000000000000", 10)
	data, _ := erc20.DeployData(w.supply)
	w.deployTx = n.WaitReceipt(t, n.send(t, w.a.Private, txOpts{Gas: 5_000_000, Data: data}).Hash())
	w.token20 = w.deployTx.ContractAddress
	n.waitIndexed(t, w.deployTx.BlockNumber.Uint64()) // verification needs the contract indexed
	if status, body := n.verifyMultipart(t, w.token20, artifactFiles(erc20)); status != 200 {
		t.Fatalf("verify: %d %s", status, body)
	}

	w.twin = n.deploy(t, w.a, erc20, w.supply)

	// ERC-721 with on-chain metadata (a data: URI longer than a token name
	// may be) whose image is a data: URI too (no network).
	nft := contracts.MustLoad("EmberMetaNFT")
	w.nft = n.deploy(t, w.a, nft)
	w.nftImage = `data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1 1'><rect width='1' height='1' fill='orange'/></svg>`
	w.nftName = "Ember One"
	w.meta = fmt.Sprintf(`{"name":%q,"description":%q,"image":%q,"attributes":[{"trait_type":"color","value":"orange"}]}`,
		w.nftName, strings.Repeat("Minted on an Ember dev chain. ", 10), w.nftImage)
	mint := pack(t, nft, "mint", w.b.Address, "data:application/json,"+w.meta)
	if r := n.WaitReceipt(t, n.send(t, w.a.Private, txOpts{To: &w.nft, Gas: 1_000_000, Data: mint}).Hash()); r.Status != 1 {
		t.Fatal("mint with metadata failed")
	}

	multi := contracts.MustLoad("EmberMultiToken")
	w.multi = n.deploy(t, w.a, multi, `data:application/json,{"name":"Multi {id}"}`)
	n.call(t, w.a, w.multi, multi, "mintBatch", w.a.Address, []*big.Int{big.NewInt(1), big.NewInt(2)}, []*big.Int{big.NewInt(100), big.NewInt(200)})
	// b may not burn a's tokens: reverts with "not allowed".
	in := pack(t, multi, "burn", w.a.Address, big.NewInt(1), big.NewInt(1))
	w.reverted = n.WaitReceipt(t, n.send(t, w.b.Private, txOpts{To: &w.multi, Gas: 200_000, Data: in}).Hash())
	if w.reverted.Status != 0 {
		t.Fatal("the stranger's burn did not revert")
	}
	// b is seen again without its balance changing: its last balance
	// update stays the reverted tx's block.
	w.seenCall = n.WaitReceipt(t, n.send(t, w.a.Private, txOpts{To: &w.b.Address, Gas: 21000}).Hash())

	w.trace = buildTraceFixture(t, n)

	shapes := contracts.MustLoad("Shapes")
	w.shapes = n.deploy(t, w.a, shapes)
	n.waitIndexed(t, n.settledHead(t, nil))
	if status, body := n.verifyMultipart(t, w.shapes, artifactFiles(shapes)); status != 200 {
		t.Fatalf("verify Shapes: %d %s", status, body)
	}

	// Native: a bank send and a new validator.
	w.nativeAmount = big.NewInt(123_456_789)
	raw, fee := signNative(t, n, devKeys[1].Private, nativeB.Send(devKeys[1].Address, w.nativeTo, w.nativeAmount))
	if w.nativeSend, w.nativeFee = deliver(t, n, raw), fee; w.nativeSend.TxResult.Code != 0 {
		t.Fatalf("MsgSend: %d %s", w.nativeSend.TxResult.Code, w.nativeSend.TxResult.Log)
	}
	cons := cmted25519.GenPrivKey().PubKey()
	w.validatorOp, w.validatorCons = devKeys[3].Address, cons.Address().String()
	raw, _ = signNative(t, n, devKeys[3].Private, nativeB.CreateValidator(w.validatorOp, cons.Bytes(), "web-fresh", e18))
	if w.nativeStake = deliver(t, n, raw); w.nativeStake.TxResult.Code != 0 {
		t.Fatalf("create-validator: %d %s", w.nativeStake.TxResult.Code, w.nativeStake.TxResult.Log)
	}
	waitCometValidators(t, n, "the new validator", func(v map[string]int64) bool { return v[w.validatorCons] == 1 })
	// Half a coin more leaves its voting power (whole coins) at 1.
	raw, _ = signNative(t, n, devKeys[1].Private, nativeB.Delegate(devKeys[1].Address, w.validatorOp, halfCoin),
		nativeB.Send(devKeys[1].Address, webDelegateSendTo, big.NewInt(7)))
	if w.nativeDelegate = deliver(t, n, raw); w.nativeDelegate.TxResult.Code != 0 {
		t.Fatalf("delegate: %d %s", w.nativeDelegate.TxResult.Code, w.nativeDelegate.TxResult.Log)
	}

	// One page and a few rows more of transfers to pageTo, for paging.
	w.pageTo = common.BytesToAddress(crypto.Keccak256([]byte("web-paging"))[:20])
	n.waitAll(t, n.explorerBatch(t, devKeys[5], w.pageTo, webPageRows))

	w.transfer = n.call(t, w.a, w.token20, erc20, "transfer", w.recipient, webTokenAmount)
	return w
}

// webPageRows is how many transfers pageTo received: a page (50) and 5.
const webPageRows = 55

var (
	webTokenAmount    = new(big.Int).Mul(big.NewInt(12345), big.NewInt(1e17)) // 1,234.5 tokens of 18 decimals, as people send
	halfCoin          = new(big.Int).Div(e18, big.NewInt(2))
	webDelegateSendTo = common.HexToAddress("0x000000000000000000000000000000000000beef")
)

// units spells base units as the pages do: an exact decimal, thousands
// grouped, no trailing zeros.
func units(v *big.Int, decimals int) string {
	s := new(big.Int).Abs(v).String()
	if len(s) <= decimals {
		s = strings.Repeat("0", decimals-len(s)+1) + s
	}
	whole, frac := s[:len(s)-decimals], strings.TrimRight(s[len(s)-decimals:], "0")
	var g []string
	for len(whole) > 3 {
		g = append([]string{whole[len(whole)-3:]}, g...)
		whole = whole[:len(whole)-3]
	}
	out := strings.Join(append([]string{whole}, g...), ",")
	if frac != "" {
		out += "." + frac
	}
	if v.Sign() < 0 {
		out = "-" + out
	}
	return out
}

// allTxCounts counts the chain's transactions up to head, EVM (from the
// JSON-RPC) and native (Cosmos transactions of the CometBFT blocks), in all
// and in blocks of UTC day today.
func (n *Node) allTxCounts(t *testing.T, head uint64, today int64) (total, inToday uint64) {
	c := n.cometClient(t)
	for h := uint64(0); h <= head; h++ {
		b, err := n.Eth.BlockByNumber(ctx(t), new(big.Int).SetUint64(h))
		if err != nil {
			t.Fatal(err)
		}
		count := uint64(len(b.Transactions()))
		if h > 0 { // block 0 is the genesis state, not a CometBFT block
			height := int64(h)
			cb, err := c.Block(ctx(t), &height)
			if err != nil {
				t.Fatal(err)
			}
			for _, tx := range cb.Block.Txs {
				if native.IsNative(tx) {
					count++
				}
			}
		}
		total += count
		if int64(b.Time())/86400 == today {
			inToday += count
		}
	}
	return total, inToday
}

func coinText(wei *big.Int) string { return units(wei, 18) + " EMBER" }
func grouped(n uint64) string      { return units(new(big.Int).SetUint64(n), 0) }

// TestExplorerWeb browses the explorer's pages in headless Chromium on a
// chain holding each kind of object, and checks what they show against
// the JSON-RPC: every page by URL, the click path home → block → tx →
// address → token, live blocks on home, search, a contract read method, a
// clean console; a screenshot of each page is written.
func TestExplorerWeb(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--explorer.enable", "--empty-block-interval", "0")
	br := startBrowser(t)
	w := buildWebChain(t, n)
	head := n.settledHead(t, nil) // CometBFT adds a block after the last tx's
	in := waitStored(t, openExplorerDB(t, n, ""), w.nft, 1, func(in *explorer.TokenInstance) bool { return in.Fetched })
	if in.MetadataError != nil {
		t.Fatalf("NFT metadata: %s", *in.MetadataError)
	}
	base := "http://" + n.Explorer

	t.Run("home", func(t *testing.T) { checkWebHome(t, n, br, base, head) })
	t.Run("block", func(t *testing.T) { checkWebBlock(t, n, br, base, w.transfer.BlockNumber) })
	t.Run("tx", func(t *testing.T) { checkWebTxs(t, n, br, base, w, head) })
	t.Run("address", func(t *testing.T) { checkWebAddresses(t, n, br, base, w) })
	t.Run("contract", func(t *testing.T) { checkWebContract(t, n, br, base, w) })
	t.Run("tokens", func(t *testing.T) { checkWebTokens(t, n, br, base, w) })
	t.Run("lists", func(t *testing.T) { checkWebLists(t, n, br, base, w, head) })
	t.Run("validators", func(t *testing.T) { checkWebValidators(t, n, br, base, w) })
	t.Run("search", func(t *testing.T) { checkWebSearch(t, n, br, base, w, head) })
	t.Run("paging", func(t *testing.T) { checkWebPaging(t, n, br, base, w) })
	t.Run("titles", func(t *testing.T) { checkWebTitles(t, br, base, w) })
	t.Run("csv", func(t *testing.T) { checkWebCSV(t, n, br, base, w) })
	t.Run("not found", func(t *testing.T) { checkWebNotFound(t, n, br, base) })
	t.Run("click path", func(t *testing.T) { checkWebClicks(t, n, br, base, w) })
	t.Run("every tab", func(t *testing.T) { checkWebTabs(t, br, base, w) })
	t.Run("access", func(t *testing.T) { checkWebAccess(t, br, base, w) })
	t.Run("live home", func(t *testing.T) { checkWebLive(t, n, br, base) })
	t.Run("verify form", func(t *testing.T) { checkWebVerify(t, n, br, base, w) })
	t.Run("wallet write", func(t *testing.T) { checkWebWallet(t, n, br, base, w) })
	t.Run("rpc explorer", func(t *testing.T) { checkWebRPCExplorer(t, n, br, w) })
}

func checkWebHome(t *testing.T, n *Node, br *browser, base string, head uint64) {
	// Every transaction of the chain counts, EVM and native (Blockscout's
	// meaning): the total, today's, and the daily chart's sum.
	total, today := n.allTxCounts(t, head, time.Now().Unix()/86400)
	var st struct {
		Total string `json:"total_transactions"`
		Today string `json:"transactions_today"`
	}
	n.explorerJSON(t, nil, "", "/api/v2/stats", &st)
	if st.Total != fmt.Sprint(total) || st.Today != fmt.Sprint(today) {
		t.Errorf("stats: %s transactions, %s today; the chain has %d, %d today (EVM and native)", st.Total, st.Today, total, today)
	}
	var chart struct {
		Data []struct {
			Count uint64 `json:"transactions_count"`
		} `json:"chart_data"`
	}
	n.explorerJSON(t, nil, "", "/api/v2/stats/charts/transactions", &chart)
	var sum uint64
	for _, d := range chart.Data {
		sum += d.Count
	}
	if sum != total {
		t.Errorf("daily chart sums to %d transactions, the chain has %d", sum, total)
	}
	br.open(t, base+"/")
	br.expect(t, `[data-field="total-transactions"]`, grouped(total))
	br.expect(t, `[data-field="total-blocks"]`, grouped(head+1)) // block 0 is a block
	if got := br.attrs(t, "#latest-blocks [data-block]", "data-block"); len(got) == 0 || got[0] != strconv.FormatUint(head, 10) {
		t.Errorf("latest blocks %v, want %d first", got, head)
	}
	if got := br.attrs(t, "#tx-chart svg[role=img]", "aria-label"); len(got) != 1 {
		t.Errorf("daily transactions chart: %v", got)
	}
	br.shot(t, "home")
	br.noErrors(t, "home")
}

func checkWebBlock(t *testing.T, n *Node, br *browser, base string, number *big.Int) {
	blk, err := n.Eth.BlockByNumber(ctx(t), number)
	if err != nil {
		t.Fatal(err)
	}
	height := number.Int64()
	cmt, err := n.cometClient(t).Block(ctx(t), &height) // the CometBFT block hash, as CometBFT's RPC spells it
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{number.String(), blk.Hash().Hex()} {
		br.open(t, base+"/block/"+id)
		br.expect(t, `[data-field="height"]`, number.String())
		br.expect(t, `[data-field="hash"]`, blk.Hash().Hex())
		br.expect(t, `[data-field="cometbft-hash"]`, cmt.BlockID.Hash.String())
		br.expect(t, `[data-field="parent-hash"]`, blk.ParentHash().Hex())
		br.expect(t, `[data-field="transactions-count"]`, strconv.Itoa(len(blk.Transactions())))
		br.expect(t, `[data-field="miner-hex"]`, blk.Coinbase().Hex())
		br.expect(t, `[data-field="miner-bech32"]`, accounts.Bech32("ember", blk.Coinbase()))
		br.expect(t, `[data-field="gas-limit"]`, grouped(blk.GasLimit()))
		if got := br.text(t, `[data-field="gas-used"]`); !strings.HasPrefix(got, grouped(blk.GasUsed())+" (") {
			t.Errorf("gas used %q, want %s", got, grouped(blk.GasUsed()))
		}
		br.expect(t, `[data-field="base-fee"]`, units(blk.BaseFee(), 9)+" Gwei")
		burnt := new(big.Int).Mul(blk.BaseFee(), new(big.Int).SetUint64(blk.GasUsed()))
		br.expect(t, `[data-field="burnt-fees"]`, coinText(burnt))
		var hashes []string
		for _, tx := range blk.Transactions() {
			hashes = append(hashes, tx.Hash().Hex())
		}
		if got := br.attrs(t, `#panel-transactions tbody a[href^="/tx/"]`, "title"); strings.Join(got, " ") != strings.Join(hashes, " ") {
			t.Errorf("block %s txs %v, want %v", id, got, hashes)
		}
	}
	br.shot(t, "block")
	br.noErrors(t, "block")
}

// checkWebTx opens a tx page and checks what every tx shows against its
// receipt and the chain.
func checkWebTx(t *testing.T, n *Node, br *browser, base string, hash common.Hash, head uint64) (*types.Transaction, *types.Receipt) {
	t.Helper()
	tx, _, err := n.Eth.TransactionByHash(ctx(t), hash)
	if err != nil {
		t.Fatal(err)
	}
	r := n.WaitReceipt(t, hash)
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		t.Fatal(err)
	}
	br.open(t, base+"/tx/"+hash.Hex())
	br.expect(t, `[data-field="hash"]`, hash.Hex())
	want := map[uint64]string{1: "Success", 0: "Failed"}[r.Status]
	br.expect(t, `[data-field="status"]`, want)
	br.expect(t, `[data-field="block"]`, r.BlockNumber.String())
	br.expect(t, `[data-field="confirmations"]`, grouped(head-r.BlockNumber.Uint64()+1))
	br.expect(t, `[data-field="from-hex"]`, from.Hex())
	br.expect(t, `[data-field="from-bech32"]`, accounts.Bech32("ember", from))
	if tx.To() != nil {
		br.expect(t, `[data-field="to-hex"]`, tx.To().Hex())
		br.expect(t, `[data-field="to-bech32"]`, accounts.Bech32("ember", *tx.To()))
	}
	br.expect(t, `[data-field="value"]`, coinText(tx.Value()))
	fee := new(big.Int).Mul(r.EffectiveGasPrice, new(big.Int).SetUint64(r.GasUsed))
	br.expect(t, `[data-field="fee"]`, coinText(fee))
	br.expect(t, `[data-field="gas"]`, grouped(r.GasUsed)+" / "+grouped(tx.Gas()))
	br.expect(t, `[data-field="nonce"]`, strconv.FormatUint(tx.Nonce(), 10))
	if got := br.text(t, `[data-field="type"]`); !strings.HasPrefix(got, strconv.Itoa(int(tx.Type()))+" (") {
		t.Errorf("type %q, want %d", got, tx.Type())
	}
	return tx, r
}

func checkWebTxs(t *testing.T, n *Node, br *browser, base string, w *webChain, head uint64) {
	// An ERC-20 transfer of a verified token: decoded input, the summary,
	// the token transfer.
	checkWebTx(t, n, br, base, w.transfer.TxHash, head)
	if got := br.text(t, `[data-field="method-call"]`); got != "transfer(address to, uint256 value)" {
		t.Errorf("decoded input %q", got)
	}
	if got, want := br.text(t, `[data-field="summary"]`), "Transfer "+units(webTokenAmount, 18)+" EMB from "; !strings.HasPrefix(got, want) {
		t.Errorf("summary %q, want it to start %q", got, want)
	}
	br.run(t, "token transfers tab", chromedp.Click(chromedp.CSS("#tab-token-transfers")))
	if got := br.text(t, "#panel-token-transfers tbody td.num"); got != units(webTokenAmount, 18) {
		t.Errorf("token transfer amount %q, want %s", got, units(webTokenAmount, 18))
	}
	br.shot(t, "tx")
	br.noErrors(t, "tx transfer")

	// The reverted call: Failed, with the contract's reason.
	checkWebTx(t, n, br, base, w.reverted.TxHash, head)
	if got := br.text(t, `[data-field="revert-reason"]`); got != "reverted: not allowed" {
		t.Errorf("revert reason %q, want %q", got, "reverted: not allowed")
	}
	br.expect(t, `[data-field="revert-call"]`, "Error(string reason)")
	var rt struct {
		Result string `json:"result"`
		Reason struct {
			MethodCall string `json:"method_call"`
			MethodID   string `json:"method_id"`
			Params     []struct {
				Name, Type string
				Value      any
			} `json:"parameters"`
		} `json:"revert_reason"`
	}
	n.explorerJSON(t, nil, "", "/api/v2/transactions/"+w.reverted.TxHash.Hex(), &rt)
	if rt.Result != "not allowed" || rt.Reason.MethodCall != "Error(string reason)" || rt.Reason.MethodID != "08c379a0" ||
		len(rt.Reason.Params) != 1 || rt.Reason.Params[0].Value != "not allowed" {
		t.Errorf("reverted tx: result %q, revert_reason %+v", rt.Result, rt.Reason)
	}
	br.shot(t, "tx-reverted")
	br.noErrors(t, "tx reverted")

	// The contract creation.
	checkWebTx(t, n, br, base, w.deployTx.TxHash, head)
	br.expect(t, `[data-field="created-hex"]`, w.token20.Hex())
	br.noErrors(t, "tx creation")

	// Internal calls: the call tree has every frame of callTracer's, at its
	// depth.
	checkWebTx(t, n, br, base, w.trace.tx.Hash(), head)
	br.run(t, "internal tab", chromedp.Click(chromedp.CSS("#tab-internal-transactions")))
	var want []string
	var walk func(f *callFrame, depth int)
	walk = func(f *callFrame, depth int) {
		want = append(want, strconv.Itoa(depth))
		for i := range f.Calls {
			walk(&f.Calls[i], depth+1)
		}
	}
	walk(n.callTrace(t, w.trace.tx.Hash()), 0)
	if got := br.attrs(t, "#call-tree li", "data-depth"); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("call tree depths %v, want %v", got, want)
	}
	br.run(t, "raw trace tab", chromedp.Click(chromedp.CSS("#tab-raw-trace")), chromedp.WaitVisible(chromedp.CSS("#panel-raw-trace pre")))
	br.shot(t, "tx-internal")
	br.noErrors(t, "tx internal")

	checkWebNative(t, br, base, w, head)
}

// checkWebNative opens the native bank send and create-validator by their
// CometBFT hashes: their messages with exact amounts, and the outcome
// CometBFT reported; then finds them in their block's and their signer's
// native transactions tabs.
func checkWebNative(t *testing.T, br *browser, base string, w *webChain, head uint64) {
	send, stake := w.nativeSend, w.nativeStake
	operator, err := accounts.NewPrefixes("ember").Encode(accounts.KindValidator, w.validatorOp[:])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		res  *coretypes.ResultTx
		from common.Address
		want map[string]string // data-field → text, inside the first message ("1:field": the second's)
	}{
		{send, devKeys[1].Address, map[string]string{"msg-type": "/cosmos.bank.v1beta1.MsgSend", "msg-amount": coinText(w.nativeAmount),
			"msg-to-hex": w.nativeTo.Hex(), "msg-to-bech32": accounts.Bech32("ember", w.nativeTo)}},
		{stake, w.validatorOp, map[string]string{"msg-type": "/cosmos.staking.v1beta1.MsgCreateValidator", "msg-amount": coinText(e18),
			"msg-moniker": "web-fresh", "msg-operator": operator}},
		{w.nativeDelegate, devKeys[1].Address, map[string]string{"msg-type": "/cosmos.staking.v1beta1.MsgDelegate", "msg-amount": coinText(halfCoin),
			"msg-operator": operator, "1:msg-type": "/cosmos.bank.v1beta1.MsgSend", "1:msg-amount": coinText(big.NewInt(7)),
			"1:msg-to-hex": webDelegateSendTo.Hex()}},
	} {
		hash := "0x" + strings.ToLower(c.res.Hash.String())
		br.open(t, base+"/tx/"+hash)
		br.expect(t, `[data-field="hash"]`, hash)
		br.expect(t, `[data-field="status"]`, "Success")
		br.expect(t, `[data-field="block"]`, strconv.FormatInt(c.res.Height, 10))
		br.expect(t, `[data-field="confirmations"]`, grouped(head-uint64(c.res.Height)+1))
		br.expect(t, `[data-field="from-hex"]`, c.from.Hex())
		br.expect(t, `[data-field="fee"]`, coinText(w.nativeFee))
		br.expect(t, `[data-field="gas"]`, grouped(uint64(c.res.TxResult.GasUsed))+" / "+grouped(uint64(c.res.TxResult.GasWanted)))
		br.expect(t, `[data-field="position"]`, strconv.FormatUint(uint64(c.res.Index), 10))
		for field, want := range c.want {
			msg := "0"
			if i, f, ok := strings.Cut(field, ":"); ok {
				msg, field = i, f
			}
			br.expect(t, `[data-msg="`+msg+`"] [data-field="`+field+`"]`, want)
		}
		br.noErrors(t, "native tx "+hash)
	}
	br.shot(t, "tx-native")

	hash := "0x" + strings.ToLower(send.Hash.String())
	br.open(t, fmt.Sprintf("%s/block/%d#native-transactions", base, send.Height))
	br.run(t, "native tab", chromedp.Click(chromedp.CSS("#tab-native-transactions")))
	br.expect(t, `#panel-native-transactions tbody td:nth-child(3)`, "MsgSend")
	if got := br.attrs(t, `#panel-native-transactions tbody a[href^="/tx/"]`, "href"); len(got) != 1 || got[0] != "/tx/"+hash {
		t.Errorf("block %d native txs link %v, want [/tx/%s]", send.Height, got, hash)
	}
	br.open(t, base+"/address/"+w.nativeTo.Hex())
	br.run(t, "address native tab", chromedp.Click(chromedp.CSS("#tab-native-txns")))
	if got := br.attrs(t, `#panel-native-txns tbody a[href^="/tx/"]`, "href"); len(got) != 1 || got[0] != "/tx/"+hash {
		t.Errorf("recipient's native txs %v, want [/tx/%s]", got, hash)
	}
	br.expect(t, `#panel-native-txns tbody td.num`, coinText(w.nativeAmount))
	br.noErrors(t, "native lists")
}

func checkWebAddresses(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	for _, c := range []struct {
		url  string
		addr common.Address
	}{
		{"/address/" + accounts.Bech32("ember", w.nativeTo), w.nativeTo}, // the native send's recipient, by bech32
		{"/address/" + strings.ToLower(w.recipient.Hex()), w.recipient},
		{"/address/" + w.a.Address.Hex(), w.a.Address},
	} {
		br.open(t, base+c.url)
		bal, err := n.Eth.BalanceAt(ctx(t), c.addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		br.expect(t, `[data-field="balance"]`, coinText(bal))
		br.expect(t, `[data-field="address-hex"]`, c.addr.Hex())
		br.expect(t, `[data-field="address-bech32"]`, accounts.Bech32("ember", c.addr))
		nonce, err := n.Eth.NonceAt(ctx(t), c.addr, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.addr == w.a.Address {
			// a only sent EVM transactions: each is one of its txs.
			br.expect(t, `[data-field="transactions-count"]`, grouped(nonce))
		}
		if c.addr == w.nativeTo && bal.Cmp(w.nativeAmount) != 0 {
			t.Errorf("native recipient holds %v, sent %v", bal, w.nativeAmount)
		}
		br.noErrors(t, c.url)
	}
	checkWebBalanceBlock(t, n, br, base, w)
	br.open(t, base+"/address/"+w.a.Address.Hex())
	br.run(t, "balance history", chromedp.Click(chromedp.CSS("#tab-coin-balance-history")), chromedp.WaitVisible(chromedp.CSS("#panel-coin-balance-history svg")))
	// Every label of the chart lies inside it: a y label cut at the left
	// edge ("…6 EMBER" of 9,999.986) reads as another number.
	cut := get(t, br, "chart labels", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#panel-coin-balance-history svg.chart text")]
		.filter((e) => { const b = e.getBBox(), v = e.ownerSVGElement.viewBox.baseVal; return b.x < v.x || b.x + b.width > v.x + v.width; })
		.map((e) => e.textContent)`))
	if len(cut) > 0 {
		t.Errorf("balance chart labels outside the chart: %q", cut)
	}
	br.shot(t, "address")
	br.noErrors(t, "address history")
}

// checkWebBalanceBlock: b's "Last balance update" is the block its balance
// last changed in (the reverted tx's, whose fee b paid), by the JSON-RPC's
// balances, not the later block of the zero-value call that saw it.
func checkWebBalanceBlock(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	changed := w.reverted.BlockNumber
	before, err := n.Eth.BalanceAt(ctx(t), w.b.Address, new(big.Int).Sub(changed, big.NewInt(1)))
	if err != nil {
		t.Fatal(err)
	}
	at, _ := n.Eth.BalanceAt(ctx(t), w.b.Address, changed)
	now, _ := n.Eth.BalanceAt(ctx(t), w.b.Address, nil)
	if before.Cmp(at) == 0 || at.Cmp(now) != 0 || w.seenCall.BlockNumber.Cmp(changed) <= 0 {
		t.Fatalf("b: %v before block %v, %v at it, %v now; seen again in block %v", before, changed, at, now, w.seenCall.BlockNumber)
	}
	var a struct {
		BalanceBlock uint64 `json:"block_number_balance_updated_at"`
		Balance      string `json:"coin_balance"`
	}
	n.explorerJSON(t, nil, "", "/api/v2/addresses/"+w.b.Address.Hex(), &a)
	if a.BalanceBlock != changed.Uint64() || a.Balance != now.String() {
		t.Errorf("b: balance %s updated at block %d; want %v at block %v", a.Balance, a.BalanceBlock, now, changed)
	}
	br.open(t, base+"/address/"+w.b.Address.Hex())
	br.expect(t, `[data-field="balance-block"]`, changed.String())
	br.noErrors(t, "address b")
}

func checkWebContract(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	br.open(t, base+"/address/"+w.token20.Hex())
	br.run(t, "contract tab", chromedp.Click(chromedp.CSS("#tab-contract")))
	br.expect(t, `[data-field="verified"]`, "full match")
	br.expect(t, `[data-field="contract-name"]`, "EmberToken")
	if got := br.attrs(t, "pre code.language-solidity .tok-kw", "class"); len(got) == 0 {
		t.Error("the verified source is not highlighted")
	}
	// balanceOf(recipient), called from the page through the node's JSON-RPC.
	sel := `[data-method="balanceOf"]`
	br.run(t, "call balanceOf",
		chromedp.SendKeys(chromedp.CSS(sel+` input[name="arg0"]`), w.recipient.Hex()),
		chromedp.Click(chromedp.CSS(sel+` button[type="submit"]`)),
		chromedp.WaitNotPresent(chromedp.JSPath(`[...document.querySelectorAll('`+sel+` [data-field="result"]')].filter(e => e.textContent === "" || e.textContent === "…")`)))
	want := n.tokenBalance(t, contracts.MustLoad("EmberToken"), w.token20, w.recipient)
	br.expect(t, sel+` [data-field="result"]`, want.String())
	// A read method without inputs shows its value as the page opens.
	br.expect(t, `[data-method="totalSupply"] [data-field="result"]`, w.supply.String())
	br.shot(t, "contract")
	br.noErrors(t, "contract")

	checkWebABIForms(t, n, br, base, w)
}

// shapesPoint is Shapes.Point, as go-ethereum's ABI decoder fills it.
type shapesPoint struct {
	X, Y  int64
	Label string
}

// checkWebABIForms calls Shapes' read methods whose arguments and results
// are arrays and structs from the page, typed as lists, and compares what
// the page shows with eth_call's answer decoded by go-ethereum.
func checkWebABIForms(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	shapes := contracts.MustLoad("Shapes")
	call := func(method string, args ...any) []any {
		out, err := n.Eth.CallContract(ctx(t), ethereum.CallMsg{To: &w.shapes, Data: pack(t, shapes, method, args...)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := shapes.ABI.Unpack(method, out)
		if err != nil {
			t.Fatal(err)
		}
		return vals
	}
	var want []string
	d := call("describe", shapesPoint{3, -4, "origin, here"})
	want = append(want, fmt.Sprintf("%s, %v", d[0], d[1]))
	var scaled []shapesPoint
	if err := shapes.ABI.Methods["scale"].Outputs.Copy(&scaled, call("scale", []shapesPoint{{1, 2, "a"}, {-3, 4, "b"}}, int64(10))); err != nil {
		t.Fatal(err)
	}
	var items []string
	for _, p := range scaled {
		items = append(items, fmt.Sprintf("[%d, %d, %q]", p.X, p.Y, p.Label))
	}
	want = append(want, "["+strings.Join(items, ", ")+"]")
	s := call("sums", [][2]*big.Int{{big.NewInt(1), big.NewInt(2)}, {big.NewInt(3), big.NewInt(4)}})
	want = append(want, strings.ReplaceAll(fmt.Sprint(s[0]), " ", ", "))

	br.open(t, base+"/address/"+w.shapes.Hex())
	br.run(t, "contract tab", chromedp.Click(chromedp.CSS("#tab-contract")))
	for i, c := range []struct {
		method string
		args   []string
	}{
		{"describe", []string{`[3, -4, "origin, here"]`}},
		{"scale", []string{`[[1, 2, "a"], [-3, 4, "b"]]`, "10"}},
		{"sums", []string{`[[1, 2], [3, 4]]`}},
	} {
		sel := `[data-method="` + c.method + `"]`
		var actions []chromedp.Action[chromedp.Void]
		for j, a := range c.args {
			actions = append(actions, chromedp.SendKeys(chromedp.CSS(fmt.Sprintf(`%s input[name="arg%d"]`, sel, j)), a))
		}
		actions = append(actions, chromedp.Click(chromedp.CSS(sel+` button[type="submit"]`)),
			chromedp.WaitNotPresent(chromedp.JSPath(`[...document.querySelectorAll('`+sel+` [data-field="result"]')].filter(e => e.textContent === "" || e.textContent === "…")`)))
		br.run(t, "call "+c.method, actions...)
		br.expect(t, sel+` [data-field="result"]`, want[i])
	}
	br.shot(t, "contract-abi")
	br.noErrors(t, "abi forms")
}

func checkWebTokens(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	erc20 := contracts.MustLoad("EmberToken")
	br.open(t, base+"/token/"+w.token20.Hex())
	br.expect(t, `[data-field="type"]`, "ERC-20")
	br.expect(t, `[data-field="name"]`, "Ember Token")
	br.expect(t, `[data-field="symbol"]`, "EMB")
	br.expect(t, `[data-field="total-supply"]`, units(n.viewUint(t, erc20, w.token20, "totalSupply"), 18))
	br.expect(t, `[data-field="holders-count"]`, "2")   // a and the recipient
	br.expect(t, `[data-field="transfers-count"]`, "2") // the mint, the transfer
	br.run(t, "holders tab", chromedp.Click(chromedp.CSS("#tab-holders")))
	if got := br.attrs(t, "#panel-holders tbody a[data-address]", "data-address"); strings.Join(got, " ") != w.a.Address.Hex()+" "+w.recipient.Hex() {
		t.Errorf("holders %v", got)
	}
	br.shot(t, "token")
	br.noErrors(t, "token erc20")

	br.open(t, base+"/token/"+w.nft.Hex())
	br.expect(t, `[data-field="type"]`, "ERC-721")
	br.expect(t, `[data-field="holders-count"]`, "1")
	br.run(t, "inventory", chromedp.Click(chromedp.CSS("#tab-inventory")))
	if got := br.attrs(t, "#panel-inventory [data-instance] img", "alt"); len(got) != 1 || got[0] != "Image of "+w.nftName {
		t.Errorf("inventory images %v", got)
	}
	br.noErrors(t, "token erc721")

	br.open(t, base+"/token/"+w.nft.Hex()+"/instance/1")
	owner := common.BigToAddress(n.viewUint(t, contracts.MustLoad("EmberMetaNFT"), w.nft, "ownerOf", big.NewInt(1)))
	br.expect(t, `[data-field="owner-hex"]`, owner.Hex())
	if got := br.attrs(t, `img[data-field="image"]`, "src"); len(got) != 1 || got[0] != w.nftImage {
		t.Errorf("instance image %v", got)
	}
	br.expect(t, "h1", w.nftName)
	if got := br.text(t, `[data-field="metadata"]`); !strings.Contains(got, `"trait_type": "color"`) {
		t.Errorf("metadata %q", got)
	}
	br.shot(t, "nft-instance")
	br.noErrors(t, "instance")

	multi := contracts.MustLoad("EmberMultiToken")
	br.open(t, base+"/token/"+w.multi.Hex())
	br.expect(t, `[data-field="type"]`, "ERC-1155")
	br.run(t, "holders tab", chromedp.Click(chromedp.CSS("#tab-holders")))
	var want []string
	for _, id := range []int64{2, 1} {
		want = append(want, n.balance1155(t, multi, w.multi, w.a.Address, id).String())
	}
	if got := texts(t, br, "#panel-holders tbody td.num"); strings.Join(got, " ") != strings.Join(want, " ") && strings.Join(got, " ") != want[1]+" "+want[0] {
		t.Errorf("ERC-1155 holder balances %v, want %v", got, want)
	}
	br.noErrors(t, "token erc1155")
}

// texts reads the text of every element matching sel.
func texts(t *testing.T, br *browser, sel string) []string {
	t.Helper()
	br.run(t, "wait for "+sel, chromedp.WaitReady(chromedp.CSS(sel)))
	return get(t, br, "texts "+sel, chromedp.Evaluate[[]string](fmt.Sprintf(`[...document.querySelectorAll(%q)].map(e => e.textContent.trim())`, sel)))
}

func checkWebLists(t *testing.T, n *Node, br *browser, base string, w *webChain, head uint64) {
	br.open(t, base+"/blocks")
	if got := br.text(t, "tbody tr td a"); got != strconv.FormatUint(head, 10) {
		t.Errorf("blocks list starts at %q, want %d", got, head)
	}
	br.shot(t, "blocks")
	br.noErrors(t, "blocks")
	checkWebTxsList(t, n, br, base, w, head)
	br.open(t, base+"/tokens")
	got := br.attrs(t, `tbody a[href^="/token/"]`, "href")
	for _, tok := range []common.Address{w.token20, w.nft, w.multi} {
		if !strings.Contains(strings.Join(got, " "), "/token/"+tok.Hex()) {
			t.Errorf("tokens list %v lacks %s", got, tok.Hex())
		}
	}
	br.shot(t, "tokens")
	br.noErrors(t, "tokens")
	br.open(t, base+"/verified-contracts")
	// Newest verification first.
	if got, want := br.attrs(t, "tbody a[data-address]", "data-address"), []string{w.shapes.Hex(), w.token20.Hex()}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("verified contracts %v, want %v", got, want)
	}
	br.shot(t, "verified-contracts")
	br.noErrors(t, "verified contracts")
}

// checkWebTxsList: /txs counts the chain's transactions as the home page
// does, split into EVM (from the JSON-RPC's blocks) and native (the rest),
// and lists each kind newest first in its tab.
func checkWebTxsList(t *testing.T, n *Node, br *browser, base string, w *webChain, head uint64) {
	total, _ := n.allTxCounts(t, head, 0)
	evm := uint64(0)
	for h := uint64(0); h <= head; h++ {
		b, err := n.Eth.BlockByNumber(ctx(t), new(big.Int).SetUint64(h))
		if err != nil {
			t.Fatal(err)
		}
		evm += uint64(len(b.Transactions()))
	}
	if total-evm != 3 { // the bank send, the create-validator, the delegation
		t.Fatalf("the chain has %d native transactions, the web chain made 3", total-evm)
	}
	var c struct {
		EVM    string `json:"evm_transactions_count"`
		Native string `json:"native_transactions_count"`
		Total  string `json:"transactions_count"`
	}
	n.explorerJSON(t, nil, "", "/api/v2/native-transactions/counters", &c)
	if c.Total != fmt.Sprint(total) || c.EVM != fmt.Sprint(evm) || c.Native != "3" {
		t.Errorf("counters %+v; the chain has %d: %d EVM, 3 native", c, total, evm)
	}
	br.open(t, base+"/txs")
	br.expect(t, `[data-field="txs-total"]`, grouped(total))
	br.expect(t, `[data-field="txs-evm"]`, grouped(evm))
	br.expect(t, `[data-field="txs-native"]`, "3")
	if got := br.attrs(t, `#panel-evm tbody a[href^="/tx/"]`, "title"); len(got) == 0 || got[0] != w.transfer.TxHash.Hex() {
		t.Errorf("EVM txs list starts %v, want %s", got, w.transfer.TxHash.Hex())
	}
	br.shot(t, "txs")
	br.run(t, "native tab", chromedp.Click(chromedp.CSS("#tab-native")), chromedp.WaitVisible(chromedp.CSS("#panel-native tbody")))
	want := []string{}
	for _, x := range []*coretypes.ResultTx{w.nativeDelegate, w.nativeStake, w.nativeSend} {
		want = append(want, "0x"+strings.ToLower(x.Hash.String()))
	}
	if got := br.attrs(t, `#panel-native tbody a[href^="/tx/"]`, "title"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("native txs list %v, want %v", got, want)
	}
	br.shot(t, "txs-native")
	br.noErrors(t, "txs")
}

func checkWebValidators(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	set := cometValidators(t, n)
	br.open(t, base+"/validators")
	ops := texts(t, br, `[data-field="operator-bech32"]`)
	powers := texts(t, br, `[data-field="voting-power"]`)
	if len(ops) != len(set) || len(powers) != len(set) {
		t.Fatalf("validators page lists %v %v, CometBFT has %v", ops, powers, set)
	}
	p := accounts.NewPrefixes("ember")
	want, _ := p.Encode(accounts.KindValidator, w.validatorOp[:])
	found := false
	for i, op := range ops {
		if op == want {
			found = true
			if !strings.HasPrefix(powers[i], strconv.FormatInt(set[w.validatorCons], 10)+" (") {
				t.Errorf("new validator power %q, CometBFT says %d", powers[i], set[w.validatorCons])
			}
		}
	}
	if !found {
		t.Errorf("validators %v lack %s", ops, want)
	}
	br.shot(t, "validators")
	br.noErrors(t, "validators")
}

func checkWebSearch(t *testing.T, n *Node, br *browser, base string, w *webChain, head uint64) {
	blk := w.transfer.BlockNumber.String()
	blkHash := w.transfer.BlockHash.Hex()
	height := w.nativeSend.Height
	cmt, err := n.cometClient(t).Block(ctx(t), &height)
	if err != nil {
		t.Fatal(err)
	}
	evm, err := n.Eth.HeaderByNumber(ctx(t), big.NewInt(height))
	if err != nil {
		t.Fatal(err)
	}
	native := "0x" + strings.ToLower(w.nativeSend.Hash.String())
	operator, _ := accounts.NewPrefixes("ember").Encode(accounts.KindValidator, w.validatorOp[:])
	// An exact match opens its page, from a shared results link too.
	for q, want := range map[string]string{
		blk:                                   "/block/" + blk,
		blkHash:                               "/block/" + blkHash,
		cmt.BlockID.Hash.String():             "/block/" + evm.Hash().Hex(), // CometBFT's spelling: no 0x, upper case
		w.nativeSend.Hash.String():            "/tx/" + native,
		native:                                "/tx/" + native,
		w.transfer.TxHash.Hex():               "/tx/" + w.transfer.TxHash.Hex(),
		w.a.Address.Hex():                     "/address/" + w.a.Address.Hex(),
		accounts.Bech32("ember", w.a.Address): "/address/" + w.a.Address.Hex(),
		operator:                              "/address/" + w.validatorOp.Hex(),
	} {
		br.open(t, base+"/search-results?q="+q)
		waitAt(t, br, base+want)
		br.noErrors(t, "search "+q)
	}
	// Names list what they match: tokens, verified contracts.
	for q, want := range map[string]string{
		"Ember Token": "/token/" + w.token20.Hex(),
		"EMB":         "/token/" + w.token20.Hex(),
		"shapes":      "/address/" + w.shapes.Hex(),
		"EmberTok":    "/address/" + w.token20.Hex(), // the verified contract EmberToken
	} {
		br.open(t, base+"/search-results?q="+strings.ReplaceAll(q, " ", "+"))
		if got := br.attrs(t, "#search-results a", "href"); !strings.Contains(" "+strings.Join(got, " ")+" ", " "+want+" ") {
			t.Errorf("search %q: results %v, want %s", q, got, want)
		}
		br.noErrors(t, "search "+q)
	}
	br.open(t, base+"/search-results?q=EmberTok")
	if got := br.text(t, "#search-results li:last-child a"); got != "Contract EmberToken "+w.token20.Hex() {
		t.Errorf("contract hit reads %q", got)
	}
	if got := get(t, br, "header box value", chromedp.Evaluate[string](`document.querySelector('header input[name="q"]').value`)); got != "EmberTok" {
		t.Errorf("header box holds %q on the results page, want the query", got)
	}
	br.shot(t, "search-results")
	// The header's box, on any page: Enter on an exact match goes
	// straight to it.
	for _, page := range []string{"/blocks", "/address/" + w.a.Address.Hex(), "/tx/" + w.transfer.TxHash.Hex()} {
		br.open(t, base+page)
		br.run(t, "header search on "+page, chromedp.SendKeys(chromedp.CSS(`header input[name="q"]`), w.reverted.TxHash.Hex()), pressEnter)
		waitAt(t, br, base+"/tx/"+w.reverted.TxHash.Hex())
		br.expect(t, `[data-field="hash"]`, w.reverted.TxHash.Hex())
	}
	// It suggests as one types; arrow down and Enter go.
	br.open(t, base+"/")
	br.run(t, "type a tx hash",
		chromedp.SendKeys(chromedp.CSS(`input[name="q"]`), w.transfer.TxHash.Hex()),
		chromedp.WaitVisible(chromedp.JSPath(`[...document.querySelectorAll("#search-suggestions li")].filter(li => li.textContent.includes("`+w.transfer.TxHash.Hex()+`"))`)))
	br.run(t, "pick it", chromedp.SendKeys(chromedp.CSS(`input[name="q"]`), kb.ArrowDown),
		chromedp.WaitVisible(chromedp.CSS(`#search-suggestions li[aria-selected="true"]`)),
		pressEnter,
		chromedp.WaitVisible(chromedp.CSS(`[data-field="hash"]`)))
	br.expect(t, `[data-field="hash"]`, w.transfer.TxHash.Hex())
	br.open(t, base+"/search-results?q=nothing-like-this")
	br.expect(t, `[data-field="no-results"]`, "Nothing matches “nothing-like-this”.")
	br.noErrors(t, "search box")
}

// checkWebPaging: an address's transactions a page at a time, the pages
// in the URL: Next, Back, Forward, a shared link of page 2 and its
// Previous each show the API's rows; each row has its age (the API's
// timestamp in the title) and a copy button beside every hash.
func checkWebPaging(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	type row struct {
		Hash      string `json:"hash"`
		Timestamp string `json:"timestamp"`
		From      struct {
			Hash string `json:"hash"`
		} `json:"from"`
	}
	var p1, p2 struct {
		Items []row          `json:"items"`
		Next  map[string]any `json:"next_page_params"`
	}
	path := "/api/v2/addresses/" + w.pageTo.Hex() + "/transactions"
	n.explorerJSON(t, nil, "", path, &p1)
	if len(p1.Items) != 50 || p1.Next == nil {
		t.Fatalf("page 1: %d rows, next %v", len(p1.Items), p1.Next)
	}
	q := url.Values{}
	for k, v := range p1.Next {
		q.Set(k, fmt.Sprint(v))
	}
	n.explorerJSON(t, nil, "", path+"?"+q.Encode(), &p2)
	if len(p2.Items) != webPageRows-50 || p2.Next != nil {
		t.Fatalf("page 2: %d rows, next %v", len(p2.Items), p2.Next)
	}
	hashes := func(rows []row) string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Hash)
		}
		return strings.Join(out, " ")
	}
	rows := `#panel-transactions tbody a[href^="/tx/"]`
	shows := func(what string, want []row, page string) {
		t.Helper()
		// Back and Forward within the page return before the list has
		// loaded its page: wait for it, then read.
		get(t, br, what+": page "+page, chromedp.Poll[bool](fmt.Sprintf(`(() => {
			const e = document.querySelector('#panel-transactions [data-field="page-number"]');
			return !!e && e.textContent === %q && !document.querySelector('#panel-transactions .paged[aria-busy]');
		})()`, "Page "+page)))
		if got := strings.Join(br.attrs(t, rows, "title"), " "); got != hashes(want) {
			t.Errorf("%s: rows\n%s\nwant\n%s", what, got, hashes(want))
		}
	}
	addrURL := base + "/address/" + w.pageTo.Hex()
	br.open(t, addrURL)
	shows("page 1", p1.Items, "1")
	// Age and copy buttons, row by row.
	ages := get(t, br, "ages", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#panel-transactions tbody td.age time")].map(e => e.getAttribute("title") + "|" + e.textContent)`))
	agePattern := regexp.MustCompile(`^\d+ (s|min|h|d) ago$`)
	for i, a := range ages {
		title, text, _ := strings.Cut(a, "|")
		if i >= len(p1.Items) || title != p1.Items[i].Timestamp || !agePattern.MatchString(text) {
			t.Errorf("row %d age %q (title %q), want the API's %s as \"N s ago\"", i, text, title, p1.Items[i].Timestamp)
		}
	}
	if len(ages) != 50 {
		t.Errorf("%d ages for 50 rows", len(ages))
	}
	uncopied := get(t, br, "copy buttons", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#panel-transactions tbody a.hash')]
		.filter(a => { const b = a.nextElementSibling; return !b || !b.matches("button.copy") || b.dataset.copy !== a.getAttribute("title"); })
		.map(a => a.getAttribute("title"))`))
	if len(uncopied) > 0 {
		t.Errorf("hashes without their copy button: %v", uncopied)
	}
	br.run(t, "next", chromedp.Click(chromedp.CSS(`#panel-transactions [data-page-link="Next"]`)))
	shows("after Next", p2.Items, "2")
	page2 := get(t, br, "page 2 URL", chromedp.Location())
	if !strings.Contains(page2, "?transactions=") {
		t.Errorf("page 2 is not in the URL: %s", page2)
	}
	br.run(t, "back", chromedp.NavigateBack())
	shows("after Back", p1.Items, "1")
	if loc := get(t, br, "URL", chromedp.Location()); strings.SplitN(loc, "#", 2)[0] != addrURL {
		t.Errorf("Back went to %s, want %s", loc, addrURL)
	}
	br.run(t, "forward", chromedp.NavigateForward())
	shows("after Forward", p2.Items, "2")
	// A shared link of page 2, and its Previous.
	br.open(t, "about:blank")
	br.open(t, page2)
	shows("shared link", p2.Items, "2")
	br.run(t, "previous", chromedp.Click(chromedp.CSS(`#panel-transactions [data-page-link="Previous"]`)))
	shows("after Previous", p1.Items, "1")
	br.shot(t, "paging")
	br.noErrors(t, "paging")
}

// checkWebCSV: the address page's CSV links; each file's rows are the
// API's values: a's transactions (all of them, newest first) and the
// recipient's token transfer (the amount to the wei, the tx's fee).
func checkWebCSV(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	br.open(t, base+"/address/"+w.a.Address.Hex())
	today := time.Now().UTC().Format(time.DateOnly)
	links := br.attrs(t, `[data-field="csv-export"] a[data-csv]`, "href")
	wantLinks := []string{
		"/api/v2/addresses/" + w.a.Address.Hex() + "/transactions/csv?from_period=1970-01-01&to_period=" + today,
		"/api/v2/addresses/" + w.a.Address.Hex() + "/token-transfers/csv?from_period=1970-01-01&to_period=" + today,
	}
	if strings.Join(links, " ") != strings.Join(wantLinks, " ") {
		t.Fatalf("CSV links %v, want %v", links, wantLinks)
	}
	readCSV := func(path string) [][]string {
		t.Helper()
		status, body := n.explorerGet(t, path)
		if status != 200 {
			t.Fatalf("GET %s: %d %s", path, status, body)
		}
		rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return rows
	}
	rows := readCSV(wantLinks[0])
	nonce, err := n.Eth.NonceAt(ctx(t), w.a.Address, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+int(nonce) { // a sent every one of its transactions
		t.Fatalf("%d rows, a sent %d transactions", len(rows)-1, nonce)
	}
	var list struct {
		Items []struct {
			Hash      string `json:"hash"`
			Value     string `json:"value"`
			Status    string `json:"status"`
			Timestamp string `json:"timestamp"`
			Block     uint64 `json:"block_number"`
			Fee       struct {
				Value string `json:"value"`
			} `json:"fee"`
		} `json:"items"`
	}
	n.explorerJSON(t, nil, "", "/api/v2/addresses/"+w.a.Address.Hex()+"/transactions", &list)
	for i, it := range list.Items {
		ts, _ := time.Parse(time.RFC3339, it.Timestamp)
		r := rows[1+i]
		if r[0] != it.Hash || r[1] != fmt.Sprint(it.Block) || r[2] != fmt.Sprint(ts.Unix()) || r[3] != strings.ToLower(w.a.Address.Hex()) ||
			r[6] != "OUT" || r[7] != it.Value || r[8] != it.Fee.Value || r[9] != it.Status {
			t.Errorf("row %d %v, the API says %+v", i, r, it)
		}
	}
	// The last transfer's receipt: its fee to the wei.
	last := rows[1]
	rc := w.transfer
	fee := new(big.Int).Mul(new(big.Int).SetUint64(rc.GasUsed), rc.EffectiveGasPrice)
	if last[0] != rc.TxHash.Hex() || last[8] != fee.String() || last[14] != "transfer" {
		t.Errorf("newest row %v; want %s, fee %v, method transfer", last, rc.TxHash.Hex(), fee)
	}
	rows = readCSV("/api/v2/addresses/" + w.recipient.Hex() + "/token-transfers/csv?from_period=1970-01-01&to_period=" + today)
	want := []string{rc.TxHash.Hex(), rc.BlockNumber.String(), "", strings.ToLower(w.a.Address.Hex()), strings.ToLower(w.recipient.Hex()),
		strings.ToLower(w.token20.Hex()), "IN", "EMB", webTokenAmount.String(), fee.String(), "ok", "", ""}
	if len(rows) != 2 {
		t.Fatalf("recipient's transfers: %v", rows)
	}
	want[2] = rows[1][2] // the time: checked against the block's below
	if strings.Join(rows[1], ",") != strings.Join(want, ",") {
		t.Errorf("recipient's transfer\n%v\nwant\n%v", rows[1], want)
	}
	hdr, err := n.Eth.HeaderByNumber(ctx(t), rc.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if rows[1][2] != fmt.Sprint(hdr.Time) {
		t.Errorf("transfer time %s, block time %d", rows[1][2], hdr.Time)
	}
	br.noErrors(t, "csv")
}

// checkWebTitles: the title bar names the object with its hash in full.
func checkWebTitles(t *testing.T, br *browser, base string, w *webChain) {
	blk := w.transfer.BlockNumber.String()
	for path, want := range map[string]string{
		"/tx/" + w.transfer.TxHash.Hex():                       "Transaction " + w.transfer.TxHash.Hex() + " · Ember",
		"/block/" + blk:                                        "Block " + blk + " " + w.transfer.BlockHash.Hex() + " · Ember",
		"/address/" + w.recipient.Hex():                        "Address " + w.recipient.Hex() + " · Ember",
		"/address/" + w.shapes.Hex():                           "Contract Shapes " + w.shapes.Hex() + " · Ember",
		"/tx/0x" + strings.ToLower(w.nativeSend.Hash.String()): "Native transaction 0x" + strings.ToLower(w.nativeSend.Hash.String()) + " · Ember",
	} {
		br.open(t, base+path)
		get(t, br, "wait for the title of "+path, chromedp.Poll[bool](fmt.Sprintf("document.title === %q", want)))
		br.noErrors(t, "title "+path)
	}
}

// waitAt waits until the browser is at url (a redirect done by the page)
// and the page there has loaded.
func waitAt(t *testing.T, br *browser, url string) {
	t.Helper()
	var loc string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(br.ctx, 2*time.Second)
		loc, _ = chromedp.Run(ctx, chromedp.Location())
		cancel()
		if strings.SplitN(loc, "#", 2)[0] == url {
			br.run(t, "load "+url, chromedp.WaitNotPresent(chromedp.CSS("main > p.loading")))
			return
		}
	}
	t.Fatalf("at %s, want %s", loc, url)
}

var apiNotFound = regexp.MustCompile(`404`)

// pressEnter sends Enter as a person's keyboard does: SendKeys adds a
// separate char event, which a keydown handler that cancels the default
// cannot stop (chromedp's SendKeys documentation).
var pressEnter = chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{
			Type: typ, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13,
		}); err != nil {
			return err
		}
	}
	return nil
})

func checkWebNotFound(t *testing.T, n *Node, br *browser, base string) {
	for path, status := range map[string]int{
		"/tx/0x12":                               404,
		"/block/x":                               404,
		"/nothing/here":                          404,
		"/tx/0x" + strings.Repeat("0", 63) + "1": 200, // well-formed: the page asks the API
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != status || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("GET %s: %d %s, want %d HTML", path, resp.StatusCode, resp.Header.Get("Content-Type"), status)
		}
		br.open(t, base+path)
		if got := br.text(t, "h1"); got != "Not found" {
			t.Errorf("%s shows %q", path, got)
		}
		// The unknown tx's API answer is a 404 the browser logs.
		br.noErrors(t, "not found "+path, apiNotFound)
	}
	br.shot(t, "not-found")
}

// checkWebClicks follows links as a person would: the newest block on
// home, its transaction, the transaction's token contract, its token page.
func checkWebClicks(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	blk := w.transfer.BlockNumber.String()
	br.open(t, base+"/")
	br.run(t, "home → block", chromedp.Click(chromedp.CSS(`#latest-blocks a[href="/block/`+blk+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-field="height"]`)))
	br.expect(t, `[data-field="height"]`, blk)
	br.run(t, "block → tx", chromedp.Click(chromedp.CSS(`#panel-transactions a[href="/tx/`+w.transfer.TxHash.Hex()+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-field="hash"]`)))
	br.expect(t, `[data-field="hash"]`, w.transfer.TxHash.Hex())
	br.run(t, "tx → address", chromedp.Click(chromedp.CSS(`a[data-field="to-hex"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-field="token"] a`)))
	br.expect(t, `[data-field="address-hex"]`, w.token20.Hex())
	br.run(t, "address → token", chromedp.Click(chromedp.CSS(`[data-field="token"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-field="total-supply"]`)))
	if loc, _, _ := strings.Cut(get(t, br, "location", chromedp.Location()), "#"); loc != base+"/token/"+w.token20.Hex() {
		t.Errorf("ended at %s", loc)
	}
	br.noErrors(t, "click path")
}

// checkWebLive: with home open, a new block shows up in the latest blocks
// without a reload (the page polls each second; the time it took is
// logged, not asserted).
func checkWebLive(t *testing.T, n *Node, br *browser, base string) {
	br.open(t, base+"/")
	get(t, br, "mark the page", chromedp.Evaluate[int](`window.emberStay = 1`))
	to := common.HexToAddress("0x00000000000000000000000000000000000011fe")
	r := n.WaitReceipt(t, n.send(t, devKeys[2].Private, txOpts{To: &to, Value: big.NewInt(1)}).Hash())
	committed := time.Now()
	br.run(t, "new block on home", chromedp.WaitVisible(chromedp.CSS(`#latest-blocks [data-block="`+r.BlockNumber.String()+`"]`)))
	t.Logf("block %s appeared on home %v after its receipt", r.BlockNumber, time.Since(committed).Round(time.Millisecond))
	if stay := get(t, br, "marker", chromedp.Evaluate[int](`window.emberStay || 0`)); stay != 1 {
		t.Error("home reloaded to show the new block")
	}
	br.noErrors(t, "live home")
}

// contrastJS lists the text of the page whose colour contrast with its
// background is under WCAG AA (4.5:1, or 3:1 for large text), and every
// image without an alt attribute.
const contrastJS = `(() => {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
  const bg = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || c[3] > 0.9) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const bad = [];
  for (const el of document.querySelectorAll("body *")) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const st = getComputedStyle(el);
    if (st.visibility === "hidden" || st.display === "none" || el.closest("[hidden], .visually-hidden, svg")) continue;
    const a = lum(rgb(st.color)), b = lum(bg(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const size = parseFloat(st.fontSize), large = size >= 24 || (size >= 18.66 && Number(st.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) bad.push(el.tagName + " '" + el.textContent.trim().slice(0, 30) + "' " + ratio.toFixed(2));
  }
  for (const img of document.querySelectorAll("img:not([alt])")) bad.push("img without alt: " + img.src.slice(0, 40));
  return bad;
})()`

// checkWebAccess: at phone width nothing scrolls sideways; in both themes
// text meets WCAG AA contrast and images have alt texts; the theme toggle
// switches and is remembered.
func checkWebAccess(t *testing.T, br *browser, base string, w *webChain) {
	pages := []string{"/", "/block/" + w.transfer.BlockNumber.String(), "/tx/" + w.transfer.TxHash.Hex(),
		"/tx/0x" + strings.ToLower(w.nativeSend.Hash.String()), "/address/" + w.a.Address.Hex(), "/address/" + w.shapes.Hex() + "#contract",
		"/token/" + w.nft.Hex(), "/token/" + w.nft.Hex() + "/instance/1", "/search-results?q=EMB", "/validators"}
	for _, theme := range []string{"light", "dark"} {
		for _, p := range pages {
			br.open(t, base+p)
			if got := get(t, br, "theme", chromedp.Evaluate[string](`document.documentElement.dataset.theme || ""`)); got != theme && !(theme == "light" && got == "") {
				br.run(t, "toggle theme", chromedp.Click(chromedp.CSS("#theme-toggle")))
			}
			if got := get(t, br, "theme", chromedp.Evaluate[string](`document.documentElement.dataset.theme || "light"`)); got != theme {
				t.Fatalf("%s: theme %s, want %s", p, got, theme)
			}
			if bad := get(t, br, "contrast", chromedp.Evaluate[[]string](contrastJS)); len(bad) > 0 {
				t.Errorf("%s (%s): %v", p, theme, bad)
			}
		}
	}
	br.shot(t, "validators-dark") // the last page, in the dark theme
	// The choice is kept: a new page opens dark.
	br.open(t, base+"/")
	if got := get(t, br, "theme", chromedp.Evaluate[string](`document.documentElement.dataset.theme || ""`)); got != "dark" {
		t.Errorf("theme after reload %q, want dark", got)
	}
	br.run(t, "back to light", chromedp.Click(chromedp.CSS("#theme-toggle")))

	br.run(t, "phone", chromedp.EmulateViewport(390, 844))
	for _, p := range pages {
		br.open(t, base+p)
		if over := get(t, br, "overflow", chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); over > 0 {
			t.Errorf("%s at 390 px: %d px wider than the screen", p, over)
		}
	}
	br.shot(t, "validators-phone") // the last page, at phone width
	br.run(t, "desktop", chromedp.EmulateViewport(1280, 900))
	br.noErrors(t, "access")
}

// checkWebRPCExplorer: `emberd explorer --rpc URL` serves the same pages
// for a chain it indexes over JSON-RPC.
func checkWebRPCExplorer(t *testing.T, n *Node, br *browser, w *webChain) {
	rx := startRPCExplorer(t, "http://"+n.HTTP, "--comet", "http://"+n.CometRPC)
	head := n.settledHead(t, map[string]string{"rpc": rx})
	base := "http://" + rx
	br.open(t, base+"/")
	br.run(t, "home", chromedp.WaitVisible(chromedp.CSS("#latest-blocks [data-block]")))
	total, _ := n.allTxCounts(t, head, 0)
	br.expect(t, `[data-field="total-transactions"]`, grouped(total)) // native ones included, read over --comet
	checkWebTx(t, n, br, base, w.transfer.TxHash, head)
	// The native bank send, read from CometBFT's block and block_results.
	br.open(t, base+"/tx/0x"+strings.ToLower(w.nativeSend.Hash.String()))
	br.expect(t, `[data-msg="0"] [data-field="msg-type"]`, "/cosmos.bank.v1beta1.MsgSend")
	br.expect(t, `[data-msg="0"] [data-field="msg-amount"]`, coinText(w.nativeAmount))
	br.expect(t, `[data-msg="0"] [data-field="msg-to-hex"]`, w.nativeTo.Hex())
	br.open(t, base+"/address/"+w.a.Address.Hex())
	bal, err := n.Eth.BalanceAt(ctx(t), w.a.Address, nil)
	if err != nil {
		t.Fatal(err)
	}
	br.expect(t, `[data-field="balance"]`, coinText(bal))
	br.open(t, base+"/validators")
	if ops := texts(t, br, `[data-field="operator-bech32"]`); len(ops) != len(cometValidators(t, n)) {
		t.Errorf("validators over JSON-RPC: %v", ops)
	}
	br.noErrors(t, "rpc explorer")
}

// checkWebVerify uploads the token's metadata and sources through the
// contract page's form, as a person picks files, and sees it verified.
func checkWebVerify(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	dir := t.TempDir()
	var paths []string
	i := 0
	for name, content := range artifactFiles(contracts.MustLoad("EmberToken")) {
		file, _, _ := strings.Cut(name, "@")
		sub := filepath.Join(dir, strconv.Itoa(i)) // base names may repeat
		i++
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(sub, file)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	br.open(t, base+"/address/"+w.twin.Hex()+"#contract")
	br.expect(t, `p[data-field="verified"]`, "This contract's source is not verified.")
	br.run(t, "verify", chromedp.SetUploadFiles(chromedp.CSS("#verify-files"), paths),
		chromedp.Click(chromedp.CSS(`#verify-files ~ button[type="submit"]`)),
		// The page reloads on success and shows the match.
		chromedp.WaitVisible(chromedp.CSS(`dd[data-field="verified"] .badge`)))
	br.expect(t, `dd[data-field="verified"]`, "full match")
	br.noErrors(t, "verify form")
}

// walletJS is an EIP-1193 provider as a browser wallet injects one, which
// forwards to the dev node's JSON-RPC (its accounts are unlocked there).
const walletJS = `window.ethereum = { isEmberTest: true, request: async ({ method, params }) => {
  const res = await fetch(%q, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: method === "eth_requestAccounts" ? "eth_accounts" : method, params: params || [] }) });
  const j = await res.json();
  if (j.error) throw new Error(j.error.message);
  return j.result;
} };`

// checkWebWallet sends approve(spender, 777) from the token's page through
// the injected wallet and reads the allowance from the chain.
func checkWebWallet(t *testing.T, n *Node, br *browser, base string, w *webChain) {
	added := get(t, br, "inject wallet", chromedp.Action[*page.AddScriptToEvaluateOnNewDocumentResult](func(ctx context.Context, tg *chromedp.Target) (*page.AddScriptToEvaluateOnNewDocumentResult, error) {
		r, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fmt.Sprintf(walletJS, "http://"+n.HTTP)})
		return &r, err
	}))
	defer br.run(t, "remove wallet", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: added.Identifier})
		return err
	}))
	spender := common.HexToAddress("0x00000000000000000000000000000000005e9de7")
	br.open(t, base+"/address/"+w.token20.Hex()+"#contract")
	sel := `#write-methods [data-method="approve"]`
	br.run(t, "approve through the wallet",
		chromedp.SendKeys(chromedp.CSS(sel+` input[name="arg0"]`), spender.Hex()),
		chromedp.SendKeys(chromedp.CSS(sel+` input[name="arg1"]`), "777"),
		chromedp.Click(chromedp.CSS(sel+` button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(sel+` [data-field="result"] a`)))
	hash := common.HexToHash(br.text(t, sel+` [data-field="result"] a`))
	if r := n.WaitReceipt(t, hash); r.Status != 1 {
		t.Fatalf("approve from the page failed: %+v", r)
	}
	if got := n.viewUint(t, contracts.MustLoad("EmberToken"), w.token20, "allowance", devKeys[0].Address, spender); got.Int64() != 777 {
		t.Errorf("allowance after the page's approve: %v, want 777", got)
	}
	br.noErrors(t, "wallet write")
}

// checkWebTabs opens every tab of the pages that have tabs, by keyboard
// (arrow keys move between tabs): each draws its panel, without an error.
func checkWebTabs(t *testing.T, br *browser, base string, w *webChain) {
	for _, p := range []string{
		"/block/" + w.trace.receipt.BlockNumber.String(),
		"/tx/" + w.trace.tx.Hash().Hex(),
		"/tx/" + w.transfer.TxHash.Hex(),
		"/address/" + w.token20.Hex(),
		"/address/" + w.trace.tracee.Hex(),
		"/token/" + w.multi.Hex(),
		"/token/" + w.nft.Hex() + "/instance/1",
	} {
		br.open(t, base+p)
		tabs := br.attrs(t, `[role="tab"]`, "id")
		br.run(t, "focus the first tab", chromedp.Focus(chromedp.CSS(`#`+tabs[0])), chromedp.Click(chromedp.CSS(`#`+tabs[0])))
		for i, id := range tabs {
			if i > 0 {
				br.run(t, "next tab", chromedp.KeyEvent(kb.ArrowRight))
			}
			panel := "#panel-" + strings.TrimPrefix(id, "tab-")
			br.run(t, p+" "+id, chromedp.WaitVisible(chromedp.CSS(panel)),
				chromedp.WaitNotPresent(chromedp.CSS(panel+` [role="status"], `+panel+` [aria-busy="true"]`)))
			if sel := get(t, br, "selected", chromedp.Evaluate[string](`document.activeElement.id`)); sel != id {
				t.Errorf("%s: focus on %q after the arrow key, want %s", p, sel, id)
			}
			if msg := get(t, br, "errors", chromedp.Evaluate[string](`[...document.querySelectorAll("`+panel+` .error")].map(e => e.textContent).join("; ")`)); msg != "" {
				t.Errorf("%s %s: %s", p, id, msg)
			}
		}
		br.noErrors(t, "tabs of "+p)
	}
}
