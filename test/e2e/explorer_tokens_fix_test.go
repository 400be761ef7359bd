package e2e

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/contracts"
	"github.com/emberchain/ember/explorer"
)

// TestExplorerTokensFixWeb drives the pages issue 35 found broken: an
// ERC-721 instance's attributes table, an ERC-1155 instance without
// attributes, the tx page's token id and amount columns, an ERC-1155 batch
// mint's summary, and a block holding only a native transaction (its count,
// fees and list), with the home counter and /txs saying what they count.
func TestExplorerTokensFixWeb(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--explorer.enable", "--empty-block-interval", "0")
	br := startBrowser(t)
	a, c := devKeys[6], devKeys[8]

	// ERC-721: a token whose metadata has attributes, then moved by
	// transferFrom.
	nft := contracts.MustLoad("EmberMetaNFT")
	token721 := n.deploy(t, a, nft)
	meta := `{"name":"Fix One","description":"A token with traits","attributes":[{"trait_type":"color","value":"red"},{"trait_type":"level","value":3}]}`
	n.call(t, a, token721, nft, "mint", a.Address, "data:application/json;base64,"+base64.StdEncoding.EncodeToString([]byte(meta)))
	move := n.call(t, a, token721, nft, "transferFrom", a.Address, c.Address, big.NewInt(1))

	// ERC-1155: a batch mint of three ids; their metadata has no attributes.
	multi := contracts.MustLoad("EmberMultiToken")
	token1155 := n.deploy(t, a, multi, `data:application/json,{"name":"Multi"}`)
	mint := n.call(t, a, token1155, multi, "mintBatch", a.Address,
		[]*big.Int{big.NewInt(1), big.NewInt(2), big.NewInt(3)}, []*big.Int{big.NewInt(100), big.NewInt(200), big.NewInt(300)})

	// A native bank send, alone in its block.
	nativeTo := common.BytesToAddress([]byte("fix-native-recipient"))
	raw, fee := signNative(t, n, devKeys[1].Private, nativeB.Send(devKeys[1].Address, nativeTo, big.NewInt(5)))
	send := deliver(t, n, raw)
	if send.TxResult.Code != 0 {
		t.Fatalf("MsgSend: %d %s", send.TxResult.Code, send.TxResult.Log)
	}
	sendBlock, err := n.Eth.BlockByNumber(ctx(t), big.NewInt(send.Height))
	if err != nil {
		t.Fatal(err)
	}
	if len(sendBlock.Transactions()) != 0 {
		t.Fatalf("block %d holds %d EVM txs besides the native send", send.Height, len(sendBlock.Transactions()))
	}
	n.settledHead(t, nil)
	st := openExplorerDB(t, n, "")
	for _, in := range []struct {
		token common.Address
		id    int64
	}{{token721, 1}, {token1155, 2}} {
		if got := waitStored(t, st, in.token, in.id, func(in *explorer.TokenInstance) bool { return in.Fetched }); got.MetadataError != nil {
			t.Fatalf("metadata of %s #%d: %s", in.token.Hex(), in.id, *got.MetadataError)
		}
	}
	base := "http://" + n.Explorer
	// mainText is what a reader sees of the page: no stray "null" nor a
	// node list spelled as text.
	mainText := func(t *testing.T, what string) string {
		t.Helper()
		text := get(t, br, "main text", chromedp.Evaluate[string](`document.getElementById("main").innerText`))
		for _, bad := range []string{"[object", "null"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s shows %q:\n%s", what, bad, text)
			}
		}
		return text
	}

	t.Run("erc721 instance", func(t *testing.T) {
		br.open(t, base+"/token/"+token721.Hex()+"/instance/1")
		br.expect(t, "h1", "Fix One")
		br.expect(t, `[data-field="token-id"]`, "1")
		br.expect(t, `[data-field="type"]`, "ERC-721")
		br.expect(t, `[data-field="owner-hex"]`, c.Address.Hex())
		br.expect(t, `[data-field="description"]`, "A token with traits")
		br.expect(t, `[data-field="instance-transfers"]`, "2") // the mint, the transferFrom
		if got := texts(t, br, `[data-field="attributes"] thead th`); strings.Join(got, "|") != "Trait|Value" {
			t.Errorf("attributes headers %v", got)
		}
		if got := texts(t, br, `[data-field="attributes"] tbody td`); strings.Join(got, "|") != "color|red|level|3" {
			t.Errorf("attributes %v, want color=red, level=3", got)
		}
		mainText(t, "ERC-721 instance")
		br.noErrors(t, "erc721 instance")
	})

	t.Run("erc1155 instance", func(t *testing.T) {
		br.open(t, base+"/token/"+token1155.Hex()+"/instance/2")
		br.expect(t, "h1", "Multi")
		br.expect(t, `[data-field="token-id"]`, "2")
		br.expect(t, `[data-field="type"]`, "ERC-1155")
		br.expect(t, `[data-field="instance-holders"]`, "1")
		br.expect(t, `[data-field="instance-supply"]`, "200")
		br.expect(t, `[data-field="instance-transfers"]`, "1")
		if got := br.text(t, `[data-field="metadata"]`); got != "{\n  \"name\": \"Multi\"\n}" {
			t.Errorf("metadata %q", got)
		}
		if text := mainText(t, "ERC-1155 instance"); strings.Contains(text, "Attributes") {
			t.Errorf("an attributes section without attributes:\n%s", text)
		}
		br.noErrors(t, "erc1155 instance")
	})

	t.Run("erc721 transfer tx", func(t *testing.T) {
		br.open(t, base+"/tx/"+move.TxHash.Hex())
		br.run(t, "token transfers tab", chromedp.Click(chromedp.CSS("#tab-token-transfers")))
		if got := texts(t, br, "#panel-token-transfers thead th"); strings.Join(got, "|") != "Type|From|To|Token|Token ID|Amount" {
			t.Errorf("token transfer headers %v", got)
		}
		br.expect(t, `#panel-token-transfers [data-field="transfer-token-id"]`, "#1")
		if got := texts(t, br, "#panel-token-transfers tbody td.num"); strings.Join(got, "|") != "—" {
			t.Errorf("ERC-721 transfer amount %v, want — (it moves one token)", got)
		}
		want := "Transfer EMETA #1 from " + pageShort(a.Address.Hex()) + " to " + pageShort(c.Address.Hex()) + "."
		br.expect(t, `[data-field="summary"] li`, want)
		br.noErrors(t, "erc721 tx")
	})

	t.Run("erc1155 batch mint tx", func(t *testing.T) {
		br.open(t, base+"/tx/"+mint.TxHash.Hex())
		var want []string
		for i, v := range []string{"100", "200", "300"} {
			want = append(want, fmt.Sprintf("Mint %s of %s #%d to %s.", v, pageShort(token1155.Hex()), i+1, pageShort(a.Address.Hex())))
		}
		if got := texts(t, br, `[data-field="summary"] li`); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("summary %q, want %q", got, want)
		}
		br.run(t, "token transfers tab", chromedp.Click(chromedp.CSS("#tab-token-transfers")))
		if got := texts(t, br, `#panel-token-transfers [data-field="transfer-token-id"]`); strings.Join(got, " ") != "#1 #2 #3" {
			t.Errorf("batch ids %v", got)
		}
		if got := texts(t, br, `#panel-token-transfers [data-field="transfer-amount"]`); strings.Join(got, " ") != "100 200 300" {
			t.Errorf("batch amounts %v", got)
		}
		mainText(t, "batch mint tx")
		br.noErrors(t, "erc1155 tx")
	})

	t.Run("native-only block", func(t *testing.T) {
		hash := "0x" + strings.ToLower(send.Hash.String())
		var ntx struct {
			Burnt string `json:"transaction_burnt_fee"`
		}
		n.explorerJSON(t, nil, "", "/api/v2/transactions/"+hash, &ntx)
		burnt, ok := new(big.Int).SetString(ntx.Burnt, 10)
		if !ok {
			t.Fatalf("native burnt fee %q", ntx.Burnt)
		}
		br.open(t, fmt.Sprintf("%s/block/%d", base, send.Height))
		br.expect(t, `[data-field="transactions-count"]`, "1 (0 EVM, 1 native)")
		br.expect(t, `[data-field="transaction-fees"]`, coinText(fee))
		br.expect(t, `[data-field="burnt-fees"]`, coinText(burnt))
		br.expect(t, `[data-field="priority-fee"]`, coinText(new(big.Int).Sub(fee, burnt)))
		if got := br.attrs(t, `#panel-transactions tbody a[href^="/tx/"]`, "href"); strings.Join(got, " ") != "/tx/"+hash {
			t.Errorf("block %d transactions %v, want [/tx/%s]", send.Height, got, hash)
		}
		br.expect(t, `#panel-transactions [data-field="tx-kind"]`, "Native")
		br.noErrors(t, "native block")
	})

	t.Run("home and txs", func(t *testing.T) {
		br.open(t, base+"/")
		br.expect(t, `#stats .stat:nth-child(2) .label`, "Transactions (EVM + native)")
		br.expect(t, `#h-txs`, "Latest EVM transactions view all")
		sel := `#latest-blocks [data-block="` + strconv.FormatInt(send.Height, 10) + `"] [data-field="block-txs"]`
		br.expect(t, sel, "1 tx")
		// /txs: EVM and native transactions in two tabs, the native send
		// the Native tab's only row.
		br.open(t, base+"/txs")
		br.expect(t, "h1", "Transactions")
		br.expect(t, `[data-field="txs-native"]`, "1")
		br.run(t, "native tab", chromedp.Click(chromedp.CSS("#tab-native")), chromedp.WaitVisible(chromedp.CSS("#panel-native tbody")))
		hash := "0x" + strings.ToLower(send.Hash.String())
		if got := br.attrs(t, `#panel-native tbody a[href^="/tx/"]`, "href"); strings.Join(got, " ") != "/tx/"+hash {
			t.Errorf("native tab lists %v, want [/tx/%s]", got, hash)
		}
		br.noErrors(t, "home and txs")
	})
}

// pageShort abbreviates a hash as the pages do.
func pageShort(s string) string {
	if len(s) <= 18 {
		return s
	}
	return s[:10] + "…" + s[len(s)-6:]
}
