package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/accounts"
)

// restGet does a plain HTTP GET against the node's REST server, as a script
// or a Cosmos client would.
func (n *Node) restGet(t *testing.T, path string, header ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+n.REST+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(body), res.Header
}

// accountJSON is the documented shape, written out by hand.
func accountJSON(addr common.Address, pubKey []byte, number, sequence uint64, codeHash common.Hash) string {
	pk := "null"
	if pubKey != nil {
		pk = fmt.Sprintf(`{"@type":"/ethermint.crypto.v1.ethsecp256k1.PubKey","key":"%s"}`, base64.StdEncoding.EncodeToString(pubKey))
	}
	return fmt.Sprintf(`{"@type":"/ethermint.types.v1.EthAccount","base_account":{"address":"%s","pub_key":%s,"account_number":"%d","sequence":"%d"},"code_hash":"%s"}`,
		accounts.Bech32("ember", addr), pk, number, sequence, codeHash.Hex())
}

// queryAccountCLI runs `emberd query account` against the node.
func (n *Node) queryAccountCLI(t *testing.T, addr string, output string) (string, error) {
	t.Helper()
	out, err := exec.Command(emberdBin, "query", "account", addr, "--node", "tcp://"+n.CometRPC, "--output", output).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// TestNativeAccountsOverREST follows an account from nothing to its first
// signed transaction through REST, the CLI and the EVM state: numbers are
// assigned once and increase, the public key appears with the first tx, the
// sequence is the EVM nonce, and the data lives in the state root.
func TestNativeAccountsOverREST(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	emptyCode := types.EmptyCodeHash

	// Genesis accounts are numbered in address order.
	sorted := make([]common.Address, len(devKeys))
	for i, k := range devKeys {
		sorted[i] = k.Address
	}
	slices.SortFunc(sorted, func(a, b common.Address) int { return a.Cmp(b) })
	dev := devKeys[0]
	devNumber := uint64(slices.Index(sorted, dev.Address))
	for _, spelling := range []string{accounts.Bech32("ember", dev.Address), dev.Address.Hex(), strings.ToLower(dev.Address.Hex())} {
		code, body, hdr := n.restGet(t, "/cosmos/auth/v1beta1/accounts/"+spelling)
		want := `{"account":` + accountJSON(dev.Address, nil, devNumber, 0, emptyCode) + `}`
		if code != 200 || body != want {
			t.Fatalf("GET account %s = %d %s\nwant %s", spelling, code, body, want)
		}
		if hdr.Get("Grpc-Metadata-X-Cosmos-Block-Height") == "" {
			t.Error("no block height header")
		}
	}

	// A fresh key is unknown until funded.
	key, _ := crypto.GenerateKey()
	fresh := crypto.PubkeyToAddress(key.PublicKey)
	freshBech := accounts.Bech32("ember", fresh)
	code, body, _ := n.restGet(t, "/cosmos/auth/v1beta1/accounts/"+freshBech)
	if want := `{"code":5,"message":"account ` + freshBech + ` not found","details":[]}`; code != 404 || body != want {
		t.Fatalf("unknown account = %d %s, want 404 %s", code, body, want)
	}
	if out, err := n.queryAccountCLI(t, freshBech, "json"); err == nil || !strings.Contains(out, "account "+freshBech+" not found") {
		t.Errorf("query account of an unknown address: %v %s", err, out)
	}
	code, body, _ = n.restGet(t, "/cosmos/bank/v1beta1/balances/"+freshBech)
	if want := `{"balances":[],"pagination":{"next_key":null,"total":"0"}}`; code != 200 || body != want {
		t.Errorf("zero balances = %d %s", code, body)
	}

	// Funding it gives it the next number (the 10 genesis accounts hold 0–9).
	amount := ether(3)
	fund := n.send(t, dev.Private, txOpts{To: &fresh, Value: amount})
	fundBlock := n.WaitReceipt(t, fund.Hash()).BlockNumber.Int64()
	wantBefore := accountJSON(fresh, nil, uint64(len(devKeys)), 0, emptyCode)
	code, body, _ = n.restGet(t, "/cosmos/auth/v1beta1/accounts/"+freshBech)
	if code != 200 || body != `{"account":`+wantBefore+`}` {
		t.Fatalf("funded account = %d %s\nwant %s", code, body, wantBefore)
	}
	if out, err := n.queryAccountCLI(t, fresh.Hex(), "json"); err != nil || out != wantBefore {
		t.Fatalf("query account = %v\n%s\nwant %s", err, out, wantBefore)
	}
	code, body, _ = n.restGet(t, "/cosmos/bank/v1beta1/balances/"+fresh.Hex())
	if want := `{"balances":[{"denom":"aember","amount":"3000000000000000000"}],"pagination":{"next_key":null,"total":"1"}}`; code != 200 || body != want {
		t.Errorf("balances = %d %s", code, body)
	}

	// Its first signed tx records its public key and bumps its sequence.
	tx := n.send(t, key, txOpts{To: &dev.Address, Value: big.NewInt(1)})
	rcpt := n.WaitReceipt(t, tx.Hash())
	wantAfter := accountJSON(fresh, crypto.CompressPubkey(&key.PublicKey), uint64(len(devKeys)), 1, emptyCode)
	code, body, _ = n.restGet(t, "/cosmos/auth/v1beta1/accounts/"+freshBech)
	if code != 200 || body != `{"account":`+wantAfter+`}` {
		t.Fatalf("after first tx = %d %s\nwant %s", code, body, wantAfter)
	}
	if out, err := n.queryAccountCLI(t, freshBech, "json"); err != nil || out != wantAfter {
		t.Fatalf("query account after tx = %v\n%s\nwant %s", err, out, wantAfter)
	}
	text, err := n.queryAccountCLI(t, freshBech, "text")
	if err != nil || !strings.Contains(text, `account_number: "10"`) || !strings.Contains(text, `sequence: "1"`) || !strings.Contains(text, "address: "+freshBech) {
		t.Errorf("text output: %v\n%s", err, text)
	}

	// The balance the REST server reports is the EVM balance to the wei,
	// at the latest height and at the height of the funding block.
	bal, err := n.Eth.BalanceAt(ctx(t), fresh, nil)
	if err != nil {
		t.Fatal(err)
	}
	fee := new(big.Int).Mul(rcpt.EffectiveGasPrice, new(big.Int).SetUint64(rcpt.GasUsed))
	if want := new(big.Int).Sub(new(big.Int).Sub(amount, big.NewInt(1)), fee); bal.Cmp(want) != 0 {
		t.Fatalf("EVM balance %v, want %v", bal, want)
	}
	_, body, _ = n.restGet(t, "/cosmos/bank/v1beta1/balances/"+freshBech+"/by_denom?denom=aember")
	if want := `{"balance":{"denom":"aember","amount":"` + bal.String() + `"}}`; body != want {
		t.Errorf("by_denom = %s, want %s", body, want)
	}
	_, body, hdr := n.restGet(t, "/cosmos/bank/v1beta1/balances/"+freshBech, "x-cosmos-block-height", strconv.FormatInt(fundBlock, 10))
	if want := `"amount":"3000000000000000000"`; !strings.Contains(body, want) || hdr.Get("Grpc-Metadata-X-Cosmos-Block-Height") != strconv.FormatInt(fundBlock, 10) {
		t.Errorf("balance at block %d = %s (height header %q)", fundBlock, body, hdr.Get("Grpc-Metadata-X-Cosmos-Block-Height"))
	}
	_, body, _ = n.restGet(t, "/cosmos/auth/v1beta1/accounts/"+freshBech, "x-cosmos-block-height", strconv.FormatInt(fundBlock, 10))
	if body != `{"account":`+wantBefore+`}` {
		t.Errorf("account at block %d = %s", fundBlock, body)
	}

	// A contract is an account too: next number, nonce 1, its code hash.
	runtime := []byte{0x60, 0x00, 0x60, 0x00, 0xf3} // RETURN(0, 0)
	deploy := n.send(t, dev.Private, txOpts{Data: deployCode(runtime), Gas: 100_000})
	created := n.WaitReceipt(t, deploy.Hash()).ContractAddress
	number := accountNumber(t, n, created)
	if number <= uint64(len(devKeys)) {
		t.Errorf("contract number %d, want above the fresh account's %d", number, len(devKeys))
	}
	_, body, _ = n.restGet(t, "/cosmos/auth/v1beta1/accounts/"+created.Hex())
	if want := `{"account":` + accountJSON(created, nil, number, 1, crypto.Keccak256Hash(runtime)) + `}`; body != want {
		t.Errorf("contract account = %s, want %s", body, want)
	}

	// The registry is EVM state: the assigned count is in slot 0 of the
	// registry account, under the state root (and so the AppHash).
	count, err := n.Eth.StorageAt(ctx(t), accounts.RegistryAddress, common.Hash{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The contract is the last account created (its deploy touched only it,
	// its funded sender and the already numbered fee recipient).
	if got := new(big.Int).SetBytes(count).Uint64(); got != number+1 {
		t.Errorf("registry count %d, want %d", got, number+1)
	}
}

// accountNumber reads an account's number over REST.
func accountNumber(t *testing.T, n *Node, addr common.Address) uint64 {
	t.Helper()
	_, body, _ := n.restGet(t, "/cosmos/auth/v1beta1/accounts/"+addr.Hex())
	i := strings.Index(body, `"account_number":"`)
	if i < 0 {
		t.Fatalf("no account number for %s: %s", addr, body)
	}
	rest := body[i+len(`"account_number":"`):]
	v, err := strconv.ParseUint(rest[:strings.IndexByte(rest, '"')], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRESTBadInput: every malformed request gets the gateway's error shape
// and status.
func TestRESTBadInput(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	cases := []struct {
		path   string
		header []string
		status int
		code   string
	}{
		{"/cosmos/auth/v1beta1/accounts/ember1qqqq", nil, 400, `"code":3`},
		{"/cosmos/auth/v1beta1/accounts/cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu", nil, 400, `"code":3`},
		{"/cosmos/auth/v1beta1/accounts/0x1234", nil, 400, `"code":3`},
		{"/cosmos/bank/v1beta1/balances/" + devKeys[0].Address.Hex(), []string{"x-cosmos-block-height", "abc"}, 400, `"code":3`},
		{"/cosmos/bank/v1beta1/balances/" + devKeys[0].Address.Hex(), []string{"x-cosmos-block-height", "99999999"}, 400, `"code":3`},
		{"/cosmos/bank/v1beta1/balances/" + devKeys[0].Address.Hex() + "/by_denom", nil, 400, `"code":3`},
		{"/cosmos/nothing/here", nil, 404, `"code":5`},
	}
	for _, c := range cases {
		status, body, _ := n.restGet(t, c.path, c.header...)
		if status != c.status || !strings.Contains(body, c.code) || !strings.Contains(body, `"details":[]`) {
			t.Errorf("GET %s %v = %d %s, want %d with %s", c.path, c.header, status, body, c.status, c.code)
		}
	}
	res, err := http.Post("http://"+n.REST+"/cosmos/auth/v1beta1/bech32", "application/json", bytes.NewReader(nil))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST = %d, want 405", res.StatusCode)
	}
	if _, body, _ := n.restGet(t, "/cosmos/auth/v1beta1/bech32"); body != `{"bech32_prefix":"ember"}` {
		t.Errorf("bech32 prefix = %s", body)
	}
}
